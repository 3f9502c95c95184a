// Command tour is the closing tour of the annotated text: one message's whole life across all
// ten chapters, as one step trace in which every line names the chapter it belongs to.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server; broker-a, an ASYNC_MASTER with flushDiskType=SYNC_FLUSH, and its slave;
//     TopicTour and OrderTopic with 2 queues each; the slave connected to the master's HA
//     port (not traced: chapters 1 and 9 show it);
//  1. ch01: broker-a registers with the name server (registerBroker);
//  2. ch02, ch03: a producer sends "Hello tour": it asks the name server for the route
//     (getRouteInfoByTopic) and selects a queue round robin; broker-a appends the record to
//     the CommitLog (doAppend);
//  3. ch04: the put waits for the flush; one pass of GroupCommitService, played by hand as
//     chapter 4 does, flushes it and answers the send;
//  4. ch03: one pass of the reput service builds its ConsumeQueue unit and its index entries;
//  5. ch09: the master's HA connection sends the record to the slave, which appends it and
//     builds its own ConsumeQueue;
//  6. ch06: a push consumer's rebalance gives it the queues;
//  7. ch05: it pulls the message's queue, consumes the message and acknowledges its offset,
//     which the persist task sends to the broker;
//  8. ch07: an ordered variant: a message sent by SelectMessageQueueByHash, consumed by an
//     orderly consumer that locks its queue on the broker first;
//  9. ch08: a transactional variant: a half message, the local transaction's COMMIT, the
//     message copied to TopicTour and an op message recorded;
//  10. ch10: a lite pull consumer assigned the first message's queue polls both its messages.
//
// Every step line is logged by the code under mq/; this file drives the flow and keeps, of
// the steps, those of the tour's messages (steps about other topics are left out, and a few
// labels — the put's checks, the group commit's loop, heartbeats, route refreshes — are shown
// the first time only: onceLabels). The chapter in front of each line is the first chapter
// whose golden trace (chNN-*/testdata/*.golden) holds the line's label, read from those files
// at run time, so the tour and the chapters cannot drift apart. Nothing runs behind the
// scenario's back: the stores run with ManualServices on one clock, the clients with
// DisableScheduledTasks, and the scenario calls each loop body (RunOnce, DoReput, the HA
// passes, DoRebalance, DoPullQueue, RunPullTask) itself, so the output is the same every run:
// `go test ./tutorial/tour` compares it with the golden file.
//
// Files: main.go (the scenario), chapters.go (the chapter of each label, read from the
// chapters' golden files; the tour's slog handler and its filter).
//
// Run (inside the repository): go run ./tutorial/tour
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("tour", run) }

const (
	brokerName   = "broker-a"
	topicName    = "TopicTour"
	orderTopic   = "OrderTopic"
	queueNums    = 2
	pushGroup    = "tour_push_group"
	orderlyGroup = "tour_orderly_group"
	liteGroup    = "tour_lite_group"
	txGroup      = "tour_tx_producer_group"
	// orderID is the ordered variant's order: SelectMessageQueueByHash sends it to queue
	// |orderID| % queueNums.
	orderID = 1001
	// wait bounds every wait for another goroutine's step (wall clock).
	wait = 10 * time.Second
)

// epoch is where the stores' and the clients' clock starts.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// config is what a run may vary.
type config struct {
	// Dir receives the name server's and the brokers' files; "" makes a temp dir removed at the end.
	Dir string
	// Listen, when set, sees every message a consumer of the tour hands to its application:
	// who ("push", "orderly", "lite") and the message (exercises).
	Listen func(who string, m *primitive.MessageExt)
}

// inDir is the config whose files go to dir (the withDir of mqtest.Golden).
func inDir(dir string) config { return config{Dir: dir} }

// run plays the tour and writes its log to w.
func run(w io.Writer, cfg config) error {
	root, err := findRoot(".") // the chapters' golden files name each label's chapter
	if err != nil {
		return err
	}
	chapters, err := loadChapters(root)
	if err != nil {
		return err
	}
	return mqtest.Play(w, cfg.Dir, "tour", false, func(stage *mqtest.Stage) error {
		t, err := newTour(stage, chapters, cfg)
		if err != nil {
			return err
		}
		defer t.shutdown()
		for _, section := range []func() error{t.route, t.send, t.dispatch, t.replicate, t.rebalance, t.consume,
			t.orderly, t.transaction, t.litePull} {
			if err := section(); err != nil {
				return err
			}
		}
		return nil
	})
}

