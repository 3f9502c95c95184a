package consumer

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// A clustering push consumer with the instance's background services receives every message
// once, and its committed offsets reach the broker (RemoteBrokerOffsetStore#persistAll sends
// UPDATE_CONSUMER_OFFSET for every held queue).
func TestPushConsumerReceivesAllAndCommits(t *testing.T) {
	c, topic, p := startTopicProducer(t, "T_", 4)
	send(t, p, topic, "TagA", 40)

	group := "cg_" + clienttest.Name(t)
	var mu sync.Mutex
	got := map[string]int{}
	cons := startPushConsumer(t, consumerConfig(t, c, group), topic,
		func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range msgs {
				got[string(m.Body)]++
			}
			return ConsumeSuccess
		})
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 40 }, 20*time.Second, 10*time.Millisecond)
	// committed: the sum over the 4 queues of the broker's offsets is 40.
	om := c.Brokers[0].ConsumerOffsetManager()
	require.Eventually(t, func() bool {
		cons.Instance().PersistAllConsumerOffset() // the scheduled task's first pass is 10 s away
		var sum int64
		for q := int32(0); q < 4; q++ {
			if v := om.QueryOffset(group, topic, q); v > 0 {
				sum += int64(v)
			}
		}
		return sum == 40
	}, 10*time.Second, 20*time.Millisecond)
	mu.Lock()
	for _, n := range got {
		require.Equal(t, 1, n)
	}
	mu.Unlock()
	_ = protocol.Clustering
}

// A pull at an offset past the queue's end comes back PULL_OFFSET_MOVED (OFFSET_ILLEGAL) with
// nextBeginOffset = the queue's max offset; DefaultMQPushConsumerImpl's OFFSET_ILLEGAL branch
// marks the ProcessQueue dropped, moves the queue's offset in the store to nextBeginOffset
// (not increase-only: it may go down), persists it to the broker and removes the queue, so the
// next rebalance starts it afresh from there. Java: DefaultMQPushConsumerImpl#pullMessage, PullCallback#onSuccess.
func TestPullOffsetIllegalMovesOffsetToNextBegin(t *testing.T) {
	c, topic, p := startTopicProducer(t, "T_", 1)
	send(t, p, topic, "", 2)
	st := c.Brokers[0].MessageStore()
	require.Eventually(t, func() bool { return st.GetMaxOffsetInQueue(topic, 0) == 2 }, 10*time.Second, 5*time.Millisecond)

	group := "cg_" + clienttest.Name(t)
	c.Brokers[0].ConsumerOffsetManager().CommitOffset("test", group, topic, 0, 100)

	cfg := consumerConfig(t, c, group)
	cfg.Options.DisableScheduledTasks = true
	cons := startPushConsumer(t, cfg, topic, func([]*primitive.MessageExt, *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		return ConsumeSuccess
	})

	mq := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	cons.Instance().DoRebalance()
	require.Equal(t, int64(100), cons.OffsetStore().ReadOffset(mq, ReadFromMemory), "starts at the broker's committed offset")
	mqs, pqs := cons.Rebalance().ProcessQueues()
	var pq *ProcessQueue
	for i, q := range mqs {
		if q == mq {
			pq = pqs[i]
		}
	}
	require.NotNil(t, pq)

	require.True(t, cons.PullMessageService().DoPullQueue(mq))
	require.True(t, pq.Dropped())
	// The fix persisted 2 to the broker (oneway UPDATE_CONSUMER_OFFSET), then
	// removeUnnecessaryMessageQueue persisted again and forgot the queue's offset in memory.
	om := c.Brokers[0].ConsumerOffsetManager()
	require.Eventually(t, func() bool { return om.QueryOffset(group, topic, 0) == 2 }, 10*time.Second, 5*time.Millisecond,
		"the broker's offset moved down to nextBeginOffset")
	require.Equal(t, int64(-1), cons.OffsetStore().ReadOffset(mq, ReadFromMemory))
	require.NotContains(t, cons.PullMessageService().Pending(), mq, "no pull of the dropped queue is queued")

	// The fix calls RebalanceImpl#removeProcessQueue, which also deletes the queue from
	// processQueueTable, so the next rebalance creates a new ProcessQueue and PullRequest at
	// the moved offset (without it the queue would sit idle until PullMaxIdleTime, 120 s).
	t.Run("queue restarts on the next rebalance", func(t *testing.T) {
		mqs, _ = cons.Rebalance().ProcessQueues()
		require.NotContains(t, mqs, mq, "RebalanceImpl#removeProcessQueue took the dropped queue out of the table")
		cons.Instance().DoRebalance()
		require.Contains(t, cons.PullMessageService().Pending(), mq)
		require.True(t, cons.PullMessageService().DoPullQueue(mq))
	})
}

// TestConsumersSharingAnInstanceShareItsOptions: a second consumer registering with an instance
// another created follows that instance's options (here its clock), so its pull and consume
// times are on the same clock as the rebalance that checks them (IsPullExpired).
func TestConsumersSharingAnInstanceShareItsOptions(t *testing.T) {
	c := startCluster(t, "")
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	first := consumerConfig(t, c, "share-a")
	first.Options.Clock = clk
	second := consumerConfig(t, c, "share-b")
	second.InstanceName = first.InstanceName // same clientId: one MQClientInstance
	noop := func([]*primitive.MessageExt, *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		return ConsumeSuccess
	}
	a := startPushConsumer(t, first, "ShareTopic", noop)
	b := startPushConsumer(t, second, "ShareTopic", noop)
	require.Same(t, a.instance, b.instance, "one instance for one clientId")
	require.Equal(t, clk.Now(), b.now(), "the second consumer reads the instance's clock")
}
