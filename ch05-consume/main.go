// Command ch05-consume is chapter 5 of the annotated text: pulling (消息的拉取), consuming
// (消息的消费) and persisting the consume progress (拉取进度持久化).
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server and broker-a, TopicTest with 2 queues; a producer sends 4 messages
//     (not traced: chapter 2 shows sending);
//  1. a CLUSTERING push consumer starts: it copies its subscription, adds %RETRY%group, gets
//     its MQClientInstance and asks for a rebalance;
//  2. the rebalance assigns it both queues of TopicTest and the retry topic's queue;
//  3. it pulls queue 0 and queue 1; the listener fails one message, which goes back to the
//     broker with delay level 3 (10 s) into SCHEDULE_TOPIC_XXXX;
//  4. 10 s later (the store's clock moves by hand) the schedule service delivers it to
//     %RETRY%group, and the consumer pulls it from there and consumes it;
//  5. the offset-persistence task sends the offsets to the broker;
//  6. a BROADCASTING consumer reads every queue and keeps its progress in a local file.
//
// Nothing runs behind the scenario's back: the broker's store and schedule service run with
// ManualServices, the consumer's instance with DisableScheduledTasks, and the scenario calls
// the loop bodies (DoRebalance, DoPullQueue, DoReput, DoDeliver, RunPersistConsumerOffsetTask)
// one at a time, so the output is the same every run. `go test ./ch05-consume` compares it
// with the chapter's golden file.
//
// Run: go run ./ch05-consume
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

func main() { mqtest.Main("ch05-consume", run) }

// config is what a run may vary.
type config struct {
	// Dir receives the broker's store and the local offsets; "" makes a temp dir removed at the end.
	Dir string
	// MessageDelayLevel, when set, replaces the broker's delay levels (exercises shorten them).
	MessageDelayLevel string
}

const (
	topicName      = "TopicTest"
	clusterGroup   = "ch05_consumer_group"
	broadcastGroup = "ch05_broadcast_group"
)

// epoch is where the store's and the consumers' clocks start.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg config) error {
	return mqtest.Play(w, cfg.Dir, "ch05-consume", false, func(stage *mqtest.Stage) error { return play(stage, cfg) })
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage, cfg config) (err error) {
	out, gate, logger, dir := stage.Out, stage.Gate, stage.Logger, stage.Dir
	clk := clock.NewManual(epoch)

	mqtest.Say(out, "== 0. a name server and broker-a; %s with 2 queues; 4 messages sent (not traced) ==", topicName)
	sc, err := newScenario(dir, cfg, logger, clk)
	if err != nil {
		return err
	}
	defer func() {
		gate.Close()
		sc.shutdown()
	}()
	if err := sc.produce(4); err != nil {
		return err
	}
	gate.Open()

	mqtest.Say(out, "== 1. 启动 — the clustering push consumer starts ==")
	failed := map[string]int{}
	var mu sync.Mutex
	c, err := sc.startConsumer(clusterGroup, protocol.Clustering, func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			body := string(m.Body)
			mqtest.Say(out, "listener: topic=%s queueId=%d queueOffset=%d reconsumeTimes=%d body=%q", m.Topic, m.QueueID, m.QueueOffset, m.ReconsumeTimes, body)
			if body == "Hello RocketMQ 2" && failed[body] == 0 {
				failed[body]++
				mqtest.Say(out, "listener: RECONSUME_LATER for %q", body)
				return consumer.ReconsumeLater
			}
		}
		return consumer.ConsumeSuccess
	})
	if err != nil {
		return err
	}
	inst := c.Instance()

	mqtest.Say(out, "== 2. 负载均衡 — the rebalance assigns the queues and dispatches the first pulls ==")
	inst.DoRebalance()

	mqtest.Say(out, "== 3. 消息拉取 — pull queue 0, then queue 1; the listener fails one message ==")
	for q := int32(0); q < 2; q++ {
		c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: q})
	}
	printOffsets(out, "the consumer's offsets in memory", c)

	mqtest.Say(out, "== 4. 重试 — +10 s: the schedule service delivers it to %%RETRY%%%s; it is pulled and consumed ==", clusterGroup)
	if err := sc.deliverDelayed(10 * time.Second); err != nil {
		return err
	}
	c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: protocol.GetRetryTopic(clusterGroup), BrokerName: "broker-a", QueueID: 0})

	mqtest.Say(out, "== 5. 拉取进度持久化 — the persist task sends the offsets to the broker ==")
	inst.RunPersistConsumerOffsetTask()
	if err := mqtest.WaitCommitted(sc.Master(), clusterGroup, topicName, map[int32]int64{0: 2, 1: 2}); err != nil {
		return err
	}
	printBrokerOffsets(out, sc, clusterGroup)

	mqtest.Say(out, "== 6. 广播消费 — a broadcasting consumer keeps its progress in a local file ==")
	b, err := sc.startConsumer(broadcastGroup, protocol.Broadcasting, func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		for _, m := range msgs {
			mqtest.Say(out, "broadcast listener: queueId=%d queueOffset=%d body=%q", m.QueueID, m.QueueOffset, string(m.Body))
		}
		return consumer.ConsumeSuccess
	})
	if err != nil {
		return err
	}
	binst := b.Instance()
	binst.DoRebalance()
	for q := int32(0); q < 2; q++ {
		b.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: q})
	}
	binst.RunPersistConsumerOffsetTask()
	rel, _ := filepath.Rel(dir, filepath.Join(sc.offsetDir, binst.ClientID(), broadcastGroup, "offsets.json"))
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	mqtest.Say(out, "%s:\n%s", filepath.ToSlash(rel), data)
	return nil
}

