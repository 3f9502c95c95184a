// Command ch06-rebalance is chapter 6 of the annotated text: consumer load balancing (负载均衡)
// — how the consumers of one group share a topic's queues without overlap, when they divide
// them again, and how the progress of a queue passes from one member to the next — and consume
// progress with master and slave (主从模式下的消费进度管理/同步).
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server and broker-a, TopicTest with 4 queues; a producer sends 8 messages (not
//     traced: chapter 2 shows sending);
//  1. consumer A starts alone: it fetches its topics' routes, heartbeats; the broker registers
//     it and tells the group (NOTIFY_CONSUMER_IDS_CHANGED); A rebalances and owns all 4 queues;
//  2. A consumes the 8 messages (the pulls are chapter 5's and not traced); its progress is in
//     its memory only;
//  3. consumer B joins: its heartbeat changes the group, the broker notifies A and B, both
//     rebalance: A keeps queues 0 and 1 and drops 2 and 3, persisting their offsets to the
//     broker first; B takes 2 and 3 and starts where A stopped;
//  4. 4 more messages: each is consumed once, by the queue's new owner;
//  5. A shuts down: it persists its offsets and unregisters (UNREGISTER_CLIENT); the broker
//     tells B, which takes all 4 queues, each from A's last offset;
//  6. master and slave: a slave of broker-a starts and copies it; with the master's lag beyond
//     its in-memory window the master suggests the slave, and B's next pull of that queue goes
//     there; B's progress goes to the master and the slave's SlaveSynchronize copies it; with
//     the master down B pulls from the slave and commits there; when the master is back the
//     slave's next pass rolls that back to the master's table, and B's next persist brings the
//     master up to date.
//
// Nothing runs behind the scenario's back: the stores run with ManualServices on one clock the
// chapter holds, the consumers' instances with DisableScheduledTasks, and the chapter plays each
// pass (DoRebalance, DoPullQueue, DoReput, RunPersistConsumerOffsetTask, SyncAll). What would
// still make two runs differ — A and B told of a change at the same moment, over their own
// connections — goes through a turnstile (mqtest.Turnstile) in front of each consumer's logger:
// the chapter lets A's notification through first, then B's. So the output is the same every
// run: `go test ./ch06-rebalance` compares it with the golden file.
//
// Run: go run ./ch06-rebalance
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
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

func main() { mqtest.Main("ch06-rebalance", run) }

const (
	topicName  = "TopicTest"
	queueNums  = 4
	group      = "ch06_consumer_group"
	brokerName = "broker-a"
	// wait bounds every wait for a oneway request or a notification to land (wall clock).
	wait = 10 * time.Second
)

// epoch is where the stores' and the consumers' clocks start.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch06-rebalance", false, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) error {
	sc, err := newScenario(stage)
	if err != nil {
		return err
	}
	defer sc.shutdown()
	mqtest.Say(sc.out, "== 0. a name server and %s; %s with %d queues; 8 messages sent (not traced) ==", brokerName, topicName, queueNums)
	if err := sc.produce(8); err != nil {
		return err
	}
	stage.Gate.Open()
	for _, section := range []func() error{sc.aloneA, sc.consumeA, sc.joinB, sc.moreMessages, sc.leaveA, sc.masterSlave} {
		if err := section(); err != nil {
			return err
		}
	}
	return nil
}

// aloneA is section 1: A starts, is registered and told, and rebalances alone.
func (s *scenario) aloneA() error {
	mqtest.Say(s.out, "== 1. consumer A starts alone: heartbeat, registerConsumer, the notification, rebalanceByTopic ==")
	a, err := s.startMember("A")
	if err != nil {
		return err
	}
	// A's own heartbeat made it a new channel of the group: the broker tells the group (A).
	if err := s.letThrough(a); err != nil {
		return err
	}
	mqtest.Say(s.out, "the notification woke A's RebalanceService; the chapter plays its pass:")
	a.c.Instance().DoRebalance()
	s.ownersTable("who owns which queue after A's rebalance")
	return nil
}

// consumeA is section 2: A pulls every queue once (untraced) and consumes the 8 messages.
func (s *scenario) consumeA() error {
	mqtest.Say(s.out, "== 2. A pulls and consumes the 8 messages (chapter 5's steps, not traced); its offsets are in its memory ==")
	s.stage.Untraced(func() { s.pullAll(s.members.Get("A")) })
	s.ownersTable("queues, owners and offsets: the broker has no committed offset yet")
	return nil
}

// joinB is section 3: B joins; the broker notifies A and B; both rebalance, A first.
func (s *scenario) joinB() error {
	mqtest.Say(s.out, "== 3. consumer B joins: its heartbeat changes the group; the broker notifies A and B; both rebalance ==")
	a := s.members.Get("A")
	a.arm()
	b, err := s.startMember("B")
	if err != nil {
		return err
	}
	mqtest.Say(s.out, "A's and B's notifications arrive at the same time; the chapter lets A's through first, then B's:")
	if err := s.letThrough(a, b); err != nil {
		return err
	}
	mqtest.Say(s.out, "A's rebalance: it keeps queues 0 and 1 and drops 2 and 3, persisting their offsets first:")
	a.c.Instance().DoRebalance()
	if err := s.waitCommitted(map[int32]int64{2: 2, 3: 2}); err != nil {
		return err
	}
	mqtest.Say(s.out, "B's rebalance: it takes queues 2 and 3 at the offsets A committed:")
	b.c.Instance().DoRebalance()
	s.ownersTable("who owns which queue after both rebalanced")
	return nil
}

