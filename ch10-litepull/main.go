// Command ch10-litepull is chapter 10 of the annotated text: the pull mode (消息拉模式) and
// its DefaultLitePullConsumer — the application polls at its own pace while one pull task per
// queue keeps a bounded cache filled behind it.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server and broker-a, TopicTest with 4 queues; a producer sends 8 messages, two
//     per queue (not traced: chapter 2 shows sending);
//  1. a subscribe-mode consumer starts (DefaultLitePullConsumerImpl#start, initRebalanceImpl);
//     the group's rebalance gives it the 4 queues, RebalanceLitePullImpl tells its listener,
//     which starts one pull task per queue;
//  2. each pull task runs once: it pulls its queue's two messages and submits them to the
//     consume request cache;
//  3. the application polls twice (queues 0 and 1), commits (commitAll) and the persist task
//     sends the offsets to the broker;
//  4. it seeks queue 0 back to offset 0: the next polls return queues 2 and 3 from the cache,
//     then queue 0 again, pulled afresh from the seek offset;
//  5. an assign-mode consumer of another group reads the two queues it chose (1 and 3); a
//     rebalance of its instance does not change them;
//  6. push and pull compared in one table.
//
// Nothing runs behind the scenario's back: the store runs with ManualServices on a clock the
// chapter holds, the consumers' instances with DisableScheduledTasks (no pull task goroutines,
// no rebalance or persist timers), and the chapter plays each pass (DoRebalance, RunPullTask,
// RunPersistConsumerOffsetTask). So the output is the same every run: `go test ./ch10-litepull`
// compares it with the golden file.
//
// Run: go run ./ch10-litepull
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func main() { mqtest.Main("ch10-litepull", run) }

const (
	topicName   = "TopicTest"
	queueNums   = 4
	brokerName  = "broker-a"
	subGroup    = "ch10_subscribe_group"
	assignGroup = "ch10_assign_group"
)

// epoch is where the store's and the consumers' clocks start.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch10-litepull", false, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) error {
	sc, err := newScenario(stage)
	if err != nil {
		return err
	}
	defer func() {
		stage.Gate.Close()
		sc.shutdown()
	}()
	out := stage.Out
	mqtest.Say(out, "== 0. a name server and %s; %s with %d queues; 8 messages sent, two per queue (not traced) ==", brokerName, topicName, queueNums)
	if err := sc.produce(8); err != nil {
		return err
	}
	stage.Gate.Open()

	mqtest.Say(out, "== 1. subscribe: the consumer starts; the rebalance gives it the queues; its listener starts a pull task per queue ==")
	sub, err := sc.startConsumer(subGroup, "sub", func(c *consumer.DefaultLitePullConsumer) error {
		return c.Subscribe(topicName, "*")
	})
	if err != nil {
		return err
	}
	sub.Instance().DoRebalance()

	mqtest.Say(out, "== 2. each pull task runs once: it pulls its queue and submits the messages to the consume request cache ==")
	for _, q := range queues(0, 1, 2, 3) {
		sub.RunPullTask(q)
	}

	mqtest.Say(out, "== 3. the application polls twice, commits, and the persist task sends the offsets to the broker ==")
	polled := sc.pollTimes(sub, 2)
	if err := sub.CommitSync(); err != nil {
		return err
	}
	sub.Instance().RunPersistConsumerOffsetTask()
	if err := mqtest.WaitCommitted(sc.Cluster.Brokers[0], subGroup, topicName, map[int32]int64{0: 2, 1: 2}); err != nil {
		return err
	}
	sc.offsetsTable("offsets after the commit", sub, subGroup)

	mqtest.Say(out, "== 4. seek queue 0 back to offset 0: the cache keeps queues 2 and 3; queue 0 is pulled again from 0 ==")
	if err := sub.Seek(queues(0)[0], 0); err != nil {
		return err
	}
	polled = append(polled, sc.pollTimes(sub, 2)...)
	sub.RunPullTask(queues(0)[0])
	polled = append(polled, sc.pollTimes(sub, 1)...)
	sc.messagesTable("what the subscribe-mode consumer polled, in order", polled)

	mqtest.Say(out, "== 5. assign: another group's consumer reads the two queues it chose; a rebalance does not change them ==")
	asg, err := sc.startConsumer(assignGroup, "assign", func(c *consumer.DefaultLitePullConsumer) error {
		return c.Assign(queues(1, 3))
	})
	if err != nil {
		return err
	}
	asg.Instance().DoRebalance()
	for _, q := range asg.Assignment() {
		asg.RunPullTask(q)
	}
	sc.messagesTable("what the assign-mode consumer polled", sc.pollTimes(asg, 2))
	mqtest.Say(out, "assignment after the rebalance: %s", queueList(asg.Assignment()))

	mqtest.Say(out, "== 6. push and pull compared ==")
	compareTable(out)
	return nil
}

// scenario holds the cluster, the clients and what the sections share.
type scenario struct {
	*mqtest.Scene
	logger    *slog.Logger
	clk       *clock.Manual
	out       io.Writer
	consumers []*consumer.DefaultLitePullConsumer
}