// tour is the scenario's state.
type tour struct {
	out     io.Writer
	cfg     config
	gate    *trace.Gate     // the tour's steps reach its printer while open
	rec     *trace.Recorder // every step, gate or no gate: to wait for other goroutines' steps
	logger  *slog.Logger
	clk     *clock.Manual
	cluster *embedded.Cluster
	client  *remoting.Client
	conn    *ha.HAConnection // the master's side of the slave's HA connection

	producer *producer.DefaultMQProducer
	push     *consumer.DefaultMQPushConsumer
	ordered  *consumer.DefaultMQPushConsumer
	tx       *producer.TransactionMQProducer
	lite     *consumer.DefaultLitePullConsumer

	mq      primitive.MessageQueue // the queue the first message went to
	flushed int                    // GroupCommitService#putRequest steps served so far

	mu sync.Mutex // one consumer's hand-over printed at a time
}

// newTour starts the cluster and the producer with the gate closed, and connects the slave.
func newTour(stage *mqtest.Stage, chapters chapterMap, cfg config) (*tour, error) {
	f := filter{
		topics: map[string]bool{topicName: true, orderTopic: true,
			"RMQ_SYS_TRANS_HALF_TOPIC": true, "RMQ_SYS_TRANS_OP_HALF_TOPIC": true},
		once: onceLabels,
	}
	gate := trace.NewGate(newTourHandler(stage.Out, chapters, f), false)
	rec := trace.NewRecorder()
	t := &tour{out: stage.Out, cfg: cfg, gate: gate, rec: rec, logger: slog.New(slog.NewMultiHandler(gate, rec)),
		clk: clock.NewManual(epoch), client: remoting.NewClient(remoting.ClientConfig{}, nil)}
	opts := func(int) store.Options { return store.Options{ManualServices: true, Clock: t.clk, Location: time.UTC} }
	var err error
	t.cluster, err = embedded.Start(embedded.Config{
		Dir: stage.Dir, Brokers: 1, Slaves: true, Logger: t.logger,
		StoreOptions: opts, SlaveStoreOptions: opts,
		Customize: func(_ int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			embedded.SmallFiles(sc)
			sc.FlushDiskType = store.SyncFlush
			bc.BrokerFastFailureEnable = false
			bc.NotifyConsumerIdsChangedEnable = false // the tour plays each rebalance
			bc.EndTransactionThreadPoolNums = 1
		},
		SlaveCustomize: func(_ int, bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			bc.NotifyConsumerIdsChangedEnable = false
		},
	})
	if err != nil {
		t.client.Shutdown()
		return nil, err
	}
	if err := t.setUp(); err != nil {
		t.shutdown()
		return nil, err
	}
	return t, nil
}

// setUp creates the topics (and the consumers' retry topics, which a first heartbeat would
// otherwise create on a goroutine of its own), connects the slave and starts the producer.
func (t *tour) setUp() (err error) {
	mqtest.Say(t.out, "== 0. a name server; %s (ASYNC_MASTER, SYNC_FLUSH) and its slave; %s and %s with %d queues (not traced) ==",
		brokerName, topicName, orderTopic, queueNums)
	if err := mqtest.CreateRoutedTopics(t.client, t.master().BrokerAddr(), t.cluster.NamesrvAddr(),
		mqtest.Topic{Name: topicName, Queues: queueNums}, mqtest.Topic{Name: orderTopic, Queues: queueNums},
		mqtest.Topic{Name: protocol.GetRetryTopic(pushGroup), Queues: 1},
		mqtest.Topic{Name: protocol.GetRetryTopic(orderlyGroup), Queues: 1},
		mqtest.Topic{Name: protocol.GetRetryTopic(liteGroup), Queues: 1}); err != nil {
		return err
	}
	// The slave copies the master's topics (SlaveSynchronize, by hand with ManualServices): a
	// consumer's heartbeat to it would otherwise create the retry topics there and register
	// the slave again on a goroutine of its own, at a time no run repeats.
	changed, err := t.slave().SlaveSynchronize().SyncAll()
	if err != nil {
		return err
	}
	if changed {
		t.slave().RegisterBrokerAll()
	}
	if t.conn, err = mqtest.ConnectSlave(t.master(), t.slave()); err != nil {
		return err
	}
	pc := mqtest.ProducerConfig("tour_producer_group", t.cluster.NamesrvAddr(), "tour-producer")
	pc.Options.Logger = t.logger
	pc.Options.Clock = t.clk
	pc.SendMsgTimeout = 30 * time.Second
	t.producer = producer.NewDefaultMQProducer(pc)
	return t.producer.Start()
}

