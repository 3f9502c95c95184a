// Command quickstart sends one message with the official Apache RocketMQ Go client and receives
// it back. Start a broker first (`go run ./mq/cmd/broker`), then `go run ./examples/quickstart`.
// README.md shows this file.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func main() {
	rlog.SetLogLevel("error")                     // the client logs every rebalance at info level
	ns := primitive.NamesrvAddr{"127.0.0.1:9876"} // the client refuses "localhost"
	p, _ := rocketmq.NewProducer(producer.WithNameServer(ns), producer.WithGroupName("quickstart-producer"))
	if err := p.Start(); err != nil {
		panic(err)
	}
	res, err := p.SendSync(context.Background(), primitive.NewMessage("QuickstartTopic", []byte("hello, rocketmq-go")))
	if err != nil {
		panic(err)
	}
	fmt.Println("sent:", res)

	got := make(chan string, 16)
	c, _ := rocketmq.NewPushConsumer(consumer.WithNameServer(ns), consumer.WithGroupName("quickstart-consumer"),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	err = c.Subscribe("QuickstartTopic", consumer.MessageSelector{},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, m := range msgs {
				got <- string(m.Body)
			}
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		panic(err)
	}
	if err := c.Start(); err != nil {
		panic(err)
	}
	select {
	case body := <-got:
		fmt.Println("received:", body)
	case <-time.After(30 * time.Second):
		fmt.Println("nothing received in 30 s")
		os.Exit(1)
	}
	_ = c.Shutdown()
	_ = p.Shutdown()
}
