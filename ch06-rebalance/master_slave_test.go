package main

// Exercises of chapter 6's master/slave part (主从模式下的消费进度管理/同步): where a consumer
// pulls from when its master is slow or down, where its progress goes, and how the slave's copy
// of that progress follows the master's. Each runs a real master, its slave and our push
// consumer (mq/client/consumer) on loopback.

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// msCluster is a name server, broker-a (ASYNC_MASTER) and its slave, both with slaveReadEnable,
// a topic of one queue on them, and a recorder of every component's steps.
type msCluster struct {
	*embedded.Cluster
	rec   *trace.Recorder
	topic string
	group string
	sent  int // messages sent to the topic so far
}

// startMasterSlave starts the pair; memory, if not 0, is both stores' physical memory in bytes
// (store.Options.TotalPhysicalMemory): the in-memory window of a read is 40 % of it.
func startMasterSlave(t *testing.T, memory int64) *msCluster {
	t.Helper()
	rec := trace.NewRecorder()
	customize := func(_ int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		embedded.SmallFiles(sc)
		bc.SlaveReadEnable = true
		bc.WaitTimeMillsInSendQueue = 10 * time.Second
	}
	opts := func(int) store.Options { return store.Options{TotalPhysicalMemory: memory} }
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Slaves: true, Logger: slog.New(rec),
		Customize: customize, SlaveCustomize: customize, StoreOptions: opts, SlaveStoreOptions: opts})
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	m := &msCluster{Cluster: c, rec: rec, topic: "T_" + clienttest.Name(t), group: "cg_" + clienttest.Name(t)}
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	require.NoError(t, mqtest.CreateTopic(cl, c.Brokers[0].BrokerAddr(), m.topic, 1, protocol.PermRead|protocol.PermWrite))
	c.Brokers[0].RegisterBrokerAll()
	m.syncSlave(t) // the slave serves the topic from now on
	require.NoError(t, mqtest.WaitRouted(cl, c.NamesrvAddr(), m.topic, 1))
	return m
}

func (m *msCluster) master() *broker.BrokerController { return m.Brokers[0] }
func (m *msCluster) slave() *broker.BrokerController  { return m.Slaves[0] }

// syncSlave runs one SlaveSynchronize#syncAll pass on the slave, as its 10 s timer does.
func (m *msCluster) syncSlave(t *testing.T) {
	t.Helper()
	_, err := m.slave().SlaveSynchronize().SyncAll()
	require.NoError(t, err)
}

// send sends n messages of 100 bytes and waits until the master and the slave hold them all in
// their ConsumeQueue (HA copied them, each reput indexed them). The master must be up.
func (m *msCluster) send(t *testing.T, n int) {
	t.Helper()
	cfg := producer.DefaultConfig("pg_" + clienttest.Name(t))
	cfg.NamesrvAddr = m.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "p")
	p := producer.NewDefaultMQProducer(cfg)
	require.NoError(t, p.Start())
	defer p.Shutdown()
	body := strings.Repeat("x", 100)
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := p.Send(ctx, &primitive.Message{Topic: m.topic, Body: []byte(body)})
		cancel()
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, r.SendStatus)
	}
	m.sent += n
	want := store.QueueOffset(m.sent)
	require.Eventually(t, func() bool {
		return m.master().MessageStore().GetMaxOffsetInQueue(m.topic, 0) == want &&
			m.slave().MessageStore().GetMaxOffsetInQueue(m.topic, 0) == want
	}, 20*time.Second, 5*time.Millisecond, "the slave never held all %d messages", want)
}

// msReceived counts the queue offsets a consumer got.
type msReceived struct {
	mu   sync.Mutex
	seen map[int64]int
}

func (r *msReceived) listener(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[int64]int{}
	}
	for _, msg := range msgs {
		r.seen[msg.QueueOffset]++
	}
	return consumer.ConsumeSuccess
}