func (t *tour) master() *broker.BrokerController  { return t.cluster.Brokers[0] }
func (t *tour) slave() *broker.BrokerController   { return t.cluster.Slaves[0] }
func (t *tour) store() *store.DefaultMessageStore { return t.master().MessageStore() }

// route is section 1: broker-a registers (one pass of its registration task).
func (t *tour) route() error {
	mqtest.Say(t.out, "== 1. ch01 路由注册 — broker-a registers with the name server (one pass of its registration task) ==")
	t.gate.Open()
	t.master().RegisterBrokerAll()
	return nil
}

// send is sections 2 and 3: the send, its route and queue, the append, the flush that answers it.
func (t *tour) send() error {
	mqtest.Say(t.out, "== 2. ch02 消息发送, ch03 消息存储 — the producer sends \"Hello tour\" (route, queue, send); broker-a appends it; the put waits for the flush ==")
	m := &primitive.Message{Topic: topicName, Body: []byte("Hello tour")}
	m.PutProperty(primitive.PropertyTags, "TagA")
	m.PutProperty(primitive.PropertyKeys, "TOUR-1")
	r, err := t.sendFlushed("== 3. ch04 同步刷盘 — one pass of GroupCommitService: the group's flush answers the put ==",
		func() (*producer.SendResult, error) { return t.producer.Send(context.Background(), m) })
	if err != nil {
		return err
	}
	t.mq = r.MessageQueue
	mqtest.Say(t.out, "the producer: %s on %s queue %d, queueOffset %d; flushedWhere=%d = the end of the log",
		r.SendStatus, t.mq.BrokerName, t.mq.QueueID, r.QueueOffset, t.store().FlushedWhere())
	return nil
}

// sendFlushed runs send on its own goroutine (a SYNC_FLUSH put waits for the flush the tour
// plays), flushes its put (flush, printing heading first) and returns what send returned.
func (t *tour) sendFlushed(heading string, send func() (*producer.SendResult, error)) (*producer.SendResult, error) {
	type outcome struct {
		r   *producer.SendResult
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		r, err := send()
		ch <- outcome{r, err}
	}()
	if err := t.flush(heading); err != nil {
		return nil, err
	}
	o := <-ch
	return o.r, o.err
}

// flush waits until the next put has queued its GroupCommitRequest (its putRequest step
// logged), prints heading (unless ""), then plays one pass of GroupCommitService, as chapter 4
// does.
func (t *tour) flush(heading string) error {
	t.flushed++
	if err := t.waitSteps("GroupCommitService#putRequest", t.flushed); err != nil {
		return err
	}
	if heading != "" {
		mqtest.Say(t.out, "%s", heading)
	}
	t.store().GroupCommitService().RunOnce()
	return nil
}

// dispatch is section 4: one pass of the master's reput service.
func (t *tour) dispatch() error {
	mqtest.Say(t.out, "== 4. ch03 实时更新ConsumeQueue与Index — one pass of the reput service ==")
	t.store().ReputMessageService().RunOnce()
	mqtest.Say(t.out, "ConsumeQueue %s-%d holds %d unit(s)", topicName, t.mq.QueueID, t.store().GetMaxOffsetInQueue(topicName, t.mq.QueueID))
	return nil
}

