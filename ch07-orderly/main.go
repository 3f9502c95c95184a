// Command ch07-orderly is chapter 7 of the annotated text: ordered messages (顺序消息实现原理)
// — partition order kept by a producer that sends all steps of one order to one queue, and by
// a consumer that consumes each queue one batch at a time, in offset order, under three locks:
// the broker's queue lock (RebalanceLockManager), the client's per-queue lock
// (MessageQueueLock) and the ProcessQueue's consume lock.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server and broker-a; OrderTopic with 4 queues; 6 orders (ids 1001..1006), each
//     with the steps create, pay, ship, finish; SelectMessageQueueByHash sends every step of an
//     order to queue |id| % 4 (the first send is traced, the rest not);
//  1. orderly consumers A and B start; each rebalance locks the queues it is given on the
//     broker before it pulls them: A holds 0 and 1, B 2 and 3; A's 20 s renewal (lockAll) runs
//     once between the two rebalances;
//  2. create and pay of every order are consumed; A's pull of queue 0 is traced: one
//     ConsumeRequest takes the queue's messages one batch at a time under the MessageQueueLock
//     and the consume lock; order 1004's pay fails once (SUSPEND_CURRENT_QUEUE_A_MOMENT) and
//     comes first again;
//  3. consumer C joins mid-way: its rebalance is given queue 3, but B still holds the lock, so
//     C does not take it; B's rebalance drops queue 3, persists its offset and unlocks it once no
//     batch holds the consume lock; C's next rebalance locks it and starts at B's offset;
//  4. ship and finish of every order are sent and consumed by the queues' owners now; the
//     ledger shows every order's steps in order, whoever consumed them.
//
// Nothing runs behind the scenario's back: the store runs with ManualServices, the consumers'
// instances with DisableScheduledTasks (each batch runs on the pull's callback), the broker
// does not notify the group of changes (the chapter plays each member's rebalance), and offsets
// a member persists one way are waited for. So the output is the same every run:
// `go test ./ch07-orderly` compares it with the golden file.
//
// Run: go run ./ch07-orderly
package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

func main() { mqtest.Main("ch07-orderly", run) }

const (
	topicName  = "OrderTopic"
	queueNums  = 4
	group      = "ch07_orderly_group"
	brokerName = "broker-a"
	// wait bounds every wait for a oneway request to land (wall clock).
	wait = 10 * time.Second
)

// orders are the order ids; steps are each order's steps, in the order they must be consumed.
var (
	orders = []int{1001, 1002, 1003, 1004, 1005, 1006}
	steps  = []string{"create", "pay", "ship", "finish"}
)

// epoch is where the store's and the consumers' clocks start.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch07-orderly", false, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) error {
	sc, err := newScenario(stage, nil)
	if err != nil {
		return err
	}
	defer sc.shutdown()
	for _, section := range []func() error{sc.produceFirstHalf, sc.startAB, sc.consumeFirstHalf, sc.joinC, sc.secondHalf} {
		if err := section(); err != nil {
			return err
		}
	}
	return nil
}

// produceFirstHalf is section 0: create and pay of every order, by hash of the order id.
func (s *scenario) produceFirstHalf() error {
	mqtest.Say(s.out, "== 0. a name server and %s; %s with %d queues; create and pay of orders %v, sent by SelectMessageQueueByHash ==",
		brokerName, topicName, queueNums, orders)
	mqtest.Say(s.out, "the first send, traced: the selector picks queue |1001| %% 4 = 1, and the send is not retried elsewhere:")
	if err := s.produce(steps[:2], true); err != nil {
		return err
	}
	s.queuesTable()
	return nil
}

