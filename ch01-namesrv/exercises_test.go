package main

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// cluster2 is a name server with a hand-driven clock and two registered masters, broker-a and
// broker-b, as in the chapter; logger may be nil (no trace).
type cluster2 struct {
	ns      *namesrv.NamesrvController
	clk     *clock.Manual
	a, b    *broker.BrokerController
	client  *remoting.Client
	started time.Time
}

func startCluster2(t *testing.T, logger *slog.Logger) *cluster2 {
	t.Helper()
	dir := t.TempDir()
	c := &cluster2{clk: clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))}
	c.started = c.clk.Now()
	ns, err := startNamesrv(dir, logger, c.clk)
	require.NoError(t, err)
	t.Cleanup(ns.Shutdown)
	c.ns = ns
	for _, name := range []string{"broker-a", "broker-b"} {
		b, err := startBroker(name, ns.Addr(), dir, logger)
		require.NoError(t, err)
		t.Cleanup(b.Shutdown)
		if c.a == nil {
			c.a = b
		} else {
			c.b = b
		}
	}
	c.client = remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c.client.Shutdown)
	return c
}

func outerAPI(t *testing.T, nsAddr string) *broker.BrokerOuterAPI {
	api := broker.NewBrokerOuterAPI(remoting.ClientConfig{}, nil)
	api.UpdateNameServerAddressList([]string{nsAddr})
	t.Cleanup(api.Shutdown)
	return api
}