// scenario holds the cluster and what the steps share.
type scenario struct {
	*mqtest.Scene
	logger    *slog.Logger
	clk       *clock.Manual
	offsetDir string
	consumers []*consumer.DefaultMQPushConsumer
}

func newScenario(dir string, cfg config, logger *slog.Logger, clk *clock.Manual) (*scenario, error) {
	// The retry topic exists before the consumer's first heartbeat, and the broker does not
	// notify the groups of membership changes (NOTIFY_CONSUMER_IDS_CHANGED): either would make
	// something happen on a goroutine of its own, at a time no run repeats.
	scene, err := mqtest.StartScene(mqtest.SceneConfig{
		Cluster: mqtest.OneBroker(dir, logger, clk, func(_ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			if cfg.MessageDelayLevel != "" {
				sc.MessageDelayLevel = cfg.MessageDelayLevel
			}
		}),
		QuietGroups: []string{clusterGroup, broadcastGroup},
		Topics: []mqtest.Topic{{Name: topicName, Queues: 2},
			{Name: protocol.GetRetryTopic(clusterGroup), Queues: 1}, {Name: protocol.GetRetryTopic(broadcastGroup), Queues: 1}},
		Producer: mqtest.ProducerConfig("ch05_producer_group", "", "ch05-producer"),
	})
	if err != nil {
		return nil, err
	}
	return &scenario{Scene: scene, logger: logger, clk: clk, offsetDir: filepath.Join(dir, "offsets")}, nil
}

// produce sends n messages round robin over the two queues and builds the ConsumeQueues.
func (s *scenario) produce(n int) error {
	for i := 1; i <= n; i++ {
		m := &primitive.Message{Topic: topicName, Body: []byte("Hello RocketMQ " + strconv.Itoa(i))}
		m.PutProperty(primitive.PropertyTags, []string{"TagA", "TagB"}[i%2])
		if _, err := s.Producer.Send(context.Background(), m); err != nil {
			return fmt.Errorf("send #%d: %w", i, err)
		}
	}
	s.Master().MessageStore().DoReput()
	return nil
}

// startConsumer starts a push consumer of group on TopicTest ("TagA || TagB") that runs no
// goroutine of its own: the scenario drives it.
func (s *scenario) startConsumer(group string, model protocol.MessageModel, l consumer.MessageListenerConcurrently) (*consumer.DefaultMQPushConsumer, error) {
	cfg := s.consumerConfig(group, "ch05-"+string(model))
	cfg.Options.Logger = s.logger
	cfg.Options.Clock = s.clk
	cfg.Options.IndexSeed = func() int32 { return -1 }
	cfg.MessageModel = model
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.OffsetStoreDir = s.offsetDir
	return s.startPushConsumer(cfg, topicName, "TagA || TagB", l)
}

// consumerConfig is the base of the chapter's consumer configs: a consumer of group on the
// cluster's name server, named instance on loopback, with no goroutine of its own (the
// scenario, or an exercise, drives it).
func (s *scenario) consumerConfig(group, instance string) consumer.Config {
	cfg := consumer.DefaultConfig(group)
	mqtest.ClientSetup{NamesrvAddr: s.Cluster.NamesrvAddr(), Instance: instance}.Apply(&cfg.ClientConfig, &cfg.Options)
	return cfg
}

// startPushConsumer starts a push consumer of cfg subscribed to topic with subExpression and
// listening with l; the scenario shuts it down.
func (s *scenario) startPushConsumer(cfg consumer.Config, topic, subExpression string,
	l consumer.MessageListenerConcurrently) (*consumer.DefaultMQPushConsumer, error) {
	c := consumer.NewDefaultMQPushConsumer(cfg)
	if err := c.Subscribe(topic, subExpression); err != nil {
		return nil, err
	}
	c.RegisterMessageListener(l)
	if err := c.Start(); err != nil {
		return nil, err
	}
	s.consumers = append(s.consumers, c)
	return c, nil
}

// deliverDelayed moves the store's clock by d, then lets the schedule service deliver what is
// due and builds the ConsumeQueues of what it wrote.
func (s *scenario) deliverDelayed(d time.Duration) error {
	st := s.Master().MessageStore()
	st.DoReput()
	s.clk.Advance(d)
	n := s.Master().ScheduleMessageService().DoDeliver()
	st.DoReput()
	if n == 0 {
		return errors.New("the schedule service delivered nothing")
	}
	return nil
}

func (s *scenario) shutdown() {
	for i := len(s.consumers) - 1; i >= 0; i-- {
		s.consumers[i].Shutdown()
	}
	s.Scene.Shutdown()
}

func printOffsets(w io.Writer, title string, c *consumer.DefaultMQPushConsumer) {
	mqtest.Say(w, "%s:", title)
	table := c.OffsetStore().CloneOffsetTable("")
	var lines []string
	for q, v := range table {
		lines = append(lines, fmt.Sprintf("  %s queue %d -> %d", q.Topic, q.QueueID, v))
	}
	sort.Strings(lines)
	for _, l := range lines {
		mqtest.Say(w, "%s", l)
	}
}

func printBrokerOffsets(w io.Writer, s *scenario, group string) {
	mqtest.Say(w, "broker-a consumerOffset.json, group %s:", group)
	om := s.Master().ConsumerOffsetManager()
	for _, topic := range []string{topicName, protocol.GetRetryTopic(group)} {
		offs := om.QueryOffsets(group, topic)
		qs := make([]int, 0, len(offs))
		for q := range offs {
			qs = append(qs, int(q))
		}
		sort.Ints(qs)
		for _, q := range qs {
			mqtest.Say(w, "  %s@%s queue %d -> %d", topic, group, q, offs[int32(q)])
		}
	}
}
