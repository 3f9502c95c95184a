package broker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// notifiedClient is a client connection to tb that records the NOTIFY_CONSUMER_IDS_CHANGED it gets.
func notifiedClient(t *testing.T) (*remoting.Client, *notifyRecorder) {
	t.Helper()
	rec := &notifyRecorder{}
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c.Shutdown)
	c.RegisterProcessor(protocol.NotifyConsumerIdsChanged, rec)
	return c, rec
}

// TestUpdateSubscriptionChangesTheGroup pins ConsumerGroupInfo#updateSubscription as
// ConsumerManager#registerConsumer counts it: a heartbeat that adds a topic, or drops one, is a
// change (the group is notified); one that only carries a newer subVersion of the same topics
// replaces the subscription without a notification.
func TestUpdateSubscriptionChangesTheGroup(t *testing.T) {
	tb := startTestBroker(t, nil)
	c, rec := notifiedClient(t)
	t1 := protocol.SubscriptionData{Topic: "T1", SubString: "*", SubVersion: 1, ExpressionType: "TAG"}
	t2 := protocol.SubscriptionData{Topic: "T2", SubString: "*", SubVersion: 1, ExpressionType: "TAG"}
	notified := func(n int, why string) {
		t.Helper()
		require.Eventually(t, func() bool { return rec.count() == n }, 5*time.Second, 5*time.Millisecond, why)
	}

	heartbeat(t, c, tb.addr, "10.0.0.1@1", "cg", t1)
	notified(1, "a new channel is a change")
	heartbeat(t, c, tb.addr, "10.0.0.1@1", "cg", t1, t2)
	notified(2, "a topic added is a change")
	newer := t1
	newer.SubVersion, newer.SubString = 2, "TagA"
	heartbeat(t, c, tb.addr, "10.0.0.1@1", "cg", newer, t2)
	sd, ok := tb.b.ConsumerManager().FindSubscriptionData("cg", "T1")
	require.True(t, ok)
	require.Equal(t, int64(2), sd.SubVersion, "a newer subVersion replaces the subscription")
	require.Equal(t, "TagA", sd.SubString)
	older := t1 // an older version does not go back
	heartbeat(t, c, tb.addr, "10.0.0.1@1", "cg", older, t2)
	sd, _ = tb.b.ConsumerManager().FindSubscriptionData("cg", "T1")
	require.Equal(t, int64(2), sd.SubVersion, "an older subVersion is ignored")
	heartbeat(t, c, tb.addr, "10.0.0.1@1", "cg", t2)
	notified(3, "a topic dropped is a change; the version bumps before it were not")
	_, ok = tb.b.ConsumerManager().FindSubscriptionData("cg", "T1")
	require.False(t, ok, "the dropped topic's subscription is gone")
}

// TestNotifyConsumerIdsChangedEnableOff: with the group's notifyConsumerIdsChangedEnable off,
// a new member is registered but nobody is told (ConsumerManager#registerConsumer's flag).
func TestNotifyConsumerIdsChangedEnableOff(t *testing.T) {
	tb := startTestBroker(t, nil)
	sgc := NewSubscriptionGroupConfig("cg")
	sgc.NotifyConsumerIdsChangedEnable = false
	tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(sgc)
	c1, rec1 := notifiedClient(t)
	c2, _ := notifiedClient(t)
	heartbeat(t, c1, tb.addr, "10.0.0.1@1", "cg")
	heartbeat(t, c2, tb.addr, "10.0.0.2@2", "cg")
	_, ids := tb.consumerList(t, "cg")
	require.Equal(t, []string{"10.0.0.1@1", "10.0.0.2@2"}, ids)
	// A notification would have been written to c1's connection before c2's heartbeat was
	// answered; c1 hands it to a worker, so allow that worker a moment.
	require.Never(t, func() bool { return rec1.count() > 0 }, 200*time.Millisecond, 10*time.Millisecond, "nobody is told")
}

// TestScanNotActiveChannelAfterChannelExpiredTimeout pins ConsumerManager#scanNotActiveChannel
// and ProducerManager#scanNotActiveChannel on the broker's clock: a channel refreshed 120 s ago
// stays (the timeout is exceeded only past 120 s), one not refreshed for longer is closed and
// removed with its producer registration, the fresh one of the same group stays. (Whether the
// group is told depends on a race, as in RocketMQ: the producer scan closes the shared channel
// first, and its close event may reach the consumer table before the consumer scan does.)
func TestScanNotActiveChannelAfterChannelExpiredTimeout(t *testing.T) {
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	tb := startTestBrokerOn(t, clk, nil, func(c *BrokerConfig, _ storeSetup) {
		c.ClientHousekeepingInterval = time.Hour // driven by hand below
	})
	stale, _ := notifiedClient(t)
	fresh, rec := notifiedClient(t)

	heartbeat(t, stale, tb.addr, "10.0.0.1@1", "cg")
	heartbeat(t, fresh, tb.addr, "10.0.0.2@2", "cg")
	require.Eventually(t, func() bool { return rec.count() == 1 }, 5*time.Second, 5*time.Millisecond, "fresh's arrival")

	clk.Advance(60 * time.Second)
	heartbeat(t, fresh, tb.addr, "10.0.0.2@2", "cg")
	clk.Advance(60 * time.Second) // stale: exactly 120 s
	tb.b.ClientHousekeepingService().ScanExceptionChannel()
	_, ids := tb.consumerList(t, "cg")
	require.Equal(t, []string{"10.0.0.1@1", "10.0.0.2@2"}, ids, "120 s is not yet expired")

	clk.Advance(time.Millisecond)
	tb.b.ClientHousekeepingService().ScanExceptionChannel()
	_, ids = tb.consumerList(t, "cg")
	require.Equal(t, []string{"10.0.0.2@2"}, ids, "past 120 s the stale channel is removed, the fresh one stays")
	require.Equal(t, 1, tb.b.ProducerManager().GroupChannelCount("pg-cg"), "its producer channel too")
	require.Nil(t, tb.b.ConsumerManager().FindChannel("cg", "10.0.0.1@1"))
}
