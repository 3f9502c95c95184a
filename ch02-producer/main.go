// Command ch02-producer is chapter 2 of the annotated text: sending messages (消息发送) and the
// producer's latency fault tolerance (故障延迟机制).
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  1. a name server and two brokers, broker-a and broker-b, start; TopicTest gets 4 queues on
//     each (this setup is not traced: chapter 1 shows it);
//  2. a producer starts (DefaultMQProducerImpl#start) and sends one message synchronously: it
//     asks the name server for the route, chooses a queue round robin, sends, waits;
//  3. it sends one message asynchronously: the callback runs when the broker's answer arrives;
//  4. the latency fault tolerance is switched on and broker-a stops; the next send fails on
//     broker-a, which gets a fault item, and is retried on broker-b;
//  5. the next sends avoid broker-a;
//  6. broker-b answers slowly, so it is marked too;
//  7. with every broker marked, the producer still picks one (pickOneAtLeast);
//  8. 60 s later broker-b's pause is over.
//
// Every step line is logged by the code under mq/ through a trace.Printer; this file drives the
// flow and prints the send results and the fault table. Time on the producer is a clock the
// scenario moves by hand: a SendMessageHook (networkModel) plays a network in which a send costs
// what the scenario says, so latencies are exact and the output is the same every run.
// `go test ./ch02-producer` compares it with the chapter's golden file.
//
// Run: go run ./ch02-producer
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

func main() { mqtest.Main("ch02-producer", run) }

const (
	topicName = "TopicTest"
	group     = "ch02_producer_group"
)

// epoch is where the producer's clock starts.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch02-producer", true, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) (err error) {
	out, gate, logger, dir := stage.Out, stage.Gate, stage.Logger, stage.Dir

	mqtest.Say(out, "== 0. a name server, broker-a and broker-b; %s with 4 queues on each (not traced) ==", topicName)
	cluster, err := startCluster(dir)
	if err != nil {
		return err
	}
	defer func() {
		gate.Close()
		cluster.Shutdown()
	}()

	clk := clock.NewManual(epoch)
	netw := &networkModel{clk: clk, cost: map[string]time.Duration{}}
	p := newProducer(cluster.NamesrvAddr(), logger, clk)
	p.RegisterSendMessageHook(netw)

	mqtest.Say(out, "== 1. 启动 — the producer starts ==")
	if err := p.Start(); err != nil {
		return err
	}
	defer func() {
		gate.Close()
		p.Shutdown()
	}()

	mqtest.Say(out, "== 2. 同步发送 — a synchronous send: route, queue, send, wait ==")
	if err := sendAndReport(out, p, netw, 1); err != nil {
		return err
	}

	mqtest.Say(out, "== 3. 异步发送 — an asynchronous send: the callback runs when the answer arrives ==")
	if err := sendAsyncAndReport(out, p, netw, 2); err != nil {
		return err
	}

	mqtest.Say(out, "== 4. 故障延迟机制 — sendLatencyFaultEnable=true; broker-a stops ==")
	p.SetSendLatencyFaultEnable(true)
	cluster.Brokers[0].Shutdown()
	netw.setCost("broker-a", 3*time.Second)
	mqtest.Say(out, "(the simulated network: a send to broker-a now costs 3000 ms, a connect timeout, and fails)")
	if err := sendAndReport(out, p, netw, 3); err != nil {
		return err
	}
	printFaultTable(out, p, clk)

	mqtest.Say(out, "== 5. 故障规避 — the next sends avoid broker-a ==")
	for n := 4; n <= 5; n++ {
		if err := sendAndReport(out, p, netw, n); err != nil {
			return err
		}
	}

	mqtest.Say(out, "== 6. broker-b answers in 1000 ms: its latency marks it for 60000 ms ==")
	netw.setCost("broker-b", time.Second)
	if err := sendAndReport(out, p, netw, 6); err != nil {
		return err
	}
	printFaultTable(out, p, clk)

	mqtest.Say(out, "== 7. 未找到合适的消息队列 — every broker is marked: pickOneAtLeast ==")
	if err := sendAndReport(out, p, netw, 7); err != nil {
		return err
	}
	printFaultTable(out, p, clk)

	mqtest.Say(out, "== 8. +60 s: broker-b's pause is over, broker-a's (600 s) is not ==")
	clk.Advance(60 * time.Second)
	netw.setCost("broker-b", 0)
	if err := sendAndReport(out, p, netw, 8); err != nil {
		return err
	}
	printFaultTable(out, p, clk)
	return nil
}

// startCluster starts a name server and two masters with small store files, untraced, and
// creates the topic on both; it returns once the name server routes the topic to both.
func startCluster(dir string) (*embedded.Cluster, error) {
	c, err := embedded.Start(embedded.Config{
		Dir:     dir,
		Brokers: 2,
		Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			embedded.SmallFiles(sc)
		},
	})
	if err != nil {
		return nil, err
	}
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	for _, b := range c.Brokers {
		if err := mqtest.CreateTopic(cl, b.BrokerAddr(), topicName, 4, protocol.PermRead|protocol.PermWrite); err != nil {
			c.Shutdown()
			return nil, fmt.Errorf("create %s on %s: %w", topicName, b.BrokerAddr(), err)
		}
	}
	if err := mqtest.WaitRouted(cl, c.NamesrvAddr(), topicName, 2); err != nil {
		c.Shutdown()
		return nil, err
	}
	return c, nil
}

