package consumer

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

var stressFlag = flag.Duration("stress", 0, "how long TestStressConsumersStartAndStop churns (default a few seconds; $STRESS alike)")

// The stress run's consumer sizes: a member holds at most stressThreshold+stressBatch pulled
// messages of a queue (pulling pauses at the threshold, one pull in flight adds a batch).
const (
	stressQueues    = 4 // mqtest.Senders sends round robin to queues 0..3
	stressMembers   = 5
	stressThreshold = 64
	stressBatch     = 16
)

// TestStressConsumersStartAndStop: five push consumers of one clustering group start and stop
// at random (seeded: the seed is logged; STRESS_SEED replays it) while two senders write to the
// topic's four queues; then the churn stops with at least one member left. No message
// acknowledged to a sender is lost; every queue ends owned by exactly one live member; and
// once the group is stable, new messages arrive exactly once.
//
// Duplicates are what at-least-once allows, counted and bounded: a message comes twice when
// its queue changed owner before the previous owner's progress reached the broker — the new
// owner starts at the broker's committed offset (RebalancePushImpl#computePullFromWhere),
// while the previous owner goes on until its own rebalance drops the queue (and persists its
// offset then, as on shutdown), and a message whose consumption was still running when the
// queue was dropped is not committed at all. The previous owner commits its offset with every
// pull (the commitOffset flag) and every persist pass, so the gap is what it had pulled and not
// yet committed: at most stressThreshold+stressBatch messages per queue and per handover. A
// membership change can move every queue, hence the bound (starts+stops) × queues ×
// (threshold+batch). RocketMQ documents the same contract: consumption is at least once, and a
// rebalance can deliver a message again.
//
// The default run churns a few seconds; -stress 60s (go test ./mq/client/consumer -run
// Stress -stress 60s) or STRESS=60s runs the long version.
func TestStressConsumersStartAndStop(t *testing.T) {
	d := clienttest.StressDuration(t, *stressFlag, 3*time.Second)
	rng := clienttest.StressRand(t)
	c := startCluster(t, "")
	topic := "T_" + clienttest.Name(t)
	createTopic(t, c, topic, stressQueues)
	group := "cg_" + clienttest.Name(t)

	var got clienttest.Deliveries
	members := make([]*DefaultMQPushConsumer, stressMembers)
	next := 0
	churn := clienttest.NewChurn(stressMembers, func(slot int) func() {
		next++
		id := next
		cfg := consumerConfig(t, c, group)
		cfg.PullBatchSize = stressBatch
		cfg.PullThresholdForQueue = stressThreshold
		cons := NewDefaultMQPushConsumer(cfg)
		require.NoError(t, cons.Subscribe(topic, "*"))
		cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
			for _, m := range msgs {
				got.Add(id, m.Keys())
			}
			return ConsumeSuccess
		})
		require.NoError(t, cons.Start())
		members[slot] = cons
		return func() { cons.Shutdown(); members[slot] = nil }
	})
	defer churn.StopAll()

	keys := sendWhile(c, topic, "churn", func() {
		churn.Toggle(0)
		churn.Run(rng, d, 50*time.Millisecond, 400*time.Millisecond)
	})
	t.Logf("%d messages sent; %d members started, %d stopped; %d running at the end", len(keys), churn.Starts, churn.Stops, len(churn.Running()))
	require.NotEmpty(t, keys)
	require.Eventually(t, func() bool { return got.Missing(keys) == 0 }, 60*time.Second, 20*time.Millisecond,
		"acknowledged messages never consumed")
	require.Empty(t, got.Unexpected(keys))
	requireEachQueueOwnedOnce(t, topic, members)

	dups, same := got.Duplicates()
	bound := (churn.Starts + churn.Stops) * stressQueues * (stressThreshold + stressBatch)
	t.Logf("duplicates: %d (%d to a member that had it already), bound %d", dups, same, bound)
	require.LessOrEqual(t, dups, bound)

	// Stable group: exactly once.
	more := sendWhile(c, topic, "stable", func() { time.Sleep(300 * time.Millisecond) })
	require.Eventually(t, func() bool { return got.Missing(more) == 0 }, 30*time.Second, 20*time.Millisecond)
	time.Sleep(time.Second) // the quiet window: nothing more may come
	after, _ := got.Duplicates()
	require.Equal(t, dups, after, "a stable group consumed a message twice")
}

// sendWhile runs two senders on topic while during runs and returns the keys of the messages
// the broker acknowledged (prefixed with prefix).
func sendWhile(c *embedded.Cluster, topic, prefix string, during func()) []string {
	s := mqtest.StartSenders(mqtest.SendLoad{Addr: c.Brokers[0].BrokerAddr(), Topic: topic, Goroutines: 2,
		Key: func(g, i int) string { return fmt.Sprintf("%s-%d-%d", prefix, g, i) }, Interval: time.Millisecond})
	during()
	return slices.Collect(maps.Keys(s.Stop()))
}

// requireEachQueueOwnedOnce waits until every queue of topic is held (not dropped) by exactly
// one live member.
func requireEachQueueOwnedOnce(t *testing.T, topic string, members []*DefaultMQPushConsumer) {
	t.Helper()
	var owners map[int32]int
	if !assert.Eventually(t, func() bool {
		owners = map[int32]int{}
		for _, m := range members {
			if m == nil {
				continue
			}
			qs, pqs := m.Rebalance().ProcessQueues()
			for i, q := range qs {
				if q.Topic == topic && !pqs[i].Dropped() {
					owners[q.QueueID]++
				}
			}
		}
		if len(owners) != stressQueues {
			return false
		}
		for _, n := range owners {
			if n != 1 {
				return false
			}
		}
		return true
	}, 20*time.Second, 20*time.Millisecond) {
		t.Fatalf("queue owners (queue id → live members holding it): %v", owners)
	}
}