// startAB is section 1: A and B start; each rebalance locks its queues; lockAll renews them.
func (s *scenario) startAB() error {
	mqtest.Say(s.out, "== 1. orderly consumers A and B start; each locks the queues its rebalance gives it before pulling them ==")
	a, err := s.startMember("A")
	if err != nil {
		return err
	}
	b, err := s.startMember("B")
	if err != nil {
		return err
	}
	mqtest.Say(s.out, "A's rebalance: queues 0 and 1 (and the retry queue), each locked on the broker before its ProcessQueue is made:")
	a.c.Instance().DoRebalance()
	mqtest.Say(s.out, "A's lock renewal (ConsumeMessageOrderlyService's task, every 20 s) renews all its queues in one request:")
	a.orderly().LockMQPeriodically()
	mqtest.Say(s.out, "B's rebalance: queues 2 and 3, locked the same way:")
	b.c.Instance().DoRebalance()
	s.locksTable("the broker's queue locks")
	return nil
}

// consumeFirstHalf is section 2: A's pull of queue 0 traced (with one SUSPEND), the rest not.
func (s *scenario) consumeFirstHalf() error {
	mqtest.Say(s.out, "== 2. create and pay are consumed; A's pull of queue 0 (order 1004) is traced; its pay fails once ==")
	a := s.members.Get("A")
	s.failOnce = "1004/pay"
	a.c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: 0})
	mqtest.Say(s.out, "the suspended batch waits SuspendCurrentQueueTime (1 s); the chapter runs it now: the same message comes first again")
	a.orderly().RunDelayedConsumeRequests()
	s.stage.Untraced(func() { s.pullAllMembers() })
	return nil
}

// joinC is section 3: C joins; queue 3 moves from B to C only after B released its lock.
func (s *scenario) joinC() error {
	mqtest.Say(s.out, "== 3. consumer C joins mid-way: queue 3 moves from B to C, but only once B released the broker's lock ==")
	c, err := s.startMember("C")
	if err != nil {
		return err
	}
	mqtest.Say(s.out, "C's rebalance comes first: it is given queue 3, but B still holds the lock, so C does not take it:")
	c.c.Instance().DoRebalance()
	mqtest.Say(s.out, "B's rebalance: it drops queue 3, persists its offset, and unlocks it once no batch holds the consume lock:")
	s.members.Get("B").c.Instance().DoRebalance()
	if err := s.waitCommitted(3, s.consumedCount(3)); err != nil {
		return err
	}
	mqtest.Say(s.out, "C's next rebalance: the lock is free; C takes queue 3 at the offset B committed:")
	c.c.Instance().DoRebalance()
	s.stage.Untraced(func() { s.members.Get("A").c.Instance().DoRebalance() })
	s.locksTable("the broker's queue locks after C joined")
	return nil
}

// secondHalf is section 4: ship and finish, consumed by the owners now; the ledger.
func (s *scenario) secondHalf() error {
	mqtest.Say(s.out, "== 4. ship and finish of every order (not traced), consumed by the queues' owners now ==")
	if err := s.produce(steps[2:], false); err != nil {
		return err
	}
	s.stage.Untraced(func() { s.pullAllMembers() })
	s.ledgerTable()
	return nil
}

// scenario holds the cluster, the consumers and what the sections share.
type scenario struct {
	*mqtest.Scene
	stage *mqtest.Stage
	out   io.Writer
	clk   *clock.Manual
	// listen, if set, is called first for every batch a member's listener gets (exercises).
	listen func(member string, msgs []*primitive.MessageExt)

	members mqtest.Roster[*member] // safe for concurrent use

	mu sync.Mutex // guards what follows
	// failOnce is "order/step" of a message whose first delivery the listener suspends.
	failOnce string
	// ledger lists, per order, its steps as consumed: "pay by A".
	ledger   map[int][]string
	consumed map[int32]int64 // messages consumed for good per queue
}

// member is one consumer of the group: its name ("A") and the consumer.
type member struct {
	name string
	c    *consumer.DefaultMQPushConsumer
}

func (m *member) orderly() *consumer.ConsumeMessageOrderlyService {
	return m.c.ConsumeService().(*consumer.ConsumeMessageOrderlyService)
}