func newScenario(stage *mqtest.Stage) (*scenario, error) {
	clk := clock.NewManual(epoch)
	// The broker does not notify the groups of membership changes, and the retry topics exist
	// before the consumers' first heartbeats, which would otherwise create them and register
	// them with the name server on a goroutine of their own.
	scene, err := mqtest.StartScene(mqtest.SceneConfig{
		Cluster:     mqtest.OneBroker(stage.Dir, stage.Logger, clk, nil),
		QuietGroups: []string{subGroup, assignGroup},
		Topics: []mqtest.Topic{{Name: topicName, Queues: queueNums},
			{Name: protocol.GetRetryTopic(subGroup), Queues: 1}, {Name: protocol.GetRetryTopic(assignGroup), Queues: 1}},
		Producer: mqtest.ProducerConfig("ch10_producer_group", "", "ch10-producer"),
	})
	if err != nil {
		return nil, err
	}
	return &scenario{Scene: scene, logger: stage.Logger, clk: clk, out: stage.Out}, nil
}

// produce sends n messages round robin over the queues and builds the ConsumeQueues.
func (s *scenario) produce(n int) error {
	for i := 1; i <= n; i++ {
		m := &primitive.Message{Topic: topicName, Body: []byte("Hello RocketMQ " + strconv.Itoa(i))}
		if _, err := s.Producer.Send(context.Background(), m); err != nil {
			return fmt.Errorf("send #%d: %w", i, err)
		}
	}
	s.Cluster.Brokers[0].MessageStore().DoReput()
	return nil
}

// consumerConfig is a lite pull consumer of group on the cluster that runs no goroutine of its
// own and commits only when told (CommitSync): the chapter drives it.
func (s *scenario) consumerConfig(group, name string) consumer.LitePullConfig {
	cfg := consumer.DefaultLitePullConfig(group)
	mqtest.ClientSetup{NamesrvAddr: s.Cluster.NamesrvAddr(), Instance: "ch10-" + name, TraceName: name,
		Logger: s.logger, Clock: s.clk}.Apply(&cfg.ClientConfig, &cfg.Options)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.AutoCommit = false
	cfg.Options.IndexSeed = func() int32 { return -1 }
	return cfg
}

// startConsumer starts a consumer of group that choose (Subscribe or Assign) points at its
// queues, its config changed by tune (exercises); the scenario shuts it down.
func (s *scenario) startConsumer(group, name string, choose func(*consumer.DefaultLitePullConsumer) error,
	tune ...func(*consumer.LitePullConfig)) (*consumer.DefaultLitePullConsumer, error) {
	cfg := s.consumerConfig(group, name)
	for _, f := range tune {
		f(&cfg)
	}
	c := consumer.NewDefaultLitePullConsumer(cfg)
	if err := choose(c); err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	s.consumers = append(s.consumers, c)
	return c, nil
}

// pollTimes polls c n times without waiting (the pull tasks have filled the cache) and returns
// what came.
func (s *scenario) pollTimes(c *consumer.DefaultLitePullConsumer, n int) []*primitive.MessageExt {
	var got []*primitive.MessageExt
	for range n {
		msgs, err := c.Poll(0)
		if err != nil {
			mqtest.Say(s.out, "poll: %v", err)
		}
		got = append(got, msgs...)
	}
	return got
}

func (s *scenario) shutdown() {
	for i := len(s.consumers) - 1; i >= 0; i-- {
		s.consumers[i].Shutdown()
	}
	s.Scene.Shutdown()
}

// offsetsTable prints, per queue, the consumer's committed offset (its store's memory) and the
// broker's.
func (s *scenario) offsetsTable(title string, c *consumer.DefaultLitePullConsumer, group string) {
	mqtest.Say(s.out, "%s:", title)
	om := s.Cluster.Brokers[0].ConsumerOffsetManager()
	t := mqtest.NewTable(s.out, "queue", "committed (consumer)", "consumerOffset.json (broker)")
	for _, q := range c.Assignment() {
		v, _ := c.Committed(q)
		t.Row(q.QueueID, v, om.QueryOffset(group, topicName, q.QueueID))
	}
	t.Render()
}

func (s *scenario) messagesTable(title string, msgs []*primitive.MessageExt) {
	mqtest.Say(s.out, "%s:", title)
	t := mqtest.NewTable(s.out, "#", "queue", "queueOffset", "body")
	for i, m := range msgs {
		t.Row(i+1, m.QueueID, m.QueueOffset, string(m.Body))
	}
	t.Render()
}

func queues(ids ...int32) []primitive.MessageQueue {
	out := make([]primitive.MessageQueue, len(ids))
	for i, id := range ids {
		out[i] = primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: id}
	}
	return out
}

func queueList(mqs []primitive.MessageQueue) string {
	parts := make([]string, len(mqs))
	for i, q := range mqs {
		parts[i] = q.BrokerName + "/" + strconv.Itoa(int(q.QueueID))
	}
	return strings.Join(parts, ",")
}

// compareTable is the chapter's comparison of the two consumers.
func compareTable(w io.Writer) {
	t := mqtest.NewTable(w, "", "push (DefaultMQPushConsumer)", "pull (DefaultLitePullConsumer)")
	t.Row("who drives the pace", "the consumer: pulls as fast as the listener consumes", "the application: Poll when it wants more")
	t.Row("what pulls", "one PullMessageService, PullRequests queued", "one pull task per queue (PullTaskImpl)")
	t.Row("where messages wait", "ProcessQueue, handed to a listener pool", "ProcessQueue + consume request cache")
	t.Row("flow control", "per queue: count, MiB, span", "per queue, plus pullThresholdForAll")
	t.Row("where offsets live", "offset store, updated after the listener", "offset store, updated by commitAll")
	t.Row("a failed message", "sent back to %RETRY%group", "the application's business (seek)")
	t.Row("what a rebalance does", "drops and adds ProcessQueues and PullRequests", "subscribe: new pull tasks; assign: nothing")
	t.Row("moving back", "reset offsets with mqadmin", "Seek, SeekToBegin, SeekToEnd")
	t.Render()
}
