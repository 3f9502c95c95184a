package consumer

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func msgsAt(offsets ...int64) []*primitive.MessageExt {
	out := make([]*primitive.MessageExt, len(offsets))
	for i, o := range offsets {
		out[i] = &primitive.MessageExt{QueueOffset: o, Message: primitive.Message{Body: []byte("xx")}}
	}
	return out
}

// ProcessQueue's orderly batch: takeMessages hands out the lowest offsets first and counts
// them as still held; commit answers the batch's last offset + 1; makeMessageToConsumeAgain and
// rollback put messages back to be taken first again; an empty take ends the consuming run.
// Java: ProcessQueue#takeMessages, #commit, #rollback, #makeMessageToConsumeAgain.
func TestProcessQueueOrderlyBatch(t *testing.T) {
	pq := NewProcessQueue(time.Unix(0, 0))
	require.True(t, pq.PutMessage(msgsAt(5, 3, 4, 6)))
	require.False(t, pq.PutMessage(msgsAt(7)), "a run is already dispatched")

	b := pq.TakeMessages(2)
	require.Equal(t, "3,4", offsetsOf(b))
	require.Equal(t, int64(5), pq.MsgCount(), "a batch being consumed is still held")
	require.Equal(t, int64(5), pq.Commit())
	require.Equal(t, int64(3), pq.MsgCount())
	require.Equal(t, int64(-1), pq.Commit(), "nothing taken since")

	b = pq.TakeMessages(2)
	require.Equal(t, "5,6", offsetsOf(b))
	pq.MakeMessageToConsumeAgain(b[1:])
	require.Equal(t, int64(6), pq.Commit(), "only 5 was left in the batch")
	require.Equal(t, "6,7", offsetsOf(pq.TakeMessages(5)))
	pq.Rollback()
	require.True(t, pq.HasTempMessage())
	require.Equal(t, "6,7", offsetsOf(pq.TakeMessages(5)), "rolled back: taken again, in order")
	require.Equal(t, int64(8), pq.Commit())
	require.Empty(t, pq.TakeMessages(1))
	require.True(t, pq.PutMessage(msgsAt(8)), "the empty take ended the run: a new one is dispatched")
	require.Equal(t, int64(2), pq.MsgSize())

	pq.SetLastLockTimestamp(time.Unix(100, 0))
	require.False(t, pq.IsLockExpired(time.Unix(130, 0)))
	require.True(t, pq.IsLockExpired(time.Unix(130, 1e6)), "30 s without renewal")
}

// orderlyConsumer starts an orderly consumer of group on topic whose listener is l.
func orderlyConsumer(t *testing.T, cfg Config, topic string, l MessageListenerOrderly) *DefaultMQPushConsumer {
	t.Helper()
	c := NewDefaultMQPushConsumer(cfg)
	require.NoError(t, c.Subscribe(topic, "*"))
	c.RegisterMessageListenerOrderly(l)
	require.NoError(t, c.Start())
	return c
}

// sendOrders sends steps messages for each order, step after step, each to the queue
// SelectMessageQueueByHash picks for the order id; the body is "order/step".
func sendOrders(t testing.TB, p *producer.DefaultMQProducer, topic string, orders []int, steps int) {
	t.Helper()
	for s := range steps {
		for _, o := range orders {
			m := &primitive.Message{Topic: topic, Body: []byte(strconv.Itoa(o) + "/" + strconv.Itoa(s))}
			_, err := p.SendWithSelector(context.Background(), m, producer.SelectMessageQueueByHash{}, o)
			require.NoError(t, err)
		}
	}
}

func parseOrderStep(m *primitive.MessageExt) (int, int) {
	o, s, _ := strings.Cut(string(m.Body), "/")
	oi, _ := strconv.Atoi(o)
	si, _ := strconv.Atoi(s)
	return oi, si
}