// moreMessages is section 4: one more message per queue, each consumed once by its owner.
func (s *scenario) moreMessages() error {
	mqtest.Say(s.out, "== 4. 4 more messages, one per queue (not traced): each is consumed once, by the queue's owner ==")
	if err := s.produce(4); err != nil {
		return err
	}
	s.stage.Untraced(func() {
		s.pullAll(s.members.Get("A"))
		s.pullAll(s.members.Get("B"))
	})
	s.ledgerTable()
	return nil
}

// leaveA is section 5: A shuts down; the broker notifies B, which takes every queue.
func (s *scenario) leaveA() error {
	mqtest.Say(s.out, "== 5. A shuts down: it persists its offsets and unregisters; the broker notifies B; B takes all ==")
	a, b := s.members.Get("A"), s.members.Get("B")
	b.arm()
	a.c.Shutdown()
	s.members.Remove(a.name)
	if err := s.letThrough(b); err != nil {
		return err
	}
	if err := s.waitCommitted(map[int32]int64{0: 3, 1: 3}); err != nil {
		return err
	}
	mqtest.Say(s.out, "B's rebalance: queues 0 and 1 come to it at the offsets A committed on its way out:")
	b.c.Instance().DoRebalance()
	s.ownersTable("who owns which queue after A left")
	return nil
}

// scenario holds the cluster, the consumers and what the sections share.
type scenario struct {
	*mqtest.Scene
	stage    *mqtest.Stage
	out      io.Writer
	clk      *clock.Manual
	sent     int
	bodySize int // section 6 pads bodies to this size
	// masterDown: section 6 has stopped the master for a while.
	masterDown bool

	members mqtest.Roster[*member] // safe for concurrent use

	mu sync.Mutex // guards what follows
	// consumed lists the members each message ("message 7") was delivered to, in order.
	consumed map[string][]string
	ms       *masterSlave
}

// member is one consumer of the group: its name ("A"), the consumer and the turnstile in front
// of its logger.
type member struct {
	name string
	c    *consumer.DefaultMQPushConsumer
	ts   *mqtest.Turnstile
}

// arm stops the member's next handling of NOTIFY_CONSUMER_IDS_CHANGED until letThrough.
func (m *member) arm() { m.ts.Arm("code", "NOTIFY_CONSUMER_IDS_CHANGED") }

func newScenario(stage *mqtest.Stage) (*scenario, error) {
	clk := clock.NewManual(epoch)
	cc := mqtest.OneBroker(stage.Dir, stage.Logger, clk, nil)
	cc.StoreOptions = func(int) store.Options { return storeOptions(clk) }
	cc.SlaveStoreOptions = cc.StoreOptions
	scene, err := mqtest.StartScene(mqtest.SceneConfig{Cluster: cc,
		Topics:   []mqtest.Topic{{Name: topicName, Queues: queueNums}, {Name: protocol.GetRetryTopic(group), Queues: 1}},
		Producer: mqtest.ProducerConfig("ch06_producer_group", "", "ch06-producer")})
	if err != nil {
		return nil, err
	}
	return &scenario{Scene: scene, stage: stage, out: stage.Out, clk: clk, consumed: map[string][]string{}}, nil
}

// storeOptions are every store's: manual services on the chapter's clock, and a small machine
// memory (section 6).
func storeOptions(clk *clock.Manual) store.Options {
	return store.Options{ManualServices: true, Clock: clk, TotalPhysicalMemory: totalPhysicalMemory}
}

// produce sends n messages round robin over the queues (untraced) and builds the ConsumeQueues.
func (s *scenario) produce(n int) error {
	var err error
	s.stage.Untraced(func() {
		for i := 0; i < n && err == nil; i++ {
			s.sent++
			m := &primitive.Message{Topic: topicName, Body: []byte(s.body(s.sent))}
			_, err = s.Producer.Send(context.Background(), m)
		}
		s.Master().MessageStore().DoReput()
		if s.ms != nil {
			err = s.ms.replicate()
		}
	})
	return err
}

// startMember starts consumer name of the group on TopicTest, from the first offset, with no
// goroutine of its own, its steps traced as client-<name> and consumer-<name> through a
// turnstile armed for its first notification.
func (s *scenario) startMember(name string) (*member, error) {
	ts := mqtest.NewTurnstile(s.stage.Logger.Handler())
	m := &member{name: name, ts: ts}
	m.arm()
	cfg := consumer.DefaultConfig(group)
	mqtest.ClientSetup{NamesrvAddr: s.Cluster.NamesrvAddr(), Instance: "consumer" + name, TraceName: name,
		Logger: slog.New(ts), Clock: s.clk}.Apply(&cfg.ClientConfig, &cfg.Options)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	c := consumer.NewDefaultMQPushConsumer(cfg)
	if err := c.Subscribe(topicName, "*"); err != nil {
		return nil, err
	}
	c.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		for _, msg := range msgs {
			s.record(name, msg)
		}
		return consumer.ConsumeSuccess
	})
	m.c = c
	if err := c.Start(); err != nil {
		ts.Open()
		return nil, err
	}
	s.members.Add(name, m)
	return m, nil
}

