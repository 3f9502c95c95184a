package interop

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	goprimitive "github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// The official Go client's orderly consumer (WithConsumerOrder(true)) against our broker: it
// locks its queues with LOCK_BATCH_MQ before consuming them (without the broker's lock it
// consumes nothing), and when a third member joins mid-way and the first leaves, the queues
// move between members through UNLOCK_BATCH_MQ (a leaving client unlocks all) and lock expiry
// (the official client does not unlock a queue it gives up: its
// removeUnnecessaryMessageQueue has a TODO there; the broker's expiry is shortened to 3 s and
// the client renews every second). 1,000 orders × 4 steps, sent by our producer with
// SelectMessageQueueByHash, are each observed in order by whichever consumer got them
// (clienttest.OrderLedger: a redelivery is allowed, a step before its predecessor is not).
func TestOfficialOrderlyConsumerKeepsOrderAcrossJoinAndLeave(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	c.Brokers[0].RebalanceLockManager().SetLockMaxLiveTime(3 * time.Second)
	ns := c.NamesrvAddr()
	const topic, group = "OrderlyInteropTopic", "orderly-interop-group"

	p := startOurProducer(t, ns, "orderly-interop-producer")
	orders := make([]int, 1000)
	for i := range orders {
		orders[i] = 5000 + i
	}
	send := func(steps ...int) {
		for _, s := range steps {
			for _, o := range orders {
				m := &primitive.Message{Topic: topic, Body: []byte(strconv.Itoa(o) + "/" + strconv.Itoa(s))}
				_, err := p.SendWithSelector(context.Background(), m, producer.SelectMessageQueueByHash{}, o)
				require.NoError(t, err)
			}
		}
	}
	send(0, 1)

	var ledger clienttest.OrderLedger
	start := func(name string) rocketmq.PushConsumer {
		return newPushConsumer(t, ns, group, topic, consumer.MessageSelector{},
			func(ctx context.Context, msgs ...*goprimitive.MessageExt) (consumer.ConsumeResult, error) {
				if _, ok := goprimitive.GetOrderlyCtx(ctx); !ok {
					t.Errorf("%s: not an orderly delivery", name)
				}
				for _, m := range msgs {
					o, s, _ := strings.Cut(string(m.Body), "/")
					oi, _ := strconv.Atoi(o)
					si, _ := strconv.Atoi(s)
					ledger.Observe(name, oi, si)
				}
				return consumer.ConsumeSuccess, nil
			}, consumer.WithConsumerOrder(true), consumer.WithRebalanceLockInterval(time.Second))
	}
	c1 := start("c1")
	start("c2")
	require.Eventually(t, func() bool { return ledger.Complete(orders, 2) }, 2*consumeTimeout, 50*time.Millisecond,
		"the official orderly consumers never consumed create and pay of every order")
	start("c3")
	send(2)
	require.Eventually(t, func() bool { return ledger.Complete(orders, 3) }, 2*consumeTimeout, 50*time.Millisecond,
		"not every order's ship was consumed after c3 joined")
	require.NoError(t, c1.Shutdown()) // it unlocks its queues (unlockAll) and leaves the group
	send(3)
	require.Eventually(t, func() bool { return ledger.Complete(orders, 4) }, 2*consumeTimeout, 50*time.Millisecond,
		"not every order's finish was consumed after c1 left")
	require.Empty(t, ledger.Violations())
	owners := map[string]bool{}
	for q := int32(0); q < 4; q++ {
		mq := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: q}
		owners[c.Brokers[0].RebalanceLockManager().Owner(group, mq)] = true
	}
	require.NotContains(t, owners, "", "every queue is locked by a member")
}
