package main

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// batch is one listener call: who got it, its queue and its messages' offsets and bodies.
type batch struct {
	member  string
	queue   int32
	offsets []int64
	bodies  []string
	retries []int32
}

// orderlyScenario is the chapter's scenario for an exercise, its log in a buffer (printed when
// the test fails), every batch recorded.
func orderlyScenario(t *testing.T) (*scenario, func() []batch) {
	t.Helper()
	var mu sync.Mutex
	var batches []batch
	var sc *scenario
	mqtest.ExerciseStage(t, true, func(stage *mqtest.Stage) (func(), error) {
		var err error
		sc, err = newScenario(stage, func(member string, msgs []*primitive.MessageExt) {
			b := batch{member: member, queue: msgs[0].QueueID}
			for _, m := range msgs {
				b.offsets = append(b.offsets, m.QueueOffset)
				b.bodies = append(b.bodies, string(m.Body))
				b.retries = append(b.retries, m.ReconsumeTimes)
			}
			mu.Lock()
			batches = append(batches, b)
			mu.Unlock()
		})
		return func() { sc.shutdown() }, err
	})
	return sc, func() []batch {
		mu.Lock()
		defer mu.Unlock()
		return append([]batch(nil), batches...)
	}
}

// playAll runs every section of the chapter on sc.
func playAll(t *testing.T, sc *scenario) {
	t.Helper()
	for _, section := range []func() error{sc.produceFirstHalf, sc.startAB, sc.consumeFirstHalf, sc.joinC, sc.secondHalf} {
		require.NoError(t, section())
	}
}

// TestExercise1_OneClientPerQueueAndTheLockExpiresAfter60s — can two consumers of a group
// hold one queue's broker lock at once, and what happens to the lock of a consumer that
// died? The assertion proves that RebalanceLockManager gives a queue to one client id only
// (the second is refused while the first's lock lives, a renewal by the first keeps it), and
// that a lock not renewed for more than 60 s (rebalanceLockMaxLiveTime) goes to the next
// client that asks — the first is refused then.
func TestExercise1_OneClientPerQueueAndTheLockExpiresAfter60s(t *testing.T) {
	clk := clock.NewManual(epoch)
	lm := broker.NewRebalanceLockManager(clk, nil)
	q := []primitive.MessageQueue{{Topic: topicName, BrokerName: brokerName, QueueID: 3}}
	require.Equal(t, q, lm.TryLockBatch(group, q, "B"))
	require.Empty(t, lm.TryLockBatch(group, q, "C"), "B holds it")
	clk.Advance(50 * time.Second)
	require.Equal(t, q, lm.TryLockBatch(group, q, "B"), "B renews (its lockAll every 20 s)")
	clk.Advance(60 * time.Second)
	require.Empty(t, lm.TryLockBatch(group, q, "C"), "exactly 60 s after the renewal: still B's")
	clk.Advance(time.Millisecond)
	require.Equal(t, q, lm.TryLockBatch(group, q, "C"), "more than 60 s without renewal: expired")
	require.Empty(t, lm.TryLockBatch(group, q, "B"), "now C's")
	require.Equal(t, "C", lm.Owner(group, q[0]))
}

// TestExercise2_WithinAQueueMessagesComeInOffsetOrderOneBatchAtATime — in what order does an
// orderly listener get a queue's messages? The assertion proves that over the whole chapter,
// each queue's batches, whoever consumed them, start exactly where the previous batch of that
// queue ended — or, once, repeat the previous batch (the SUSPEND) — so no message of a queue
// is handed over before an earlier one was consumed.
func TestExercise2_WithinAQueueMessagesComeInOffsetOrderOneBatchAtATime(t *testing.T) {
	sc, batches := orderlyScenario(t)
	playAll(t, sc)
	last := map[int32]batch{}
	repeats := 0
	for _, b := range batches() {
		prev, ok := last[b.queue]
		switch {
		case !ok:
			require.Equal(t, int64(0), b.offsets[0], "queue %d starts at 0", b.queue)
		case b.offsets[0] == prev.offsets[0]:
			repeats++
			require.Equal(t, prev.offsets, b.offsets, "a repeat is the same batch")
		default:
			require.Equal(t, prev.offsets[len(prev.offsets)-1]+1, b.offsets[0], "queue %d: batch after %v", b.queue, prev.offsets)
		}
		last[b.queue] = b
	}
	require.Equal(t, 1, repeats, "only the suspended batch came twice")
	for q := int32(0); q < queueNums; q++ {
		require.Equal(t, int64(sc.Master().MessageStore().GetMaxOffsetInQueue(topicName, q))-1,
			last[q].offsets[len(last[q].offsets)-1], "queue %d consumed to its end", q)
	}
}