// Within a queue the orderly service hands messages over strictly in queue-offset order and one
// batch at a time, even with 8 consume goroutines and batches of 3: no two listener calls of
// one queue overlap, and each batch starts where the previous one ended.
func TestOrderlyOneBatchAtATimeInOffsetOrder(t *testing.T) {
	c, topic, p := startTopicProducer(t, "T_", 4)
	orders := []int{1, 2, 3, 4, 5, 6, 7, 8}
	sendOrders(t, p, topic, orders, 10)
	cfg := consumerConfig(t, c, "cg_"+clienttest.Name(t))
	cfg.ConsumeThreadMin = 8
	cfg.ConsumeMessageBatchMaxSize = 3
	var mu sync.Mutex
	inFlight := map[int32]int{}
	next := map[int32]int64{}
	var overlaps, gaps atomic.Int32
	var total atomic.Int32
	cons := orderlyConsumer(t, cfg, topic, func(msgs []*primitive.MessageExt, ctx *ConsumeOrderlyContext) ConsumeOrderlyStatus {
		q := ctx.MessageQueue.QueueID
		mu.Lock()
		inFlight[q]++
		if inFlight[q] > 1 {
			overlaps.Add(1)
		}
		for _, m := range msgs {
			if m.QueueOffset != next[q] {
				gaps.Add(1)
			}
			next[q] = m.QueueOffset + 1
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		inFlight[q]--
		mu.Unlock()
		total.Add(int32(len(msgs)))
		return ConsumeOrderlySuccess
	})
	defer cons.Shutdown()
	require.Eventually(t, func() bool { return total.Load() == 80 }, 20*time.Second, 10*time.Millisecond)
	require.Zero(t, overlaps.Load(), "two batches of one queue ran at once")
	require.Zero(t, gaps.Load(), "a batch did not start where the previous one ended")
}

// SUSPEND_CURRENT_QUEUE_A_MOMENT puts the batch back: after SuspendCurrentQueueTime the same
// message comes first again, with reconsumeTimes one higher, and nothing after it is consumed
// before it; past MaxReconsumeTimes it goes to %DLQ% and the queue moves on.
// Java: ConsumeMessageOrderlyService#processConsumeResult, #checkReconsumeTimes.
func TestOrderlySuspendRedeliversTheSameBatchFirst(t *testing.T) {
	c, topic, p := startTopicProducer(t, "T_", 1)
	sendOrders(t, p, topic, []int{7}, 4)
	cfg := consumerConfig(t, c, "cg_"+clienttest.Name(t))
	cfg.SuspendCurrentQueueTime = 50 * time.Millisecond
	cfg.MaxReconsumeTimes = 2
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	cons := orderlyConsumer(t, cfg, topic, func(msgs []*primitive.MessageExt, _ *ConsumeOrderlyContext) ConsumeOrderlyStatus {
		mu.Lock()
		defer mu.Unlock()
		m := msgs[0]
		_, step := parseOrderStep(m)
		seen = append(seen, strconv.Itoa(step)+"#"+strconv.Itoa(int(m.ReconsumeTimes)))
		if step == 3 {
			close(done)
		}
		if step == 1 { // always fails: suspended twice, then the DLQ
			return SuspendCurrentQueueAMoment
		}
		return ConsumeOrderlySuccess
	})
	defer cons.Shutdown()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("step 3 never came")
	}
	mu.Lock()
	require.Equal(t, []string{"0#0", "1#0", "1#1", "1#2", "2#0", "3#0"}, seen)
	mu.Unlock()
	require.Eventually(t, func() bool {
		return c.Brokers[0].MessageStore().GetMaxOffsetInQueue("%DLQ%"+cfg.ConsumerGroup, 0) == 1
	}, 10*time.Second, 10*time.Millisecond, "the message past its limit is in the DLQ")
}

// TestStressOrderlyConsumersJoinAndLeave: 1,000 orders × 4 steps, sent by hash of the order id
// to 4 queues, while three orderly consumers of one group join and leave at random (seeded;
// STRESS_SEED replays). Every order's steps are observed in order by whichever consumer got
// them: redeliveries after a handover are allowed (at least once), a step before its
// predecessor is not. The default run churns a few seconds; -stress 60s or STRESS=60s
// runs the long version.
func TestStressOrderlyConsumersJoinAndLeave(t *testing.T) {
	d := clienttest.StressDuration(t, 3*time.Second)
	rng := clienttest.StressRand(t)
	c, topic, p := startTopicProducer(t, "T_", 4)
	group := "cg_" + clienttest.Name(t)
	orders := make([]int, 1000)
	for i := range orders {
		orders[i] = 10000 + i
	}
	var ledger clienttest.OrderLedger
	next := 0
	churn := clienttest.NewChurn(3, func(int) func() {
		next++
		name := "c" + strconv.Itoa(next)
		cfg := consumerConfig(t, c, group)
		cfg.UnlockDelayTime = 200 * time.Millisecond
		cfg.PullBatchSize = clienttest.StressPullBatchSize
		cfg.PullThresholdForQueue = clienttest.StressPullThresholdForQueue
		cons := orderlyConsumer(t, cfg, topic, func(msgs []*primitive.MessageExt, _ *ConsumeOrderlyContext) ConsumeOrderlyStatus {
			for _, m := range msgs {
				o, s := parseOrderStep(m)
				ledger.Observe(name, o, s)
			}
			return ConsumeOrderlySuccess
		})
		return cons.Shutdown
	})
	defer churn.StopAll()
	churn.Toggle(0)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		sendOrders(t, p, topic, orders, 4)
	}()
	churn.Run(rng, d, 100*time.Millisecond, 600*time.Millisecond)
	<-sent
	t.Logf("%d members started, %d stopped; %d running at the end", churn.Starts, churn.Stops, len(churn.Running()))
	require.Eventually(t, func() bool { return ledger.Complete(orders, 4) }, 90*time.Second, 50*time.Millisecond,
		"not every order's steps were consumed")
	require.Empty(t, ledger.Violations())
}

