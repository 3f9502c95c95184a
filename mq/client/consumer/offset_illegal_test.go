package consumer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// A pull at an offset past the queue's end comes back PULL_OFFSET_MOVED (OFFSET_ILLEGAL) with
// nextBeginOffset = the queue's max offset; DefaultMQPushConsumerImpl's OFFSET_ILLEGAL branch
// marks the ProcessQueue dropped, moves the queue's offset in the store to nextBeginOffset
// (not increase-only: it may go down), persists it to the broker and removes the queue, so the
// next rebalance starts it afresh from there. Java: DefaultMQPushConsumerImpl#pullMessage, PullCallback#onSuccess.
func TestPullOffsetIllegalMovesOffsetToNextBegin(t *testing.T) {
	c := startCluster(t, "")
	topic := "T_" + safeName(t)
	createTopic(t, c, topic, 1)
	p := startProducer(t, c)
	send(t, p, topic, "", 2)
	st := c.Brokers[0].MessageStore()
	require.Eventually(t, func() bool { return st.GetMaxOffsetInQueue(topic, 0) == 2 }, 10*time.Second, 5*time.Millisecond)

	group := "cg_" + safeName(t)
	c.Brokers[0].ConsumerOffsetManager().CommitOffset("test", group, topic, 0, 100)

	cfg := consumerConfig(t, c, group)
	cfg.DisableScheduledTasks = true
	cons := NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	cons.RegisterMessageListener(func([]*primitive.MessageExt, *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		return ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)

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