// record notes one delivery of msg to member name and prints it.
func (s *scenario) record(name string, msg *primitive.MessageExt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body := strings.TrimRight(string(msg.Body), ".")
	s.consumed[body] = append(s.consumed[body], name)
	mqtest.Say(s.out, "%s consumed: queueId=%d queueOffset=%d body=%q (%d bytes)", name, msg.QueueID, msg.QueueOffset, body, len(msg.Body))
}

// letThrough lets each member, in order, through its turnstile: its ClientRemotingProcessor
// logs the notification and its MQClientInstance wakes its RebalanceService (two records); the
// next member goes only when this one's records are printed.
func (s *scenario) letThrough(ms ...*member) error {
	for _, m := range ms {
		n := m.ts.Records()
		if err := m.ts.Pass(wait); err != nil {
			return fmt.Errorf("consumer %s was not notified: %w", m.name, err)
		}
		if err := m.ts.WaitRecords(n+2, wait); err != nil {
			return fmt.Errorf("consumer %s: %w", m.name, err)
		}
	}
	return nil
}

// pullAll plays one pull of each queue m holds, in queue order (the consumption runs inline).
func (s *scenario) pullAll(m *member) {
	mqs, _ := m.c.Rebalance().ProcessQueues()
	for _, q := range mqs {
		if q.Topic == topicName {
			m.c.PullMessageService().DoPullQueue(q)
		}
	}
}

// waitCommitted waits until the broker holds the group's offsets want (queueId → offset) of
// TopicTest: UPDATE_CONSUMER_OFFSET is oneway.
func (s *scenario) waitCommitted(want map[int32]int64) error { return waitOffsets(s.Master(), want) }

// waitOffsets waits until broker b holds the group's TopicTest offsets want.
func waitOffsets(b *broker.BrokerController, want map[int32]int64) error {
	om := b.ConsumerOffsetManager()
	err := mqtest.WaitUntil(wait, func() bool {
		for q, v := range want {
			if int64(om.QueryOffset(group, topicName, q)) != v {
				return false
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("the offsets of %s on %s never reached %v", group, b.BrokerAddr(), want)
	}
	return nil
}

// ownersTable prints, per queue of TopicTest, the member holding it, the next offset it will
// pull, the offset in its memory and the one committed at the broker.
func (s *scenario) ownersTable(title string) {
	mqtest.Say(s.out, "%s:", title)
	t := mqtest.NewTable(s.out, "queue", "owner", "next pull offset", "offset in its memory", "committed at the broker")
	om := s.Master().ConsumerOffsetManager()
	owners := s.owners()
	for q := int32(0); q < queueNums; q++ {
		mq := primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: q}
		owner, next, mem := "-", "-", "-"
		for _, m := range owners[q] { // one, unless the exercises find otherwise
			owner = m.name
			next = pendingOffset(m, mq)
			mem = strconv.FormatInt(m.c.OffsetStore().ReadOffset(mq, consumer.ReadFromMemory), 10)
		}
		t.Row(q, owner, next, mem, om.QueryOffset(group, topicName, q))
	}
	t.Render()
}

// owners maps each queue of TopicTest to the running members that hold it (a ProcessQueue not
// dropped), in start order.
func (s *scenario) owners() map[int32][]*member {
	members := s.members.All()
	out := map[int32][]*member{}
	for _, m := range members {
		mqs, pqs := m.c.Rebalance().ProcessQueues()
		for i, q := range mqs {
			if q.Topic == topicName && !pqs[i].Dropped() {
				out[q.QueueID] = append(out[q.QueueID], m)
			}
		}
	}
	return out
}

// pendingOffset is the next offset of mq's pull request queued in m's pull loop ("-" if none).
func pendingOffset(m *member, mq primitive.MessageQueue) string {
	for _, r := range m.c.PullMessageService().PendingRequests() {
		if r.MessageQueue == mq {
			return strconv.FormatInt(r.NextOffset(), 10)
		}
	}
	return "-"
}

// ledgerTable prints who consumed each message, and how often.
func (s *scenario) ledgerTable() {
	mqtest.Say(s.out, "every message and who consumed it:")
	t := mqtest.NewTable(s.out, "message", "consumed by")
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; i <= s.sent; i++ {
		body := "message " + strconv.Itoa(i)
		t.Row(body, fmt.Sprint(s.consumed[body]))
	}
	t.Render()
}

func (s *scenario) shutdown() {
	s.stage.Gate.Close()
	members := s.members.All()
	for i := len(members) - 1; i >= 0; i-- {
		members[i].ts.Open()
		members[i].c.Shutdown()
	}
	s.Scene.Shutdown()
}
