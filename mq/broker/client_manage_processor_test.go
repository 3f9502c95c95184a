package broker

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// consumerList asks GET_CONSUMER_LIST_BY_GROUP and decodes the list.
func (tb *testBroker) consumerList(t *testing.T, group string) (*remoting.RemotingCommand, []string) {
	t.Helper()
	h := protocol.GetConsumerListByGroupRequestHeader{ConsumerGroup: group}
	resp := tb.invoke(t, remoting.NewRequest(protocol.GetConsumerListByGroup, protocol.EncodeHeader(&h), nil))
	var body protocol.GetConsumerListByGroupResponseBody
	if len(resp.Body) > 0 {
		require.NoError(t, json.Unmarshal(resp.Body, &body))
	}
	return resp, body.ConsumerIDList
}

// TestHeartbeatRegistersConsumer pins ClientManageProcessor#heartBeat and
// ConsumerManageProcessor#getConsumerListByGroup: after a heartbeat the group's list holds the
// exact clientID; %RETRY%<group> exists with 1 queue, perm 6; the group config was
// auto-created; the producer group is registered. A group without consumers is answered
// SYSTEM_ERROR "no consumer for this group".
func TestHeartbeatRegistersConsumer(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp, ids := tb.consumerList(t, "cg")
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Equal(t, "no consumer for this group, cg", resp.Remark)
	require.Empty(t, ids)

	sub := protocol.SubscriptionData{Topic: "T", SubString: "*", SubVersion: 1, ExpressionType: "TAG"}
	require.Equal(t, int32(protocol.Success), heartbeat(t, tb.client, tb.addr, "192.0.2.2@20869", "cg", sub).Code)

	resp, ids = tb.consumerList(t, "cg")
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, []string{"192.0.2.2@20869"}, ids)

	retry := tb.b.TopicConfigManager().SelectTopicConfig("%RETRY%cg")
	require.NotNil(t, retry, "heartbeat creates %RETRY%group")
	require.Equal(t, int32(1), retry.ReadQueueNums)
	require.Equal(t, int32(1), retry.WriteQueueNums)
	require.Equal(t, int32(6), retry.Perm)

	sgc := tb.b.SubscriptionGroupManager().FindSubscriptionGroupConfig("cg")
	require.NotNil(t, sgc)
	require.Equal(t, int32(1), sgc.RetryQueueNums)
	require.Equal(t, int32(16), sgc.RetryMaxTimes)
	require.Equal(t, 1, tb.b.ProducerManager().GroupChannelCount("pg-cg"))

	gi := tb.b.ConsumerManager().GetConsumerGroupInfo("cg")
	require.NotNil(t, gi)
	require.Equal(t, "CONSUME_PASSIVELY", gi.ConsumeType)
	require.Equal(t, "CLUSTERING", gi.MessageModel)
	require.Equal(t, "CONSUME_FROM_LAST_OFFSET", gi.ConsumeFromWhere)
	_, ok := gi.FindSubscriptionData("T")
	require.True(t, ok)
}

// TestHeartbeatBadBody: an undecodable heartbeat is SYSTEM_ERROR with a remark.
func TestHeartbeatBadBody(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp := tb.invoke(t, remoting.NewRequest(protocol.HeartBeat, nil, []byte("{not json")))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "heartbeat")
}

// notifyRecorder records NOTIFY_CONSUMER_IDS_CHANGED requests a client receives.
type notifyRecorder struct {
	mu     sync.Mutex
	groups []string
}

func (n *notifyRecorder) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	n.mu.Lock()
	n.groups = append(n.groups, req.ExtFields["consumerGroup"])
	n.mu.Unlock()
	return nil, nil // client-go answers nothing
}
func (n *notifyRecorder) RejectRequest() bool { return false }
func (n *notifyRecorder) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.groups)
}

