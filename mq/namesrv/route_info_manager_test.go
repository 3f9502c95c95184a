package namesrv

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func wrapper(counter int64, topics ...*protocol.TopicConfig) *protocol.TopicConfigSerializeWrapper {
	w := &protocol.TopicConfigSerializeWrapper{
		TopicConfigTable: map[string]*protocol.TopicConfig{},
		DataVersion:      protocol.DataVersion{Timestamp: 1700000000000, Counter: counter},
	}
	for _, tc := range topics {
		w.TopicConfigTable[tc.TopicName] = tc
	}
	return w
}

func topic(name string, queues int32, perm int32) *protocol.TopicConfig {
	return &protocol.TopicConfig{TopicName: name, ReadQueueNums: queues, WriteQueueNums: queues, Perm: perm}
}

// A master's first registration creates queue data for each of its topics, and the route names
// the master under brokerId 0 (RouteInfoManager#registerBroker, #pickupTopicRouteData).
func TestRegisterBrokerThenPickupRoute(t *testing.T) {
	r := NewRouteInfoManager(120*time.Second, nil, nil)
	res := r.RegisterBroker("DefaultCluster", "127.0.0.1:10911", "broker-a", 0, "127.0.0.1:10912",
		wrapper(1, topic("TopicTest", 4, 6), topic("TBW102", 8, 7)), nil, nil)
	require.Equal(t, RegisterBrokerResult{}, res, "a master learns no master address")

	route := r.PickupTopicRouteData("TopicTest")
	require.NotNil(t, route)
	require.Len(t, route.BrokerDatas, 1)
	require.Equal(t, map[int64]string{0: "127.0.0.1:10911"}, route.BrokerDatas[0].BrokerAddrs)
	require.Equal(t, "DefaultCluster", route.BrokerDatas[0].Cluster)
	require.Len(t, route.QueueDatas, 1)
	require.Equal(t, protocol.QueueData{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}, *route.QueueDatas[0])
	require.Nil(t, r.PickupTopicRouteData("NoSuchTopic"))
	require.Equal(t, []string{"TBW102", "TopicTest"}, r.GetAllTopicList())
}

// Topic configs are re-read only when the DataVersion changed (isBrokerTopicConfigChanged).
func TestTopicConfigUpdatedOnlyWhenDataVersionChanges(t *testing.T) {
	r := NewRouteInfoManager(120*time.Second, nil, nil)
	r.RegisterBroker("c", "127.0.0.1:10911", "b", 0, "", wrapper(1, topic("T", 4, 6)), nil, nil)
	r.RegisterBroker("c", "127.0.0.1:10911", "b", 0, "", wrapper(1, topic("T", 4, 6), topic("U", 2, 6)), nil, nil)
	require.Nil(t, r.PickupTopicRouteData("U"), "same dataVersion: new topic must not be read")
	r.RegisterBroker("c", "127.0.0.1:10911", "b", 0, "", wrapper(2, topic("T", 4, 6), topic("U", 2, 6)), nil, nil)
	require.NotNil(t, r.PickupTopicRouteData("U"))
}

// A slave (brokerId > 0) is told its master's address and HA address; its topics are not used.
func TestSlaveLearnsMaster(t *testing.T) {
	r := NewRouteInfoManager(120*time.Second, nil, nil)
	r.RegisterBroker("c", "10.0.0.1:10911", "b", 0, "10.0.0.1:10912", wrapper(1, topic("T", 4, 6)), nil, nil)
	res := r.RegisterBroker("c", "10.0.0.2:10911", "b", 1, "10.0.0.2:10912", wrapper(1, topic("S", 1, 6)), nil, nil)
	require.Equal(t, RegisterBrokerResult{HaServerAddr: "10.0.0.1:10912", MasterAddr: "10.0.0.1:10911"}, res)
	require.Nil(t, r.PickupTopicRouteData("S"), "queue data come only from a master")
	route := r.PickupTopicRouteData("T")
	require.Equal(t, map[int64]string{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}, route.BrokerDatas[0].BrokerAddrs)
}

// A broker silent for longer than the expiry is removed with its routes; a fresh one stays
// (RouteInfoManager#scanNotActiveBroker, BROKER_CHANNEL_EXPIRED_TIME).
func TestScanNotActiveBrokerExpires(t *testing.T) {
	clk := clock.NewManual(time.Unix(1000, 0))
	r := NewRouteInfoManager(120*time.Second, clk, nil)
	r.RegisterBroker("c", "10.0.0.1:10911", "a", 0, "", wrapper(1, topic("T", 4, 6)), nil, nil)
	clk.Advance(100 * time.Second)
	r.RegisterBroker("c", "10.0.0.2:10911", "b", 0, "", wrapper(1, topic("T", 4, 6)), nil, nil)
	clk.Advance(21 * time.Second)
	require.Equal(t, 1, r.ScanNotActiveBroker())
	route := r.PickupTopicRouteData("T")
	require.Len(t, route.BrokerDatas, 1)
	require.Equal(t, "b", route.BrokerDatas[0].BrokerName)
	require.Equal(t, map[string][]string{"c": {"b"}}, r.GetAllClusterInfo().ClusterAddrTable)
	clk.Advance(100 * time.Second)
	require.Equal(t, 1, r.ScanNotActiveBroker())
	require.Nil(t, r.PickupTopicRouteData("T"), "a topic left without queue data disappears")
	require.Empty(t, r.GetAllClusterInfo().ClusterAddrTable)
}

// Unregistering the only address of a broker name removes its queue data
// (RouteInfoManager#unregisterBroker).
func TestUnregisterBroker(t *testing.T) {
	r := NewRouteInfoManager(120*time.Second, nil, nil)
	r.RegisterBroker("c", "10.0.0.1:10911", "a", 0, "", wrapper(1, topic("T", 4, 6)), nil, nil)
	r.UnregisterBroker("c", "10.0.0.1:10911", "a", 0)
	require.Nil(t, r.PickupTopicRouteData("T"))
	require.Empty(t, r.GetAllClusterInfo().BrokerAddrTable)
}
