package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestNameServerLoss: with its only name server down, a cluster of two brokers keeps serving
// the official producer and push consumer that already hold the topic's route (sends succeed,
// every message is consumed once); a name server started again on the same address, empty,
// has both brokers in the topic's route within one registration interval
// (registerNameServerPeriod), and the clients go on. Java: the client's route cache
// (MQClientInstance#topicRouteTable) outlives name-server failures, and
// BrokerController's periodic registerBrokerAll refills a restarted name server.
func TestNameServerLoss(t *testing.T) {
	t.Parallel()
	const period = 2 * time.Second
	c := mqtest.StartCluster(t, embedded.Config{Brokers: 2, Customize: func(_ int, bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		bc.RegisterNameServerPeriod = period
	}})
	nsAddr := c.NamesrvAddr()
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	const topic = "NsLoss"
	for _, b := range c.Brokers {
		require.NoError(t, mqtest.CreateTopic(cl, b.BrokerAddr(), topic, 2, protocol.PermRead|protocol.PermWrite))
	}
	require.NoError(t, mqtest.WaitRouted(cl, nsAddr, topic, 2))

	p := newProducer(t, nsAddr, "nsloss-producer")
	col, _ := startPushConsumer(t, nsAddr, "nsloss-consumer", topic, consumer.MessageSelector{})
	var want []string
	brokersUsed := map[string]bool{}
	send := func(phase string, n int) {
		for i := range n {
			body := fmt.Sprintf("%s-%d", phase, i)
			res := sendSync(t, p, primitive.NewMessage(topic, []byte(body)))
			brokersUsed[res.MessageQueue.BrokerName] = true
			want = append(want, body)
		}
	}
	send("before", 8)
	require.Eventually(t, func() bool { return col.has(want) }, consumeTimeout, 20*time.Millisecond)

	c.Namesrv.Shutdown()
	_, err := mqtest.QueryRoute(cl, nsAddr, topic)
	require.Error(t, err, "the name server is down")
	send("without-namesrv", 16)
	require.Len(t, brokersUsed, 2, "sends went to both brokers")
	require.Eventually(t, func() bool { return col.has(want) }, consumeTimeout, 20*time.Millisecond,
		"consumed while no name server runs")

	ns, err := embedded.StartNamesrv(t.TempDir(), nsAddr, trace.New(nil, "namesrv"), nil)
	require.NoError(t, err)
	c.Namesrv = ns // the cluster's shutdown stops it
	started := time.Now()
	require.NoError(t, mqtest.WaitUntil(period+time.Second, func() bool {
		route, err := mqtest.QueryRoute(cl, nsAddr, topic)
		return err == nil && len(route.BrokerDatas) == 2
	}), "both brokers back in the route within one registration interval (%v)", period)
	t.Logf("both brokers routed %v after the name server came back", time.Since(started))

	send("after", 8)
	requireExactlyOnce(t, expectation{name: "push consumer", col: col, want: want})
}