// newScenario starts the cluster and the producer; listen may be nil.
func newScenario(stage *mqtest.Stage, listen func(string, []*primitive.MessageExt)) (*scenario, error) {
	clk := clock.NewManual(epoch)
	pc := mqtest.ProducerConfig("ch07_producer_group", "", "ch07-producer")
	pc.Options.Logger = stage.Logger
	scene, err := mqtest.StartScene(mqtest.SceneConfig{
		Cluster: mqtest.OneBroker(stage.Dir, stage.Logger, clk, func(bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			bc.NotifyConsumerIdsChangedEnable = false // the chapter plays each member's rebalance
		}),
		Topics:   []mqtest.Topic{{Name: topicName, Queues: queueNums}, {Name: protocol.GetRetryTopic(group), Queues: 1}},
		Producer: pc,
	})
	if err != nil {
		return nil, err
	}
	return &scenario{Scene: scene, stage: stage, out: stage.Out, clk: clk, listen: listen,
		ledger: map[int][]string{}, consumed: map[int32]int64{}}, nil
}

// produce sends the given steps of every order, step by step, each to the queue the hash of
// its order id selects (the very first send traced when traceFirst), and builds the
// ConsumeQueues.
func (s *scenario) produce(stepNames []string, traceFirst bool) error {
	s.stage.Gate.Close()
	defer s.stage.Gate.Open()
	for i, step := range stepNames {
		for j, id := range orders {
			if traceFirst && i == 0 && j == 0 {
				s.stage.Gate.Open()
			}
			m := &primitive.Message{Topic: topicName, Body: []byte(strconv.Itoa(id) + "/" + step)}
			_, err := s.Producer.SendWithSelector(context.Background(), m, producer.SelectMessageQueueByHash{}, id)
			s.stage.Gate.Close()
			if err != nil {
				return err
			}
		}
	}
	s.Master().MessageStore().DoReput()
	return nil
}

// startMember starts orderly consumer name of the group on OrderTopic, from the first offset,
// with no goroutine of its own, its steps traced as client-<name> and consumer-<name>.
func (s *scenario) startMember(name string) (*member, error) {
	cfg := consumer.DefaultConfig(group)
	mqtest.ClientSetup{NamesrvAddr: s.Cluster.NamesrvAddr(), Instance: "consumer" + name, TraceName: name,
		Logger: s.stage.Logger, Clock: s.clk}.Apply(&cfg.ClientConfig, &cfg.Options)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	c := consumer.NewDefaultMQPushConsumer(cfg)
	if err := c.Subscribe(topicName, "*"); err != nil {
		return nil, err
	}
	c.RegisterMessageListenerOrderly(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeOrderlyContext) consumer.ConsumeOrderlyStatus {
		return s.consume(name, msgs)
	})
	m := &member{name: name, c: c}
	if err := c.Start(); err != nil {
		return nil, err
	}
	s.members.Add(name, m)
	return m, nil
}