// offsets returns the queue offsets received, in order, each once; dups the extra deliveries.
func (r *msReceived) offsets() (offsets []int64, dups int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for o, n := range r.seen {
		offsets = append(offsets, o)
		dups += n - 1
	}
	slices.Sort(offsets)
	return offsets, dups
}

func (r *msReceived) count() int { o, _ := r.offsets(); return len(o) }

// startConsumer starts a clustering push consumer of the group from the first offset. Its
// route refresh runs every 30 s and its offset persistence first after 10 s (the defaults):
// the tests refresh and persist by hand, so nothing moves an offset behind their back.
func (m *msCluster) startConsumer(t *testing.T, r *msReceived) *consumer.DefaultMQPushConsumer {
	t.Helper()
	cfg := consumer.DefaultConfig(m.group)
	cfg.NamesrvAddr = m.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "c")
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.Options.Logger = slog.New(m.rec)
	c := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, c.Subscribe(m.topic, "*"))
	c.RegisterMessageListener(r.listener)
	require.NoError(t, c.Start())
	t.Cleanup(c.Shutdown)
	return c
}

// consume starts a consumer (startConsumer) and waits until it got n messages.
func (m *msCluster) consume(t *testing.T, r *msReceived, n int) *consumer.DefaultMQPushConsumer {
	t.Helper()
	c := m.startConsumer(t, r)
	require.Eventually(t, func() bool { return r.count() == n }, 30*time.Second, 10*time.Millisecond,
		"the consumer never got %d messages", n)
	return c
}

// steps returns the recorded steps of label logged by component ("" = any).
func (m *msCluster) steps(component, label string) []trace.Recorded {
	var out []trace.Recorded
	for _, s := range m.rec.Steps() {
		if s.Label == label && (component == "" || s.Component == component) {
			out = append(out, s)
		}
	}
	return out
}

// foundPulls counts the FOUND pulls component answered for the topic.
func (m *msCluster) foundPulls(component string) int {
	n := 0
	for _, s := range m.steps(component, "PullMessageProcessor#processRequest") {
		if s.Attrs["topic"] == m.topic && s.Attrs["status"] == "FOUND" {
			n++
		}
	}
	return n
}

// queueOffset is what broker b holds as the group's committed offset of queue 0 (-1: none).
func (m *msCluster) queueOffset(b *broker.BrokerController) store.QueueOffset {
	return b.ConsumerOffsetManager().QueryOffset(m.group, m.topic, 0)
}

// quiet waits a few seconds and fails if r msReceived anything more than want.
func msQuiet(t *testing.T, r *msReceived, want int) {
	t.Helper()
	time.Sleep(2 * time.Second)
	offsets, dups := r.offsets()
	require.Len(t, offsets, want)
	require.Zero(t, dups)
}