// A BROADCASTING orderly consumer takes no broker lock: two members of one group each consume
// every message, each queue in offset order.
func TestOrderlyBroadcastingNeedsNoBrokerLock(t *testing.T) {
	c, topic, p := startTopicProducer(t, "T_", 2)
	sendOrders(t, p, topic, []int{1, 2}, 5)
	group := "cg_" + clienttest.Name(t)
	var counts [2]atomic.Int32
	for i := range 2 {
		cfg := consumerConfig(t, c, group)
		cfg.MessageModel = protocol.Broadcasting
		cfg.OffsetStoreDir = t.TempDir()
		var mu sync.Mutex
		next := map[int32]int64{}
		cons := orderlyConsumer(t, cfg, topic, func(msgs []*primitive.MessageExt, ctx *ConsumeOrderlyContext) ConsumeOrderlyStatus {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range msgs {
				if m.QueueOffset != next[m.QueueID] {
					t.Errorf("member %d queue %d: offset %d, want %d", i, m.QueueID, m.QueueOffset, next[m.QueueID])
				}
				next[m.QueueID] = m.QueueOffset + 1
				counts[i].Add(1)
			}
			return ConsumeOrderlySuccess
		})
		defer cons.Shutdown()
	}
	require.Eventually(t, func() bool { return counts[0].Load() == 10 && counts[1].Load() == 10 }, 20*time.Second, 10*time.Millisecond)
}

// orderlyHolding starts an orderly consumer of a one-queue topic and waits until it holds the
// queue's broker lock; it returns the consumer, the queue, and the broker's owner of a queue's
// lock for the consumer's group ("" when free).
func orderlyHolding(t *testing.T) (*DefaultMQPushConsumer, primitive.MessageQueue, func(primitive.MessageQueue) string) {
	t.Helper()
	c, topic, _ := startTopicProducer(t, "T_", 1)
	cfg := consumerConfig(t, c, "cg_"+clienttest.Name(t))
	cons := orderlyConsumer(t, cfg, topic, func([]*primitive.MessageExt, *ConsumeOrderlyContext) ConsumeOrderlyStatus {
		return ConsumeOrderlySuccess
	})
	t.Cleanup(cons.Shutdown)
	lm := c.Brokers[0].RebalanceLockManager()
	var mq primitive.MessageQueue
	require.Eventually(t, func() bool {
		mqs, _ := cons.Rebalance().ProcessQueues()
		for _, q := range mqs {
			if q.Topic == topic && lm.Owner(cfg.ConsumerGroup, q) == cons.Instance().ClientID() {
				mq = q
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the consumer holds the queue")
	return cons, mq, func(q primitive.MessageQueue) string { return lm.Owner(cfg.ConsumerGroup, q) }
}

// removedWithCache is the ProcessQueue of a queue a rebalance removed with a message still
// cached (so its unlock is delayed).
func removedWithCache() *ProcessQueue {
	pq := NewProcessQueue(time.Now())
	pq.PutMessage(msgsAt(0))
	pq.SetDropped(true)
	return pq
}

// A queue removed with messages still cached is unlocked on the broker only after
// UnlockDelayTime (20 s); when a rebalance in between gives the queue back to this client (it
// still held the lock, so RebalanceImpl#lock granted it again and a new ProcessQueue consumes
// it), the delayed unlock must not release the lock the new ProcessQueue runs under — another
// member could then lock the queue and consume it alongside (order broken until this client's
// next lockAll). Java: RebalancePushImpl#unlockDelay (which unlocks regardless).
func TestOrderlyDelayedUnlockSparesAQueueTakenBack(t *testing.T) {
	cons, mq, owner := orderlyHolding(t)
	id := cons.Instance().ClientID()
	var delayed func()
	require.True(t, cons.Rebalance().removeOrderlyQueue(mq, removedWithCache(), time.Hour, func(_ time.Duration, f func()) { delayed = f }))
	require.NotNil(t, delayed, "a queue with cached messages is unlocked later")
	require.Equal(t, id, owner(mq), "not unlocked yet")

	// Meanwhile the queue is this consumer's again (its live ProcessQueue is in the table).
	delayed()
	require.Equal(t, id, owner(mq), "the delayed unlock released a queue taken back")
}

// A delayed unlock still waiting when the consumer shuts down runs at Shutdown: the queue a
// rebalance removed shortly before is free for its new owner at once, not only after the
// broker's 60 s expiry. Java: ConsumeMessageOrderlyService#shutdown (unlockAllMQ) after
// RebalancePushImpl#unlockDelay.
func TestOrderlyShutdownRunsTheDelayedUnlocks(t *testing.T) {
	cons, mq, owner := orderlyHolding(t)
	// A queue this client locked and a rebalance then removed (its ProcessQueue is no longer
	// in the table): the unlock waits UnlockDelayTime.
	removed := primitive.MessageQueue{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: 5}
	require.True(t, cons.Rebalance().Lock(removed))
	require.True(t, cons.Rebalance().removeOrderlyQueue(removed, removedWithCache(), time.Hour, cons.orderlyLater))
	require.Equal(t, cons.Instance().ClientID(), owner(removed), "not unlocked yet")

	cons.Shutdown()
	require.Empty(t, owner(removed), "Shutdown left a delayed unlock undone")
}