// consume is every member's listener: it suspends failOnce's first delivery, and otherwise
// notes each message in the ledger and prints it.
func (s *scenario) consume(name string, msgs []*primitive.MessageExt) consumer.ConsumeOrderlyStatus {
	if s.listen != nil {
		s.listen(name, msgs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, msg := range msgs {
		if string(msg.Body) == s.failOnce && msg.ReconsumeTimes == 0 {
			mqtest.Say(s.out, "%s failed: queueId=%d queueOffset=%d body=%q -> SUSPEND_CURRENT_QUEUE_A_MOMENT", name, msg.QueueID, msg.QueueOffset, msg.Body)
			return consumer.SuspendCurrentQueueAMoment
		}
	}
	for _, msg := range msgs {
		id, step, _ := strings.Cut(string(msg.Body), "/")
		n, _ := strconv.Atoi(id)
		s.ledger[n] = append(s.ledger[n], step+" by "+name)
		s.consumed[msg.QueueID]++
		mqtest.Say(s.out, "%s consumed: queueId=%d queueOffset=%d body=%q reconsumeTimes=%d", name, msg.QueueID, msg.QueueOffset, msg.Body, msg.ReconsumeTimes)
	}
	return consumer.ConsumeOrderlySuccess
}

func (s *scenario) consumedCount(q int32) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.consumed[q]
}

// pullAllMembers plays one pull of each OrderTopic queue every member holds that has messages
// beyond its pending pull's offset (a pull with nothing new would be held by the broker),
// member by member in start order, queue by queue; each batch is consumed on the callback.
func (s *scenario) pullAllMembers() {
	members := s.members.All()
	ms := s.Master().MessageStore()
	for _, m := range members {
		for _, r := range m.c.PullMessageService().PendingRequests() {
			q := r.MessageQueue
			if q.Topic == topicName && r.NextOffset() < int64(ms.GetMaxOffsetInQueue(topicName, q.QueueID)) {
				m.c.PullMessageService().DoPullQueue(q)
			}
		}
	}
}

// waitCommitted waits until the broker holds offset want for queue q: the offset of a queue
// given up is persisted one way.
func (s *scenario) waitCommitted(q int32, want int64) error {
	om := s.Master().ConsumerOffsetManager()
	err := mqtest.WaitUntil(wait, func() bool { return int64(om.QueryOffset(group, topicName, q)) == want })
	if err != nil {
		return fmt.Errorf("the offset of queue %d never reached %d", q, want)
	}
	return nil
}

// queuesTable prints, per queue, the orders the selector sent to it.
func (s *scenario) queuesTable() {
	mqtest.Say(s.out, "which queue each order went to (SelectMessageQueueByHash: |orderId| %% %d):", queueNums)
	t := mqtest.NewTable(s.out, "queue", "orders", "messages")
	for q := int32(0); q < queueNums; q++ {
		var ids []string
		for _, id := range orders {
			if int32(id%queueNums) == q {
				ids = append(ids, strconv.Itoa(id))
			}
		}
		t.Row(q, strings.Join(ids, ", "), s.Master().MessageStore().GetMaxOffsetInQueue(topicName, q))
	}
	t.Render()
}

// locksTable prints, per queue, the client the broker's RebalanceLockManager gives it to.
func (s *scenario) locksTable(title string) {
	mqtest.Say(s.out, "%s:", title)
	t := mqtest.NewTable(s.out, "queue", "lock owner on the broker", "locked flag in client")
	lm := s.Master().RebalanceLockManager()
	for q := int32(0); q < queueNums; q++ {
		mq := primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: q}
		var at []string
		for _, m := range s.members.All() {
			mqs, pqs := m.c.Rebalance().ProcessQueues()
			for i, x := range mqs {
				if x == mq && pqs[i].Locked() && !pqs[i].Dropped() {
					at = append(at, m.name)
				}
			}
		}
		t.Row(q, lm.Owner(group, mq), strings.Join(at, ", "))
	}
	t.Render()
}

// ledgerTable prints every order's steps as consumed, and whether they came in order.
func (s *scenario) ledgerTable() {
	mqtest.Say(s.out, "every order's steps, in the order they were consumed, and by whom:")
	t := mqtest.NewTable(s.out, "order", "queue", "steps consumed", "in order")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range orders {
		got := s.ledger[id]
		t.Row(id, id%queueNums, strings.Join(got, ", "), inOrder(got))
	}
	t.Render()
}

// inOrder reports whether consumed ("create by A", ...) are exactly steps, in order.
func inOrder(consumed []string) bool {
	if len(consumed) != len(steps) {
		return false
	}
	for i, c := range consumed {
		if step, _, _ := strings.Cut(c, " "); step != steps[i] {
			return false
		}
	}
	return true
}

func (s *scenario) shutdown() {
	s.stage.Gate.Close()
	members := s.members.All()
	for i := len(members) - 1; i >= 0; i-- {
		members[i].c.Shutdown()
	}
	s.Scene.Shutdown()
}
