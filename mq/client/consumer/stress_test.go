package consumer

import (
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

// stressQueues is the topic's queue count: mqtest.Senders sends round robin to queues 0..3.
const stressQueues = 4

// TestStressConsumersStartAndStop: five push consumers of one clustering group start and stop
// at random (seeded: the seed is logged; STRESS_SEED replays it) while two senders write to the
// topic's four queues; then the churn stops with at least one member left. No message
// acknowledged to a sender is lost; every queue ends owned by exactly one live member; and
// once the group is stable, new messages arrive exactly once.
//
// Duplicates are what at-least-once allows: counted, and at most clienttest's
// Churn.DuplicateBound (a queue that changes owner replays at most what its previous owner had
// pulled and not yet committed).
//
// The default run churns a few seconds; -stress 60s (go test ./mq/client/consumer -run
// Stress -stress 60s) or STRESS=60s runs the long version.
func TestStressConsumersStartAndStop(t *testing.T) {
	d := clienttest.StressDuration(t, 3*time.Second)
	rng := clienttest.StressRand(t)
	c := startCluster(t, "")
	topic := "T_" + clienttest.Name(t)
	createTopic(t, c, topic, stressQueues)
	group := "cg_" + clienttest.Name(t)

	var got clienttest.Deliveries
	members := make([]*DefaultMQPushConsumer, clienttest.StressMembers)
	next := 0
	churn := clienttest.NewChurn(clienttest.StressMembers, func(slot int) func() {
		next++
		id := next
		cfg := consumerConfig(t, c, group)
		cfg.PullBatchSize = clienttest.StressPullBatchSize
		cfg.PullThresholdForQueue = clienttest.StressPullThresholdForQueue
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
	bound := churn.DuplicateBound(stressQueues)
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
