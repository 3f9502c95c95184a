// Command quickstart sends one message with the official Apache RocketMQ Go client and receives
// it back. Start a broker first (`go run ./mq/cmd/broker`), then `go run ./examples/quickstart`.
// It talks to the name server at 127.0.0.1:9876, or at $NAMESRV_ADDR. README.md shows this file.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func main() {
	addr := "127.0.0.1:9876" // the client refuses "localhost"
	if a := os.Getenv("NAMESRV_ADDR"); a != "" {
		addr = a
	}
	os.Exit(quickstart(addr, os.Stdout, os.Stderr))
}

// quickstart sends and receives one message through the name server at addr and returns the
// exit status: 1, with one line on stderr, when no broker answers or a step fails.
func quickstart(addr string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "quickstart: "+format+"\n", a...)
		return 1
	}
	// addr may list several name servers, "ip:port;ip:port", as NAMESRV_ADDR does for the broker.
	ns := primitive.NamesrvAddr(strings.Split(addr, ";"))
	var dialErr error
	for _, a := range ns {
		conn, err := net.DialTimeout("tcp", a, 2*time.Second)
		if err == nil {
			conn.Close()
			dialErr = nil
			break
		}
		dialErr = err
	}
	if dialErr != nil {
		return fail("no broker at %s — start one with `go run ./mq/cmd/broker` in another terminal (%v)", addr, dialErr)
	}
	rlog.SetLogLevel("error") // the client logs every rebalance at info level
	p, err := rocketmq.NewProducer(producer.WithNameServer(ns), producer.WithGroupName("quickstart-producer"))
	if err != nil { // e.g. a host name: the client takes ip:port only
		return fail("name server address %s: %v (give ip:port, e.g. 127.0.0.1:9876)", addr, err)
	}
	if err := p.Start(); err != nil {
		return fail("start producer: %v", err)
	}
	defer func() { _ = p.Shutdown() }()
	res, err := p.SendSync(context.Background(), primitive.NewMessage("QuickstartTopic", []byte("hello, rocketmq-go")))
	if err != nil {
		return fail("send through %s: %v (is a broker registered with that name server?)", addr, err)
	}
	fmt.Fprintln(stdout, "sent:", res)

	got := make(chan string, 16)
	c, err := rocketmq.NewPushConsumer(consumer.WithNameServer(ns), consumer.WithGroupName("quickstart-consumer"),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		return fail("new consumer: %v", err)
	}
	err = c.Subscribe("QuickstartTopic", consumer.MessageSelector{},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, m := range msgs {
				if m.MsgId != res.MsgID { // the group may first get older messages of the topic
					continue
				}
				select {
				case got <- string(m.Body):
				default: // already reported; never block the client's consume goroutine
				}
			}
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		return fail("subscribe: %v", err)
	}
	if err := c.Start(); err != nil {
		return fail("start consumer: %v", err)
	}
	defer func() { _ = c.Shutdown() }()
	select {
	case body := <-got:
		fmt.Fprintln(stdout, "received:", body)
		return 0
	case <-time.After(30 * time.Second):
		return fail("nothing received in 30 s")
	}
}