// TestConsumerIdsChangedAndChannelClose pins ConsumerManager#registerConsumer with
// DefaultConsumerIdsChangeListener (a new channel in the group sends NOTIFY_CONSUMER_IDS_CHANGED
// to every channel of the group, not on unchanged heartbeats) and
// ClientHousekeepingService → ConsumerManager#doChannelCloseEvent (a closed connection leaves
// the group; the others are notified).
func TestConsumerIdsChangedAndChannelClose(t *testing.T) {
	tb := startTestBroker(t, nil)
	sub := protocol.SubscriptionData{Topic: "T", SubString: "*", SubVersion: 1, ExpressionType: "TAG"}

	rec1 := &notifyRecorder{}
	c1 := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c1.Shutdown)
	c1.RegisterProcessor(protocol.NotifyConsumerIdsChanged, rec1)
	heartbeat(t, c1, tb.addr, "10.0.0.1@1", "cg", sub)
	require.Eventually(t, func() bool { return rec1.count() == 1 }, 5*time.Second, 5*time.Millisecond,
		"a new consumer changes the group")
	heartbeat(t, c1, tb.addr, "10.0.0.1@1", "cg", sub)

	c2 := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c2.Shutdown)
	heartbeat(t, c2, tb.addr, "10.0.0.2@2", "cg", sub)
	require.Eventually(t, func() bool { return rec1.count() == 2 }, 5*time.Second, 5*time.Millisecond,
		"the second consumer's arrival is notified to the first; the repeated heartbeat was not")
	_, ids := tb.consumerList(t, "cg")
	require.Equal(t, []string{"10.0.0.1@1", "10.0.0.2@2"}, ids)

	c2.CloseChannel(tb.addr)
	require.Eventually(t, func() bool {
		gi := tb.b.ConsumerManager().GetConsumerGroupInfo("cg")
		return gi != nil && len(gi.ChannelInfoTable) == 1
	}, 5*time.Second, 5*time.Millisecond, "a closed channel leaves the group")
	require.Eventually(t, func() bool { return rec1.count() == 3 }, 5*time.Second, 5*time.Millisecond,
		"the remaining consumer is notified")

	c1.CloseChannel(tb.addr)
	require.Eventually(t, func() bool { return tb.b.ConsumerManager().GetConsumerGroupInfo("cg") == nil },
		5*time.Second, 5*time.Millisecond, "a group without channels is removed")
	require.Eventually(t, func() bool { return tb.b.ProducerManager().GroupChannelCount("pg-cg") == 0 },
		5*time.Second, 5*time.Millisecond, "producers leave with the channel too")
}

// TestUnregisterClient pins ClientManageProcessor#unregisterClient.
func TestUnregisterClient(t *testing.T) {
	tb := startTestBroker(t, nil)
	heartbeat(t, tb.client, tb.addr, "10.0.0.1@1", "cg")
	h := protocol.UnregisterClientRequestHeader{ClientID: "10.0.0.1@1", ConsumerGroup: "cg", ProducerGroup: "pg-cg"}
	resp := tb.invoke(t, remoting.NewRequest(protocol.UnregisterClient, protocol.EncodeHeader(&h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Nil(t, tb.b.ConsumerManager().GetConsumerGroupInfo("cg"))
	require.Equal(t, 0, tb.b.ProducerManager().GroupChannelCount("pg-cg"))
}

// TestScanNotActiveChannel pins ClientHousekeepingService#scanExceptionChannel: a channel not
// refreshed within channelExpiredTimeout is closed and removed.
func TestScanNotActiveChannel(t *testing.T) {
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	tb := startTestBrokerOn(t, clk, nil, func(c *BrokerConfig, _ storeSetup) {
		c.ClientHousekeepingInterval = time.Hour // driven by hand below
	})
	heartbeat(t, tb.client, tb.addr, "10.0.0.1@1", "cg")
	tb.b.ClientHousekeepingService().ScanExceptionChannel()
	require.NotNil(t, tb.b.ConsumerManager().GetConsumerGroupInfo("cg"), "fresh channel kept")
	require.Equal(t, 1, tb.b.ProducerManager().GroupChannelCount("pg-cg"))
	clk.Advance(121 * time.Second) // past the 120 s expiry, on the broker's clock
	tb.b.ClientHousekeepingService().ScanExceptionChannel()
	require.Nil(t, tb.b.ConsumerManager().GetConsumerGroupInfo("cg"))
	require.Equal(t, 0, tb.b.ProducerManager().GroupChannelCount("pg-cg"))
}
