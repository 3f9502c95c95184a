// Command quickstart sends one message with the official Apache RocketMQ Go client and receives
// it back. Start a broker first (`go run ./mq/cmd/broker`), then `go run ./examples/quickstart`.
// It talks to the name server at 127.0.0.1:9876, or at $NAMESRV_ADDR. README.md shows this file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	rmqerrors "github.com/apache/rocketmq-client-go/v2/errors"
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
// exit status: 1, with one line on stderr, when no broker answers or a step fails. A send the
// broker answers with a status other than SEND_OK stored the message without the guarantee it
// asked for: the quickstart says so in one line, still receives the message, and returns 1.
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
		return fail("send through %s: %v%s", addr, err, sendErrorHint(err))
	}
	fmt.Fprintln(stdout, "sent:", sendStatusName(res.Status), res)
	status := 0
	if res.Status != primitive.SendOK {
		fail("send status %s: %s", sendStatusName(res.Status), sendStatusMeaning(res.Status))
		status = 1
	}

	got := make(chan string, 16)
	c, err := startConsumer(ns, res.MsgID, got)
	if err != nil {
		return fail("%v", err)
	}
	defer func() { _ = c.Shutdown() }()
	select {
	case body := <-got:
		fmt.Fprintln(stdout, "received:", body)
		return status
	case <-time.After(30 * time.Second):
		return fail("nothing received in 30 s")
	}
}

// routeWait bounds how long startConsumer waits for QuickstartTopic's route: the send just
// created the topic on the broker, which registers it with the name server in the background
// (BrokerController#registerBrokerAll after the topic is created), so for a moment the name
// server may not know it yet.
const routeWait = 10 * time.Second

// startConsumer starts a push consumer of QuickstartTopic that hands the body of the message
// msgID to got. The official client's Start fails at once ("the topic=... route info not
// found") while the name server has no route for the topic yet: startConsumer then tries again
// with a new consumer every 100 ms, for at most routeWait. Its error names the step that failed.
func startConsumer(ns primitive.NamesrvAddr, msgID string, got chan<- string) (rocketmq.PushConsumer, error) {
	deadline := time.Now().Add(routeWait)
	for {
		c, err := rocketmq.NewPushConsumer(consumer.WithNameServer(ns), consumer.WithGroupName("quickstart-consumer"),
			consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
		if err != nil {
			return nil, fmt.Errorf("new consumer: %w", err)
		}
		err = c.Subscribe("QuickstartTopic", consumer.MessageSelector{},
			func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
				for _, m := range msgs {
					if m.MsgId != msgID { // the group may first get older messages of the topic
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
			return nil, fmt.Errorf("subscribe: %w", err)
		}
		err = c.Start()
		if err == nil {
			return c, nil
		}
		_ = c.Shutdown()
		if !strings.Contains(err.Error(), "route info not found") || time.Now().After(deadline) {
			return nil, fmt.Errorf("start consumer: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sendStatuses names the statuses the official Go client keeps as bare numbers
// (primitive.SendStatus 0..3, printed as sendStatus=N) by RocketMQ's names (Java's SendStatus),
// with what a status other than SEND_OK means for the message.
var sendStatuses = map[primitive.SendStatus]struct{ name, meaning string }{
	primitive.SendOK: {"SEND_OK", "stored and, on a SYNC_MASTER, replicated"},
	primitive.SendFlushDiskTimeout: {"FLUSH_DISK_TIMEOUT",
		"the broker (flushDiskType=SYNC_FLUSH) stored the message but did not flush it to disk within syncFlushTimeout"},
	primitive.SendFlushSlaveTimeout: {"FLUSH_SLAVE_TIMEOUT",
		"the master (SYNC_MASTER) stored the message but its slave did not acknowledge it within syncFlushTimeout: it is not replicated yet"},
	primitive.SendSlaveNotAvailable: {"SLAVE_NOT_AVAILABLE",
		"the master (SYNC_MASTER) stored the message but has no slave connected (or none less than haSlaveFallbehindMax behind): it is not replicated"},
}

// sendStatusName is RocketMQ's name of a send status; an unknown value gives "SendStatus(N)".
func sendStatusName(s primitive.SendStatus) string {
	if st, ok := sendStatuses[s]; ok {
		return st.name
	}
	return fmt.Sprintf("SendStatus(%d)", int(s))
}

// sendStatusMeaning says in a few words what a status means for the message.
func sendStatusMeaning(s primitive.SendStatus) string {
	if st, ok := sendStatuses[s]; ok {
		return st.meaning
	}
	return "not SEND_OK"
}

// sendErrorHint is a short hint, with a leading space, for an error SendSync returned, or "" when
// there is nothing to add. A timeout is a broker that was found but answered late (after the
// client's 3 s send timeout, on each of its 3 tries); a missing route is no master of the topic.
func sendErrorHint(err error) string {
	switch {
	case errors.Is(err, rmqerrors.ErrRequestTimeout):
		return " (a broker was found but did not answer within the client's 3 s send timeout, on each of its 3 tries," +
			" and each try may have stored the message; a SYNC_MASTER waiting syncFlushTimeout for a stalled slave does this:" +
			" see README \"Master and slave\")"
	case strings.Contains(err.Error(), "route info not found"):
		return " (is a master broker registered with that name server? a slave alone takes no sends)"
	}
	return ""
}