// replicate is section 5: the HA passes that copy the record to the slave.
func (t *tour) replicate() error {
	mqtest.Say(t.out, "== 5. ch09 主从同步 — the master's HA connection sends the record; the slave appends it ==")
	frames, err := mqtest.Replicate(t.conn, t.master(), t.slave())
	if err != nil {
		return err
	}
	mqtest.Say(t.out, "%d frame(s); master max offset %d, slave max offset %d; the slave's ConsumeQueue %s-%d holds %d unit(s)",
		frames, t.store().GetMaxPhyOffset(), t.slave().MessageStore().GetMaxPhyOffset(), topicName, t.mq.QueueID,
		t.slave().MessageStore().GetMaxOffsetInQueue(topicName, t.mq.QueueID))
	return nil
}

// rebalance is section 6: a push consumer starts (not traced) and its rebalance runs.
func (t *tour) rebalance() (err error) {
	mqtest.Say(t.out, "== 6. ch06 负载均衡 — a push consumer starts (not traced); its rebalance gives it the queues (steps chapter 5 traces first) ==")
	t.push, err = t.startPush(pushGroup, "push", topicName, func(c *consumer.DefaultMQPushConsumer) {
		c.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
			t.handOver("push", msgs)
			return consumer.ConsumeSuccess
		})
	})
	if err != nil {
		return err
	}
	t.push.Instance().DoRebalance()
	return nil
}

// consume is section 7: the pull of the message's queue, its consumption and the offset.
func (t *tour) consume() error {
	mqtest.Say(t.out, "== 7. ch05 消息拉取与消费 — the consumer pulls queue %d, consumes the message, acknowledges its offset ==", t.mq.QueueID)
	t.push.PullMessageService().DoPullQueue(t.mq)
	mqtest.Say(t.out, "-- the persist task sends the offset to the broker --")
	t.push.Instance().RunPersistConsumerOffsetTask()
	if err := mqtest.WaitCommitted(t.master(), pushGroup, topicName, map[int32]int64{t.mq.QueueID: 1}); err != nil {
		return err
	}
	mqtest.Say(t.out, "broker-a's consumerOffset: %s@%s queue %d -> %d", topicName, pushGroup, t.mq.QueueID,
		t.master().ConsumerOffsetManager().QueryOffset(pushGroup, topicName, t.mq.QueueID))
	return nil
}

// orderly is section 8: the ordered variant.
func (t *tour) orderly() (err error) {
	mqtest.Say(t.out, "== 8. ch07 顺序消息 — order %d is sent by SelectMessageQueueByHash; an orderly consumer locks the queue and consumes it ==", orderID)
	m := &primitive.Message{Topic: orderTopic, Body: []byte(fmt.Sprintf("%d/create", orderID))}
	r, err := t.sendFlushed("", func() (*producer.SendResult, error) {
		return t.producer.SendWithSelector(context.Background(), m, producer.SelectMessageQueueByHash{}, orderID)
	})
	if err != nil {
		return err
	}
	t.store().DoReput()
	mqtest.Say(t.out, "the producer: %s on queue %d, queueOffset %d (stored, flushed and dispatched as above)", r.SendStatus, r.MessageQueue.QueueID, r.QueueOffset)
	t.ordered, err = t.startPush(orderlyGroup, "orderly", orderTopic, func(c *consumer.DefaultMQPushConsumer) {
		c.RegisterMessageListenerOrderly(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeOrderlyContext) consumer.ConsumeOrderlyStatus {
			t.handOver("orderly", msgs)
			return consumer.ConsumeOrderlySuccess
		})
	})
	if err != nil {
		return err
	}
	t.ordered.Instance().DoRebalance()
	t.ordered.PullMessageService().DoPullQueue(r.MessageQueue)
	return nil
}