// TestExercise6_SlowConsumerPullsFromTheSlaveAndBack answers: when does a consumer pull from
// the slave, and when does it come back? With slaveReadEnable, a pull whose data lies further
// behind the master's CommitLog end than accessMessageInMemoryMaxRatio (40 %) of the master's
// memory — no longer in the page cache, a disk read — is answered with
// suggestWhichBrokerId=whichBrokerWhenConsumeSlowly (1); the client remembers it for the queue
// (PullAPIWrapper#recalculatePullFromWhichNode) and its next pulls go to the slave, whose own
// answers send it back to the master (the group's brokerId, 0) once it is within the window.
// The stores have 10 000 bytes of "memory" here (a 4 000-byte window) and the consumer starts
// 200 messages (~35 KB) behind. The assertions prove the slave served messages, the client
// moved 0→1 and later 1→0, every message came exactly once, and new messages after that come
// from the master.
func TestExercise6_SlowConsumerPullsFromTheSlaveAndBack(t *testing.T) {
	m := startMasterSlave(t, 10_000)
	m.send(t, 200)
	var r msReceived
	m.consume(t, &r, 200)

	require.Positive(t, m.foundPulls("broker-a-slave"), "the slave served pulls")
	var first trace.Recorded
	for _, s := range m.steps("broker-a", "PullMessageProcessor#processRequest") {
		if s.Attrs["topic"] == m.topic {
			first = s
			break
		}
	}
	require.Equal(t, "1", first.Attrs["suggestWhichBrokerId"], "the first pull, far behind: %v", first.Attrs)
	require.Equal(t, "4000", first.Attrs["inMemoryBytes"])
	var moves []string
	require.Eventually(t, func() bool {
		moves = moves[:0]
		for _, s := range m.steps("client", "PullAPIWrapper#recalculatePullFromWhichNode") {
			if s.Attrs["topic"] == m.topic {
				moves = append(moves, s.Attrs["previousBrokerId"]+"->"+s.Attrs["brokerId"])
			}
		}
		return len(moves) >= 2
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"0->1", "1->0"}, moves, "to the slave while behind, back when caught up")

	// Back on the master: a pull held on the slave may still answer the next messages, but
	// the pull after it goes to the master, which answers the ones after.
	m.send(t, 3)
	require.Eventually(t, func() bool { return r.count() == 203 }, 20*time.Second, 10*time.Millisecond)
	before := m.foundPulls("broker-a")
	m.send(t, 3)
	require.Eventually(t, func() bool { return r.count() == 206 }, 20*time.Second, 10*time.Millisecond)
	require.Greater(t, m.foundPulls("broker-a"), before, "caught up: the master serves the consumer again")
	_, dups := r.offsets()
	require.Zero(t, dups)
}

// TestExercise7_OffsetsCommittedWhileTheMasterIsDownReachItWhenItReturns answers: where does
// a consumer's progress go while its master is down, and is any of it lost or rolled back when
// the master returns? With the master gone from the route, RemoteBrokerOffsetStore reads and
// writes offsets on the slave (MQClientInstance#findBrokerAddressInSubscribe falls back to
// brokerId 1) and the slave keeps them (ConsumerManageProcessor accepts UPDATE_CONSUMER_OFFSET
// on any role). When the master returns with its older offset, the slave's next sync puts the
// master's table over its own — as in RocketMQ 4.9, the slave's copy goes back (10 here, the
// step lists it as rolledBack) — but the consumer still holds its progress in memory: its next
// persistAll sends it to the master, and the sync after that brings it to the slave. The
// assertions prove each hop, and that a fresh consumer of the group afterwards gets no message
// twice.
func TestExercise7_OffsetsCommittedWhileTheMasterIsDownReachItWhenItReturns(t *testing.T) {
	m := startMasterSlave(t, 0)
	m.send(t, 10)
	var a msReceived
	ca := m.consume(t, &a, 10)
	ca.Shutdown() // persists 10 to the master
	require.Equal(t, store.QueueOffset(10), m.queueOffset(m.master()))
	m.syncSlave(t)
	require.Equal(t, store.QueueOffset(10), m.queueOffset(m.slave()))
	m.send(t, 20)

	m.StopMaster(0) // unregisters: the route keeps broker-a with its slave only
	var b msReceived
	cb := m.consume(t, &b, 20) // reads 10 from the slave, pulls 10..29 from it
	offsets, dups := b.offsets()
	require.Equal(t, int64(10), offsets[0], "started at the offset the slave had")
	require.Zero(t, dups)
	cb.PersistConsumerOffset()
	require.Eventually(t, func() bool { return m.queueOffset(m.slave()) == 30 }, 10*time.Second, 5*time.Millisecond,
		"the progress went to the slave")
	var toSlave bool
	for _, s := range m.steps("client", "RemoteBrokerOffsetStore#updateConsumeOffsetToBroker") {
		toSlave = toSlave || s.Attrs["topic"] == m.topic && s.Attrs["slave"] == "true" && s.Attrs["offset"] == "30"
	}
	require.True(t, toSlave, "updateConsumeOffsetToBroker names the slave")

	master, err := m.StartMaster(0)
	require.NoError(t, err)
	require.Equal(t, store.QueueOffset(10), m.queueOffset(master), "the master comes back with what it had")
	m.slave().RegisterBrokerAll() // learns the master's new address
	m.syncSlave(t)
	require.Equal(t, store.QueueOffset(10), m.queueOffset(m.slave()), "RocketMQ's sync: the master's table wins")
	rolledBack := false // the pass that did it (ours, or the slave's 10 s timer just before) says so
	for _, s := range m.steps("broker-a-slave", "SlaveSynchronize#syncConsumerOffset") {
		rolledBack = rolledBack || strings.Contains(s.Attrs["rolledBack"], fmt.Sprintf("%s@%s/0=30->10", m.topic, m.group))
	}
	require.True(t, rolledBack, "the syncConsumerOffset step lists the rolled-back offset")

	cb.Instance().UpdateTopicRouteInfoFromNameServer(m.topic) // the route names the master again
	cb.PersistConsumerOffset()
	require.Eventually(t, func() bool { return m.queueOffset(master) == 30 }, 10*time.Second, 5*time.Millisecond,
		"the consumer's progress reached the master")
	m.syncSlave(t)
	require.Equal(t, store.QueueOffset(30), m.queueOffset(m.slave()), "and the next sync the slave")

	cb.Shutdown()
	var c msReceived
	m.startConsumer(t, &c)
	msQuiet(t, &c, 0)
	m.send(t, 1)
	require.Eventually(t, func() bool { return c.count() == 1 }, 20*time.Second, 10*time.Millisecond)
	offsets, _ = c.offsets()
	require.Equal(t, []int64{30}, offsets, "nothing consumed twice")
}

