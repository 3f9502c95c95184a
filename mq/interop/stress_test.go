package interop

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	ourconsumer "github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// mixedQueues is the topic's queue count: mqtest.Senders sends round robin to queues 0..3.
const mixedQueues = 4

// TestStressMixedConsumersStartAndStop is the consumer stress run with both clients in one
// group: the even slots run our push consumer, the odd ones the official Go client's, all
// started and stopped at random (the seed is logged; STRESS_SEED replays it) while two senders
// write. Both clients allocate with AllocateMessageQueueAveragely over the broker's sorted
// consumer id list and rebalance on NOTIFY_CONSUMER_IDS_CHANGED, so they share the queues
// without overlap. No acknowledged message is lost; duplicates stay within at-least-once's
// bound (clienttest's Churn.DuplicateBound: a queue that changes owner replays at most what
// its previous owner had pulled and not committed); and once the group is stable each queue's messages go to
// exactly one live member, each message once — which is how the test sees that every queue
// has exactly one owner, since it cannot look into the official client.
//
// Slave reads are not exercised here: the official client cannot pull from a slave while its
// master is down (its route handling); ch06-rebalance's exercises test that with our client.
//
// -stress 60s (go test ./mq/interop -run Stress -stress 60s) or STRESS=60s runs the long version.
func TestStressMixedConsumersStartAndStop(t *testing.T) {
	d := clienttest.StressDuration(t, 3*time.Second)
	rng := clienttest.StressRand(t)
	c := clienttest.StartCluster(t, 1, nil)
	topic := "InteropStress_" + fmt.Sprint(instanceSeq.Add(1))
	group := "interop_stress_" + fmt.Sprint(instanceSeq.Add(1))
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	require.NoError(t, mqtest.CreateTopic(cl, c.Brokers[0].BrokerAddr(), topic, mixedQueues, protocol.PermRead|protocol.PermWrite))
	c.Brokers[0].RegisterBrokerAll()
	require.NoError(t, mqtest.WaitRouted(cl, c.NamesrvAddr(), topic, 1))

	var got clienttest.Deliveries
	var byOfficial atomic.Int64 // deliveries to the official client's members
	live := map[int]bool{}      // member ids running
	next := 0
	churn := clienttest.NewChurn(clienttest.StressMembers, func(slot int) func() {
		next++
		id := next
		live[id] = true
		var stop func()
		if slot%2 == 0 {
			stop = startOurStressMember(t, c, group, topic, func(key string) { got.Add(id, key) })
		} else {
			stop = startOfficialStressMember(t, c, group, topic, func(key string) { got.Add(id, key); byOfficial.Add(1) })
		}
		return func() { stop(); delete(live, id) }
	})
	defer churn.StopAll()

	acked := sendDuring(c, topic, "churn", func() {
		churn.Toggle(0)
		churn.Run(rng, d, 50*time.Millisecond, 400*time.Millisecond)
		for _, slot := range []int{0, 1} { // end with both clients in the group
			if !slices.Contains(churn.Running(), slot) {
				churn.Toggle(slot)
			}
		}
	})
	keys := slices.Collect(maps.Keys(acked))
	t.Logf("%d messages sent; %d members started, %d stopped; slots %v running at the end", len(keys), churn.Starts, churn.Stops, churn.Running())
	require.NotEmpty(t, keys)
	require.Eventually(t, func() bool { return got.Missing(keys) == 0 }, consumeTimeout, 20*time.Millisecond,
		"acknowledged messages never consumed")
	require.Empty(t, got.Unexpected(keys))
	require.Positive(t, byOfficial.Load(), "the official client's members consumed their share")
	dups, same := got.Duplicates()
	bound := churn.DuplicateBound(mixedQueues)
	t.Logf("duplicates: %d (%d to a member that had it already), bound %d", dups, same, bound)
	require.LessOrEqual(t, dups, bound)

	// Stable group: rounds of messages until one round shows each queue owned by exactly one
	// live member (the last rebalances may still be settling in the first); that round and
	// every message of it exactly once.
	var owners map[int32][]int
	stable := func() bool {
		round := sendDuring(c, topic, fmt.Sprintf("stable-%d", next), func() { time.Sleep(300 * time.Millisecond) })
		next++
		rk := slices.Collect(maps.Keys(round))
		if !assert.Eventually(t, func() bool { return got.Missing(rk) == 0 }, consumeTimeout, 20*time.Millisecond) {
			return false
		}
		owners = got.Owners(rk, func(k string) int32 { return round[k].QueueID })
		if len(owners) != mixedQueues {
			return false
		}
		for _, ms := range owners {
			if len(ms) != 1 || !live[ms[0]] {
				return false
			}
		}
		return true
	}
	ok := false
	for range 10 {
		if ok = stable(); ok {
			break
		}
	}
	require.True(t, ok, "queue owners (queue id → members that got its messages): %v", owners)
	before, _ := got.Duplicates()
	time.Sleep(quietWindow) // nothing more may come
	after, _ := got.Duplicates()
	require.Equal(t, before, after, "a stable group consumed a message twice")
}

// sendDuring runs two senders on topic while during runs and returns what the broker
// acknowledged, by key (prefixed with prefix).
func sendDuring(c *embedded.Cluster, topic, prefix string, during func()) map[string]mqtest.Ack {
	s := mqtest.StartSenders(mqtest.SendLoad{Addr: c.Brokers[0].BrokerAddr(), Topic: topic, Goroutines: 2,
		Key: func(g, i int) string { return fmt.Sprintf("%s-%d-%d", prefix, g, i) }, Interval: time.Millisecond})
	during()
	return s.Stop()
}

// startOurStressMember starts our push consumer of group on topic; got receives each message's key.
func startOurStressMember(t *testing.T, c *embedded.Cluster, group, topic string, got func(key string)) (stop func()) {
	cfg := ourconsumer.DefaultConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = instance(t)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.PullBatchSize = clienttest.StressPullBatchSize
	cfg.PullThresholdForQueue = clienttest.StressPullThresholdForQueue
	cons := ourconsumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	cons.RegisterMessageListener(func(msgs []*ourprim.MessageExt, _ *ourconsumer.ConsumeConcurrentlyContext) ourconsumer.ConsumeConcurrentlyStatus {
		for _, m := range msgs {
			got(m.Keys())
		}
		return ourconsumer.ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	return cons.Shutdown
}

// startOfficialStressMember starts the official client's push consumer of group on topic; got
// receives each message's key.
func startOfficialStressMember(t *testing.T, c *embedded.Cluster, group, topic string, got func(key string)) (stop func()) {
	pc := newPushConsumer(t, c.NamesrvAddr(), group, topic, consumer.MessageSelector{},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, m := range msgs {
				got(m.GetKeys())
			}
			return consumer.ConsumeSuccess, nil
		}, consumer.WithPullBatchSize(clienttest.StressPullBatchSize),
		consumer.WithPullThresholdForQueue(clienttest.StressPullThresholdForQueue))
	return func() { _ = pc.Shutdown() }
}