// transaction is section 9: the transactional variant.
func (t *tour) transaction() (err error) {
	mqtest.Say(t.out, "== 9. ch08 事务消息 — a half message; the local transaction commits; END_TRANSACTION copies it and records an op message ==")
	t.untraced(func() {
		pc := mqtest.ProducerConfig(txGroup, t.cluster.NamesrvAddr(), "tour-tx")
		pc.Options.Logger = t.logger
		pc.Options.Clock = t.clk
		pc.SendMsgTimeout = 30 * time.Second
		t.tx = producer.NewTransactionMQProducer(pc, commitAll{})
		if err = t.tx.Start(); err != nil {
			return
		}
		// the route and the heartbeat first, so the send is the transaction's only traffic
		inst := t.tx.MQClientInstance()
		inst.UpdateTopicRouteInfoFromNameServer(topicName)
		inst.SendHeartbeatToAllBrokerWithLock()
		err = mqtest.WaitUntil(wait, func() bool { return t.master().ProducerManager().GetAvailableChannel(txGroup) != nil })
	})
	if err != nil {
		return err
	}
	m := &primitive.Message{Topic: topicName, Body: []byte("order paid")}
	m.PutProperty(primitive.PropertyTags, "TagA")
	type txOutcome struct {
		r   *producer.TransactionSendResult
		err error
	}
	ch := make(chan txOutcome, 1)
	go func() {
		r, err := t.tx.SendMessageInTransaction(context.Background(), m, nil)
		ch <- txOutcome{r, err}
	}()
	if err := t.flush(""); err != nil { // the half message
		return err
	}
	o := <-ch
	if o.err != nil {
		return o.err
	}
	if err := t.waitOpMessage(); err != nil {
		return err
	}
	t.store().DoReput()
	mqtest.Say(t.out, "the producer: %s, %s; ConsumeQueue %s-%d now holds %d unit(s)", o.r.SendStatus, o.r.LocalTransactionState,
		topicName, o.r.MessageQueue.QueueID, t.store().GetMaxOffsetInQueue(topicName, o.r.MessageQueue.QueueID))
	return nil
}

// litePull is section 10: a lite pull consumer assigned the first message's queue polls it.
func (t *tour) litePull() (err error) {
	mqtest.Say(t.out, "== 10. ch10 消息拉模式 — a lite pull consumer assigned queue %d (started, not traced) runs its pull task and polls ==", t.mq.QueueID)
	t.untraced(func() {
		cfg := consumer.DefaultLitePullConfig(liteGroup)
		mqtest.ClientSetup{NamesrvAddr: t.cluster.NamesrvAddr(), Instance: "tour-lite", TraceName: "lite",
			Logger: t.logger, Clock: t.clk}.Apply(&cfg.ClientConfig, &cfg.Options)
		cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
		cfg.AutoCommit = false
		t.lite = consumer.NewDefaultLitePullConsumer(cfg)
		if err = t.lite.Assign([]primitive.MessageQueue{t.mq}); err != nil {
			return
		}
		err = t.lite.Start()
	})
	if err != nil {
		return err
	}
	t.lite.RunPullTask(t.mq)
	msgs, err := t.lite.Poll(0)
	if err != nil {
		return err
	}
	t.handOver("lite", msgs)
	return nil
}

// commitAll is the transactional producer's listener: every local transaction commits.
type commitAll struct{}

func (commitAll) ExecuteLocalTransaction(*primitive.Message, any) producer.LocalTransactionState {
	return producer.CommitMessage
}

func (commitAll) CheckLocalTransaction(*primitive.MessageExt) producer.LocalTransactionState {
	return producer.CommitMessage
}