// TestExercise8_SlaveOffsetsFollowTheMasterAfterASyncPass answers: what does one
// SlaveSynchronize#syncAll pass copy? The master's consumer offsets (what consumers committed
// there), its delay offsets (how far each delay level's queue was delivered) and its
// subscription groups arrive on the slave and are persisted to its config files; the
// syncConsumerOffset step lists the offsets it copied.
func TestExercise8_SlaveOffsetsFollowTheMasterAfterASyncPass(t *testing.T) {
	m := startMasterSlave(t, 0)
	m.slave().SlaveSynchronize().SuspendTimer() // only the test's syncSlave copies from here on
	m.send(t, 7)
	var r msReceived
	cons := m.consume(t, &r, 7)
	cons.PersistConsumerOffset()
	require.Eventually(t, func() bool { return m.queueOffset(m.master()) == 7 }, 10*time.Second, 5*time.Millisecond)
	cons.Shutdown() // its last persist; no persist timer changes the master's offsets after this
	require.Equal(t, store.QueueOffset(7), m.queueOffset(m.master()))
	require.NoError(t, m.master().ScheduleMessageService().Decode([]byte(`{"offsetTable":{3:5}}`)))
	g := broker.NewSubscriptionGroupConfig("cg_only_on_master")
	m.master().SubscriptionGroupManager().UpdateSubscriptionGroupConfig(g)
	require.NotEqual(t, store.QueueOffset(7), m.queueOffset(m.slave()), "not synced yet")
	require.NotContains(t, m.slave().SubscriptionGroupManager().SubscriptionGroupTable(), "cg_only_on_master")

	m.syncSlave(t)
	require.Equal(t, m.master().ConsumerOffsetManager().OffsetTable(), m.slave().ConsumerOffsetManager().OffsetTable())
	require.Equal(t, m.master().ScheduleMessageService().OffsetTable(), m.slave().ScheduleMessageService().OffsetTable())
	require.Contains(t, m.slave().SubscriptionGroupManager().SubscriptionGroupTable(), "cg_only_on_master")
	sync := m.steps("broker-a-slave", "SlaveSynchronize#syncConsumerOffset")
	require.Contains(t, sync[len(sync)-1].Attrs["offsets"], fmt.Sprintf("%s@%s/0=7", m.topic, m.group))
}