// TestExercise1_RouteListsEveryBrokerWithItsQueues asks: after a topic is created with 4 queues
// on broker-a and 8 read-only queues on broker-b, what does a producer get from the name server?
// It proves that the route holds one QueueData per broker with that broker's own queue counts
// and permission, and one BrokerData per broker whose master (id 0) is the broker's address:
// RouteInfoManager#pickupTopicRouteData joins topicQueueTable with brokerAddrTable.
func TestExercise1_RouteListsEveryBrokerWithItsQueues(t *testing.T) {
	c := startCluster2(t, nil)
	require.NoError(t, mqtest.CreateTopic(c.client, c.a.BrokerAddr(), "Ex1", 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, mqtest.CreateTopic(c.client, c.b.BrokerAddr(), "Ex1", 8, protocol.PermRead))

	route, err := mqtest.QueryRoute(c.client, c.ns.Addr(), "Ex1")
	require.NoError(t, err)
	require.Equal(t, []*protocol.QueueData{
		{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
		{BrokerName: "broker-b", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 4},
	}, route.QueueDatas)
	require.Len(t, route.BrokerDatas, 2)
	for i, b := range []*broker.BrokerController{c.a, c.b} {
		require.Equal(t, cluster, route.BrokerDatas[i].Cluster)
		require.Equal(t, map[int64]string{0: b.BrokerAddr()}, route.BrokerDatas[i].BrokerAddrs)
	}
}

// TestExercise2_SlaveLearnsItsMastersHAAddress asks: how does a slave find the master it must
// replicate from? It proves that REGISTER_BROKER from brokerId 1 under broker-a's name is
// answered with broker-a's HA address and broker address (RouteInfoManager#registerBroker), that
// a master's own registration learns nothing, and that the route then lists both ids.
func TestExercise2_SlaveLearnsItsMastersHAAddress(t *testing.T) {
	c := startCluster2(t, nil)
	api := outerAPI(t, c.ns.Addr())
	w := protocol.TopicConfigSerializeWrapper{DataVersion: protocol.DataVersion{Counter: 1, Timestamp: 1}}
	res := api.RegisterBrokerAll(cluster, "127.0.0.1:20911", "broker-a", 1, "127.0.0.1:20912", w, 3*time.Second)
	require.Len(t, res, 1)
	require.Equal(t, c.a.HAServerAddr(), res[0].HaServerAddr)
	require.Equal(t, c.a.BrokerAddr(), res[0].MasterAddr)

	res = api.RegisterBrokerAll(cluster, "127.0.0.1:30911", "broker-x", 0, "127.0.0.1:30912", w, 3*time.Second)
	require.Len(t, res, 1)
	require.Empty(t, res[0].MasterAddr, "a master has no master")
	require.Empty(t, res[0].HaServerAddr)

	route, err := mqtest.QueryRoute(c.client, c.ns.Addr(), "broker-a") // every broker carries its own name as a topic
	require.NoError(t, err)
	require.Equal(t, map[int64]string{0: c.a.BrokerAddr(), 1: "127.0.0.1:20911"}, route.BrokerDatas[0].BrokerAddrs)
}

// TestExercise3_UnchangedDataVersionKeepsQueueData asks: a broker re-registers every 30 s with
// its whole topic table — does the name server rebuild the routes each time? It proves that
// queue data are rebuilt only when the DataVersion differs from the registered one: a topic
// added under the same DataVersion is not routed; once the counter moves, it is
// (RouteInfoManager#isBrokerTopicConfigChanged).
func TestExercise3_UnchangedDataVersionKeepsQueueData(t *testing.T) {
	c := startCluster2(t, nil)
	api := outerAPI(t, c.ns.Addr())
	table := map[string]*protocol.TopicConfig{"Old": {TopicName: "Old", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6}}
	register := func(counter int64) {
		w := protocol.TopicConfigSerializeWrapper{DataVersion: protocol.DataVersion{Counter: counter, Timestamp: 1700000000000},
			TopicConfigTable: table}
		require.Len(t, api.RegisterBrokerAll(cluster, "127.0.0.1:40911", "broker-y", 0, "127.0.0.1:40912", w, 3*time.Second), 1)
	}
	register(1)
	table["New"] = &protocol.TopicConfig{TopicName: "New", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}
	register(1)
	_, err := mqtest.QueryRoute(c.client, c.ns.Addr(), "New")
	var re *remoting.RemoteError
	require.ErrorAs(t, err, &re)
	require.EqualValues(t, protocol.TopicNotExist, re.Code, "same DataVersion: the table was not read again")
	register(2)
	route, err := mqtest.QueryRoute(c.client, c.ns.Addr(), "New")
	require.NoError(t, err)
	require.Equal(t, "broker-y", route.QueueDatas[0].BrokerName)
}

// TestExercise4_ExpiredBrokerLeavesEveryTable asks: what is left of a broker the expiry scan
// removed? It proves that after broker-a is silent for more than 120 s (while broker-b's
// heartbeat came 21 s ago) it is gone from brokerAddrTable, clusterAddrTable, topicQueueTable
// (its own topic disappears, a shared topic keeps only broker-b) and brokerLiveTable (a
// QUERY_DATA_VERSION for it finds nothing), and that broker-b stays
// (RouteInfoManager#scanNotActiveBroker → #onChannelDestroy).
func TestExercise4_ExpiredBrokerLeavesEveryTable(t *testing.T) {
	c := startCluster2(t, nil)
	for _, b := range []*broker.BrokerController{c.a, c.b} {
		require.NoError(t, mqtest.CreateTopic(c.client, b.BrokerAddr(), "Shared", 4, 6))
	}
	c.a.BrokerOuterAPI().UpdateNameServerAddressList(nil)
	c.clk.Advance(100 * time.Second)
	c.b.RegisterBrokerAll()
	c.clk.Advance(21 * time.Second)
	require.Equal(t, 1, c.ns.RouteInfoManager.ScanNotActiveBroker())

	ci := c.ns.RouteInfoManager.GetAllClusterInfo()
	require.NotContains(t, ci.BrokerAddrTable, "broker-a")
	require.Contains(t, ci.BrokerAddrTable, "broker-b")
	require.Equal(t, []string{"broker-b"}, ci.ClusterAddrTable[cluster])
	require.NotContains(t, c.ns.RouteInfoManager.GetAllTopicList(), "broker-a")
	route, err := mqtest.QueryRoute(c.client, c.ns.Addr(), "Shared")
	require.NoError(t, err)
	require.Len(t, route.QueueDatas, 1)
	require.Equal(t, "broker-b", route.QueueDatas[0].BrokerName)
	_, live := c.ns.RouteInfoManager.QueryBrokerTopicConfig(c.a.BrokerAddr())
	require.False(t, live, "no live entry left")
	require.Zero(t, c.ns.RouteInfoManager.ScanNotActiveBroker(), "broker-b is 21 s fresh")
}

// TestExercise5_QueryDataVersionInsteadOfRegistering asks: with forceRegister=false, how does
// a broker keep alive without sending its whole topic table? It proves that QUERY_DATA_VERSION
// with the registered DataVersion answers "unchanged" (no registration needed) and refreshes the
// broker's liveness, while a moved DataVersion answers "changed" and does NOT refresh it (the
// broker must register instead): broker-a, queried "unchanged" at 100 s and "changed" at 110 s,
// survives the scan at 130 s and expires at 225 s — 125 s after the unchanged query, only 115 s
// after the changed one (BrokerOuterAPI#needRegister, DefaultRequestProcessor#queryBrokerTopicConfig).
func TestExercise5_QueryDataVersionInsteadOfRegistering(t *testing.T) {
	c := startCluster2(t, nil)
	c.a.BrokerOuterAPI().UpdateNameServerAddressList(nil) // broker-a's own service stays out of the way
	api := outerAPI(t, c.ns.Addr())
	dv := c.a.TopicConfigManager().DataVersion()
	moved := dv
	moved.Counter++
	c.clk.Advance(100 * time.Second)
	require.False(t, api.NeedRegister(cluster, c.a.BrokerAddr(), "broker-a", 0, dv, 3*time.Second))
	c.clk.Advance(10 * time.Second)
	require.True(t, api.NeedRegister(cluster, c.a.BrokerAddr(), "broker-a", 0, moved, 3*time.Second))

	c.clk.Advance(20 * time.Second) // 130 s after broker-a's and broker-b's last registration
	require.Equal(t, 1, c.ns.RouteInfoManager.ScanNotActiveBroker(), "only broker-b expires")
	require.True(t, registered(c.ns, "broker-a"), "the unchanged query counted as a heartbeat")
	require.False(t, registered(c.ns, "broker-b"))

	c.clk.Advance(95 * time.Second) // 225 s: 125 s after the unchanged query, 115 s after the changed one
	require.Equal(t, 1, c.ns.RouteInfoManager.ScanNotActiveBroker(), "the changed query was no heartbeat")
	require.False(t, registered(c.ns, "broker-a"))
}

// TestExercise6_ClosedChannelIsForgottenAtOnce asks: must the name server wait 120 s to forget a
// broker that crashed? It proves that when the broker's connection closes, the broker is removed
// with no time passing and no scan: BrokerHousekeepingService hands the close event to
// RouteInfoManager#onChannelDestroy, and the trace shows that step without any
// scanNotActiveBroker step.
func TestExercise6_ClosedChannelIsForgottenAtOnce(t *testing.T) {
	rec := trace.NewRecorder()
	c := startCluster2(t, slog.New(rec))
	c.b.BrokerOuterAPI().CloseNameServerChannels()
	c.b.BrokerOuterAPI().UpdateNameServerAddressList(nil)
	require.Eventually(t, func() bool { return !registered(c.ns, "broker-b") }, 5*time.Second, 2*time.Millisecond)
	require.Equal(t, c.started, c.clk.Now(), "no time passed on the name server's clock")
	require.True(t, registered(c.ns, "broker-a"))
	labels := rec.Labels()
	require.Contains(t, labels, "RouteInfoManager#onChannelDestroy")
	require.NotContains(t, labels, "RouteInfoManager#scanNotActiveBroker")
}