// newProducer configures the chapter's producer: RocketMQ's defaults, plus a fixed identity, no
// background tasks (nothing may happen behind the scenario's back), the hand-moved clock, and
// round-robin indexes that start at queue 0.
func newProducer(namesrv string, logger *slog.Logger, clk *clock.Manual) *producer.DefaultMQProducer {
	return producer.NewDefaultMQProducer(producerConfig(namesrv, logger, clk))
}

func producerConfig(namesrv string, logger *slog.Logger, clk *clock.Manual) producer.Config {
	cfg := mqtest.ProducerConfig(group, namesrv, "ch02-producer") // the first IncrementAndGet is 0
	cfg.Options.Logger = logger
	cfg.Options.Clock = clk
	return cfg
}

func message(n int) *primitive.Message {
	m := &primitive.Message{Topic: topicName, Body: []byte("Hello RocketMQ " + strconv.Itoa(n))}
	m.PutProperty(primitive.PropertyTags, "TagA")
	m.PutProperty(primitive.PropertyKeys, "ORDER-"+strconv.Itoa(n))
	return m
}

// sendAndReport sends message n synchronously and prints its attempts and result.
func sendAndReport(w io.Writer, p *producer.DefaultMQProducer, netw *networkModel, n int) error {
	netw.reset()
	res, err := p.Send(context.Background(), message(n))
	if err != nil {
		return fmt.Errorf("send #%d: %w", n, err)
	}
	report(w, n, "Send", netw.attempts(), res)
	return nil
}

// sendAsyncAndReport sends message n asynchronously, waits for the callback, and prints.
func sendAsyncAndReport(w io.Writer, p *producer.DefaultMQProducer, netw *networkModel, n int) error {
	netw.reset()
	type outcome struct {
		res *producer.SendResult
		err error
	}
	done := make(chan outcome, 1)
	if err := p.SendAsync(context.Background(), message(n), func(res *producer.SendResult, err error) {
		done <- outcome{res, err}
	}); err != nil {
		return err
	}
	o := <-done
	if o.err != nil {
		return fmt.Errorf("send #%d: %w", n, o.err)
	}
	report(w, n, "SendAsync callback", netw.attempts(), o.res)
	return nil
}

func report(w io.Writer, n int, how, attempts string, res *producer.SendResult) {
	mqtest.Say(w, "send #%d (%s): %s on %s queue %d, queueOffset %d; attempts: %s", n, how, res.SendStatus,
		res.MessageQueue.BrokerName, res.MessageQueue.QueueID, res.QueueOffset, attempts)
}

// printFaultTable prints the producer's fault items as the fault tolerance sees them now.
func printFaultTable(w io.Writer, p *producer.DefaultMQProducer, clk *clock.Manual) {
	now := clk.Now().UnixMilli()
	t := mqtest.NewTable(w, "broker", "current latency ms", "start timestamp", "available", "unavailable for ms")
	for _, it := range p.FaultStrategy().LatencyFaultTolerance().FaultItems() {
		left := max(it.StartTimestamp()-now, 0)
		t.Row(it.Name(), it.CurrentLatency(), fmt.Sprintf("+%d ms", it.StartTimestamp()-epoch.UnixMilli()), left == 0, left)
	}
	t.Render()
	mqtest.Say(w, "clock: +%d ms", now-epoch.UnixMilli())
}

// networkModel is a SendMessageHook that stands for the network between the producer and the
// brokers: before each attempt it moves the producer's clock by the cost the scenario set for
// the attempt's broker, so the latency the producer measures is that cost; it also notes each
// attempt's broker, queue and outcome.
type networkModel struct {
	clk *clock.Manual

	mu    sync.Mutex
	cost  map[string]time.Duration
	tries []string
}

func (n *networkModel) HookName() string { return "networkModel" }

func (n *networkModel) SendMessageBefore(ctx *producer.SendMessageContext) {
	n.mu.Lock()
	d := n.cost[ctx.MQ.BrokerName]
	n.mu.Unlock()
	n.clk.Advance(d)
}

func (n *networkModel) SendMessageAfter(ctx *producer.SendMessageContext) {
	outcome := "ok"
	if ctx.Err != nil {
		outcome = "failed"
	}
	n.mu.Lock()
	n.tries = append(n.tries, fmt.Sprintf("%s/%d %s", ctx.MQ.BrokerName, ctx.MQ.QueueID, outcome))
	n.mu.Unlock()
}

func (n *networkModel) setCost(broker string, d time.Duration) {
	n.mu.Lock()
	n.cost[broker] = d
	n.mu.Unlock()
}

func (n *networkModel) reset() {
	n.mu.Lock()
	n.tries = nil
	n.mu.Unlock()
}

func (n *networkModel) attempts() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.tries, ", ")
}