// waitOpMessage waits until the broker has appended the op message of the transaction's
// END_TRANSACTION (one way: no answer to wait for), flushing each put on the way that waits for
// the flush.
func (t *tour) waitOpMessage() error {
	err := mqtest.WaitUntil(wait, func() bool {
		if t.count("GroupCommitService#putRequest") > t.flushed {
			t.flushed++
			t.store().GroupCommitService().RunOnce()
		}
		op := false
		for _, st := range t.rec.Steps() {
			if st.Label == "TransactionalMessageBridge#putOpMessage" {
				op = true
			} else if op && st.Label == "DefaultAppendMessageCallback#doAppend" {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("the broker never appended the op message: %w", err)
	}
	return nil
}

// waitSteps waits until n steps labelled label have been logged.
func (t *tour) waitSteps(label string, n int) error {
	if err := mqtest.WaitUntil(wait, func() bool { return t.count(label) >= n }); err != nil {
		return fmt.Errorf("no %d %s steps: %w", n, label, err)
	}
	return nil
}

// count is the number of steps labelled label logged so far.
func (t *tour) count(label string) int {
	n := 0
	for _, l := range t.rec.Labels() {
		if l == label {
			n++
		}
	}
	return n
}

// startPush starts, untraced, a push consumer of group subscribed to all of topic, its steps
// traced as client-<name> and consumer-<name>, that runs no goroutine of its own; listen
// registers its listener.
func (t *tour) startPush(group, name, topic string, listen func(*consumer.DefaultMQPushConsumer)) (c *consumer.DefaultMQPushConsumer, err error) {
	t.untraced(func() {
		cfg := t.consumerConfig(group, "tour-"+name)
		cfg.Options.TraceName = name
		c = consumer.NewDefaultMQPushConsumer(cfg)
		if err = c.Subscribe(topic, "*"); err != nil {
			return
		}
		listen(c)
		err = c.Start()
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// consumerConfig is a push consumer of group that runs no goroutine of its own.
func (t *tour) consumerConfig(group, instance string) consumer.Config {
	cfg := consumer.DefaultConfig(group)
	mqtest.ClientSetup{NamesrvAddr: t.cluster.NamesrvAddr(), Instance: instance, Logger: t.logger, Clock: t.clk}.Apply(&cfg.ClientConfig, &cfg.Options)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.Options.IndexSeed = func() int32 { return -1 }
	return cfg
}

// handOver prints what a consumer handed to the application and tells cfg.Listen.
func (t *tour) handOver(who string, msgs []*primitive.MessageExt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range msgs {
		mqtest.Say(t.out, "%s consumer's application: topic=%s queueId=%d queueOffset=%d commitLogOffset=%d body=%q",
			who, m.Topic, m.QueueID, m.QueueOffset, m.CommitLogOffset, m.Body)
		if t.cfg.Listen != nil {
			t.cfg.Listen(who, m)
		}
	}
}

// untraced runs f with the gate closed.
func (t *tour) untraced(f func()) {
	t.gate.Close()
	defer t.gate.Open()
	f()
}

// shutdown stops the clients, then the cluster, with the gate closed.
func (t *tour) shutdown() {
	t.gate.Close()
	if t.lite != nil {
		t.lite.Shutdown()
	}
	if t.tx != nil {
		t.tx.Shutdown()
	}
	for _, c := range []*consumer.DefaultMQPushConsumer{t.ordered, t.push} {
		if c != nil {
			c.Shutdown()
		}
	}
	if t.producer != nil {
		t.producer.Shutdown()
	}
	t.client.Shutdown()
	t.cluster.Shutdown()
}

// onceLabels are printed the first time only: the put's checks and encoding, the client's
// heartbeats and route refreshes, steps the variants repeat as the first message showed them.
var onceLabels = labelSet(
	// the put's checks and encoding
	"SendMessageProcessor#asyncSendMessage", "DefaultMessageStore#checkStoreStatus", "DefaultMessageStore#checkMessage",
	"DefaultMessageStore#checkLmqMessage", "CommitLog#asyncPutMessage", "MessageExtEncoder#encode",
	"MappedFile#appendMessagesInner",
	// a group commit's loop and flush
	"GroupCommitService#run", "GroupCommitService#waitForRunning", "GroupCommitService#onWaitEnd",
	"GroupCommitService#swapRequests", "MappedFileQueue#flush", "MappedFile#isAbleToFlush", "MappedFile#flush",
	// the index
	"CommitLogDispatcherBuildIndex#dispatch", "IndexService#buildIndex",
	// route refreshes
	"MQClientInstance#updateTopicRouteInfoFromNameServer", "DefaultRequestProcessor#processRequest",
	"DefaultRequestProcessor#getRouteInfoByTopic", "RouteInfoManager#pickupTopicRouteData",
	"MQClientAPIImpl#getTopicRouteInfoFromNameServer",
	// a rebalance's frame and the heartbeats
	"MQClientInstance#doRebalance", "RebalanceImpl#doRebalance", "MQClientInstance#rebalanceImmediately",
	"MQClientInstance#sendHeartbeatToAllBrokerWithLock", "ClientManageProcessor#heartBeat",
	"ConsumerManager#registerConsumer",
	// a pull's request
	"MQClientAPIImpl#pullMessageAsync",
)

// labelSet is a set of labels.
func labelSet(labels ...string) map[string]bool {
	m := make(map[string]bool, len(labels))
	for _, l := range labels {
		m[l] = true
	}
	return m
}
