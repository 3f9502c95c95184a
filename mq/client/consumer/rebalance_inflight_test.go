package consumer

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestQueueDroppedMidConsume: A is still consuming a message of its queue when B joins and
// A's rebalance gives the queue to B — which messages does B consume again? The assertion
// proves RocketMQ's at-least-once line exactly: the message A acknowledged before the drop is
// not consumed again (A's drop persisted the offset after it, and B starts there); the message
// A's listener was consuming at the drop is consumed by both (its acknowledgement, after the
// drop, commits nothing: RebalanceImpl#updateProcessQueueTableInRebalance marked the
// ProcessQueue dropped first); the message A had pulled but not begun is consumed by B only
// (ConsumeRequest#run skips a dropped queue). Java: RebalancePushImpl#removeUnnecessaryMessageQueue,
// ConsumeMessageConcurrentlyService#processConsumeResult.
func TestQueueDroppedMidConsume(t *testing.T) {
	c, topic, p := startTopicProducer(t, "MidDrop", 1)
	group := "cg_" + clienttest.Name(t)
	q := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}

	var mu sync.Mutex
	got := map[string][]string{} // body → consumers, in order
	entered, release := make(chan struct{}), make(chan struct{})
	member := func(name, instance string) *DefaultMQPushConsumer {
		cfg := consumerConfig(t, c, group)
		cfg.InstanceName = instance
		cfg.Options.DisableScheduledTasks = true // the test plays rebalances and pulls
		return startPushConsumer(t, cfg, topic, func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
			for _, m := range msgs {
				mu.Lock()
				got[string(m.Body)] = append(got[string(m.Body)], name)
				mu.Unlock()
				if name == "A" && string(m.Body) == "msg-1" {
					close(entered)
					<-release
				}
			}
			return ConsumeSuccess
		})
	}
	// Instance names sort B before A: with one queue and two members, B's index 0 gets it.
	a := member("A", "z-"+clienttest.InstanceName(t, "a"))
	a.Instance().DoRebalance()
	send(t, p, topic, "", 3) // msg-0, msg-1, msg-2
	require.Eventually(t, func() bool { return c.Brokers[0].MessageStore().GetMaxOffsetInQueue(topic, 0) == 3 },
		5*time.Second, time.Millisecond, "one pull gets all three")
	pulled := make(chan struct{})
	go func() { a.PullMessageService().DoPullQueue(q); close(pulled) }()
	select {
	case <-entered: // msg-0 acknowledged, msg-1 being consumed, msg-2 waiting
	case <-time.After(10 * time.Second):
		t.Fatal("A never consumed msg-1")
	}

	b := member("B", "a-"+clienttest.InstanceName(t, "b"))
	a.Instance().DoRebalance() // drops the queue: persists offset 1 (msg-1 not acknowledged)
	_, pqs := a.Rebalance().ProcessQueues()
	require.Empty(t, pqs, "A no longer holds the queue")
	require.Eventually(t, func() bool {
		return c.Brokers[0].ConsumerOffsetManager().QueryOffset(group, topic, 0) == 1
	}, 5*time.Second, 10*time.Millisecond, "A's drop committed the offset after what it acknowledged")
	b.Instance().DoRebalance()
	close(release)
	<-pulled
	require.True(t, b.PullMessageService().DoPullQueue(q))

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"A"}, got["msg-0"], "acknowledged before the drop: consumed once")
	require.Equal(t, []string{"A", "B"}, got["msg-1"], "in flight at the drop: consumed again (at least once)")
	require.Equal(t, []string{"B"}, got["msg-2"], "pulled by A but not begun: consumed by B only")
}

// TestPeriodicRebalanceWithoutNotification: with the group's notifyConsumerIdsChangedEnable
// off, nobody is told that B joined — does A keep all the queues, so that both consume them?
// The assertion proves the RebalanceService's periodic pass is the other trigger: A receives no
// NOTIFY_CONSUMER_IDS_CHANGED, yet within its next passes (RebalanceInterval, 200 ms here; 20 s
// by default) it gives up B's share, and every queue ends held by exactly one of them. Java:
// RebalanceService#run (waitForRunning(waitInterval), then MQClientInstance#doRebalance).
func TestPeriodicRebalanceWithoutNotification(t *testing.T) {
	c, topic, _ := startTopicProducer(t, "Periodic", 4)
	group := "cg_" + clienttest.Name(t)
	sgc := broker.NewSubscriptionGroupConfig(group)
	sgc.NotifyConsumerIdsChangedEnable = false
	c.Brokers[0].SubscriptionGroupManager().UpdateSubscriptionGroupConfig(sgc)
	ok := func([]*primitive.MessageExt, *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		return ConsumeSuccess
	}

	recA := trace.NewRecorder()
	cfgA := consumerConfig(t, c, group)
	cfgA.Options.Logger = slog.New(recA)
	a := startPushConsumer(t, cfgA, topic, ok)
	held := func(m *DefaultMQPushConsumer) int {
		n := 0
		qs, pqs := m.Rebalance().ProcessQueues()
		for i, q := range qs {
			if q.Topic == topic && !pqs[i].Dropped() {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return held(a) == 4 }, 10*time.Second, 10*time.Millisecond, "A alone holds every queue")

	b := startPushConsumer(t, consumerConfig(t, c, group), topic, ok)
	require.Eventually(t, func() bool { return held(a) == 2 && held(b) == 2 }, 10*time.Second, 10*time.Millisecond,
		"A's periodic pass gave B its share")
	require.Contains(t, recA.Labels(), "RebalanceImpl#rebalanceByTopic", "A's steps are recorded")
	for _, s := range recA.Steps() {
		require.NotEqual(t, "ClientRemotingProcessor#processRequest", s.Label, "A was notified: %v", s.Attrs)
	}
}
