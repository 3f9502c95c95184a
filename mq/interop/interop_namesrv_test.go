package interop

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// routeRefreshWait bounds the wait for the official client's route refresh, which runs every
// 30 s (client-go's _PullNameServerInterval, Java's pollNameServerInterval).
const routeRefreshWait = 45 * time.Second

// The official producer sends to both brokers of a topic; then broker-a stops registering and
// the name server's expiry scan removes it (RouteInfoManager#scanNotActiveBroker, 120 s on the
// name server's hand-advanced clock) while broker-a keeps running. The producer keeps sending
// to broker-a until it asks the name server again — at the latest at its periodic route refresh
// (30 s) — and from then on sends only to broker-b
// (MQClientInstance#updateTopicRouteInfoFromNameServer → TopicPublishInfo without broker-a).
// (Run alone, the refresh is the 30 s one; next to other interop tests the client sometimes
// refreshes sooner — the assertion holds either way.)
func TestOfficialProducerLeavesAnExpiredBroker(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	c := mqtest.StartCluster(t, embedded.Config{Brokers: 2, NamesrvClock: clk})
	brokerA, brokerB := c.Brokers[0], c.Brokers[1]

	const topic = "NamesrvExpiryTopic"
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(admin.Shutdown)
	for _, b := range c.Brokers {
		h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: protocol.DefaultTopic, ReadQueueNums: 4,
			WriteQueueNums: 4, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: protocol.SingleTag}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := admin.InvokeSync(ctx, b.BrokerAddr(), remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
		cancel()
		require.NoError(t, err)
		require.NoError(t, resp.Err())
	}

	p := newProducer(t, c.NamesrvAddr(), "namesrv-expiry-producer")
	sendBatch := func() map[string]int {
		by := map[string]int{}
		for i := 0; i < 16; i++ {
			res := sendSync(t, p, primitive.NewMessage(topic, []byte("m-"+strconv.Itoa(i))))
			by[res.MessageQueue.BrokerName]++
		}
		return by
	}
	before := sendBatch()
	require.Positive(t, before["broker-a"], "the route lists broker-a: %v", before)
	require.Positive(t, before["broker-b"], "the route lists broker-b: %v", before)

	// broker-a stops registering; broker-b registers 100 s later; at 121 s broker-a expires.
	brokerA.BrokerOuterAPI().UpdateNameServerAddressList(nil)
	clk.Advance(100 * time.Second)
	brokerB.RegisterBrokerAll()
	clk.Advance(21 * time.Second)
	require.Equal(t, 1, c.Namesrv.RouteInfoManager.ScanNotActiveBroker())
	route := c.Namesrv.RouteInfoManager.PickupTopicRouteData(topic)
	require.Len(t, route.QueueDatas, 1)
	require.Equal(t, "broker-b", route.QueueDatas[0].BrokerName)

	// Polled here, not in require.Eventually: sendSync may fail the test, which only the test's
	// own goroutine may do.
	deadline := time.Now().Add(routeRefreshWait)
	for last := sendBatch(); last["broker-a"] > 0; last = sendBatch() {
		require.True(t, time.Now().Before(deadline), "after %s the producer still sends to broker-a: %v", routeRefreshWait, last)
		time.Sleep(500 * time.Millisecond)
	}
	require.Equal(t, map[string]int{"broker-b": 16}, sendBatch(), "and it stays away")
}