// TestExercise3_SuspendRedeliversTheSameBatchFirst — when the listener answers
// SUSPEND_CURRENT_QUEUE_A_MOMENT for order 1004's pay, is the queue's next message consumed
// meanwhile? The assertion proves that the next batch of queue 0 is the same message again,
// with reconsumeTimes 1 (counted locally: it never left the client), and that ship comes only
// after it; the offset the consumer commits never passes the suspended message before it
// succeeded.
func TestExercise3_SuspendRedeliversTheSameBatchFirst(t *testing.T) {
	sc, batches := orderlyScenario(t)
	require.NoError(t, sc.produceFirstHalf())
	require.NoError(t, sc.startAB())
	sc.failOnce = "1004/pay"
	a := sc.members.Get("A")
	q0 := primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: 0}
	a.c.PullMessageService().DoPullQueue(q0)
	require.Equal(t, int64(1), a.c.OffsetStore().ReadOffset(q0, consumer.ReadFromMemory), "pay is not committed")
	require.Equal(t, 1, a.orderly().RunDelayedConsumeRequests())
	var q0bodies []string
	var q0retries []int32
	for _, b := range batches() {
		if b.queue == 0 {
			q0bodies = append(q0bodies, b.bodies...)
			q0retries = append(q0retries, b.retries...)
		}
	}
	require.Equal(t, []string{"1004/create", "1004/pay", "1004/pay"}, q0bodies)
	require.Equal(t, []int32{0, 0, 1}, q0retries)
	require.Equal(t, int64(2), a.c.OffsetStore().ReadOffset(q0, consumer.ReadFromMemory))
}

// TestExercise4_AMovedQueueIsNotConsumedByTheNewOwnerUntilTheOldOneReleasedIt — C joins and
// its rebalance gives it queue 3 while B still consumes it: may C pull queue 3 right away? The
// assertion proves that it may not: C's lock is refused and C makes no ProcessQueue for the
// queue; B's rebalance persists the queue's offset and then unlocks it; only C's next
// rebalance takes the queue, starting at B's committed offset (2), so order 1003's ship and
// finish come after its create and pay, and nothing of it twice.
func TestExercise4_AMovedQueueIsNotConsumedByTheNewOwnerUntilTheOldOneReleasedIt(t *testing.T) {
	sc, batches := orderlyScenario(t)
	require.NoError(t, sc.produceFirstHalf())
	require.NoError(t, sc.startAB())
	require.NoError(t, sc.consumeFirstHalf())
	lm := sc.Master().RebalanceLockManager()
	q3 := primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: 3}
	b := sc.members.Get("B")
	c, err := sc.startMember("C")
	require.NoError(t, err)
	c.c.Instance().DoRebalance()
	require.Equal(t, b.c.Instance().ClientID(), lm.Owner(group, q3))
	mqs, _ := c.c.Rebalance().ProcessQueues()
	require.NotContains(t, mqs, q3, "C has no ProcessQueue for a queue it could not lock")
	b.c.Instance().DoRebalance()
	require.Equal(t, "", lm.Owner(group, q3), "B unlocked it")
	require.NoError(t, sc.waitCommitted(3, 2))
	c.c.Instance().DoRebalance()
	require.Equal(t, c.c.Instance().ClientID(), lm.Owner(group, q3))
	require.NoError(t, sc.secondHalf())
	var got []string
	for _, x := range batches() {
		if x.queue == 3 {
			got = append(got, x.member+":"+x.bodies[0])
		}
	}
	require.Equal(t, []string{"B:1003/create", "B:1003/pay", "C:1003/ship", "C:1003/finish"}, got)
}

// TestExercise5_AGlobalOrderTopicKeepsTotalOrderAcrossConsumerRestarts — global order is a
// topic with one queue: does it survive its consumer's restart? The assertion proves that with
// one queue every message comes in send order, and that a fresh consumer started after the
// first one shut down (its offset persisted, its lock released) goes on at the next message:
// 0..19, each exactly once, in order.
func TestExercise5_AGlobalOrderTopicKeepsTotalOrderAcrossConsumerRestarts(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{})
	const topic, grp = "GlobalOrderTopic", "ch07_global_group"
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	require.NoError(t, mqtest.CreateTopic(cl, c.Brokers[0].BrokerAddr(), topic, 1, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, mqtest.WaitRouted(cl, c.NamesrvAddr(), topic, 1))
	p := producer.NewDefaultMQProducer(mqtest.ProducerConfig("ch07_global_producer", c.NamesrvAddr(), "ch07-global-producer"))
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	sendN := func(from, n int) {
		for i := from; i < from+n; i++ {
			m := &primitive.Message{Topic: topic, Body: []byte(strconv.Itoa(i))}
			_, err := p.SendWithSelector(context.Background(), m, producer.SelectMessageQueueByHash{}, "global")
			require.NoError(t, err)
		}
	}
	var mu sync.Mutex
	var got []string
	start := func(name string) *consumer.DefaultMQPushConsumer {
		cfg := consumer.DefaultConfig(grp)
		cfg.NamesrvAddr = c.NamesrvAddr()
		cfg.InstanceName = "ch07-global-" + name
		cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
		cfg.RebalanceInterval = 200 * time.Millisecond
		cons := consumer.NewDefaultMQPushConsumer(cfg)
		require.NoError(t, cons.Subscribe(topic, "*"))
		cons.RegisterMessageListenerOrderly(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeOrderlyContext) consumer.ConsumeOrderlyStatus {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range msgs {
				got = append(got, string(m.Body))
			}
			return consumer.ConsumeOrderlySuccess
		})
		require.NoError(t, cons.Start())
		return cons
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	sendN(0, 10)
	first := start("first")
	require.Eventually(t, func() bool { return count() == 10 }, 20*time.Second, 10*time.Millisecond)
	first.Shutdown()
	sendN(10, 10)
	second := start("second")
	defer second.Shutdown()
	require.Eventually(t, func() bool { return count() == 20 }, 30*time.Second, 10*time.Millisecond)
	time.Sleep(time.Second) // the quiet window: nothing more may come
	want := make([]string, 20)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, want, got)
}
