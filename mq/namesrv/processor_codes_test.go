package namesrv

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// startNamesrvWith starts a name server on loopback with its KV file in a temp dir; adjust
// may change the config first.
func startNamesrvWith(t *testing.T, tr *trace.Tracer, adjust func(*NamesrvConfig), opts ...Option) *NamesrvController {
	t.Helper()
	cfg := DefaultNamesrvConfig()
	cfg.KvConfigPath = filepath.Join(t.TempDir(), "namesrv", "kvConfig.json")
	if adjust != nil {
		adjust(&cfg)
	}
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = "127.0.0.1:0"
	c := NewNamesrvController(cfg, sc, tr, opts...)
	require.NoError(t, Start(c))
	t.Cleanup(c.Shutdown)
	return c
}

func newClient(t *testing.T) *remoting.Client {
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	return cl
}

// registerAs sends REGISTER_BROKER for a master or slave of brokerName carrying topics under
// DataVersion{counter, timestamp 1700000000000}.
func registerAs(t *testing.T, cl *remoting.Client, ns, cluster, brokerName, brokerAddr string, id int64,
	counter int64, topics ...*protocol.TopicConfig) *remoting.RemotingCommand {
	t.Helper()
	body, err := (&protocol.RegisterBrokerBody{TopicConfigSerializeWrapper: *wrapper(counter, topics...)}).Encode(false)
	require.NoError(t, err)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: brokerName, BrokerAddr: brokerAddr, ClusterName: cluster,
		HaServerAddr: brokerAddr + "1", BrokerID: id, BodyCrc32: int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)}
	resp := call(t, cl, ns, remoting.NewRequest(protocol.RegisterBroker, protocol.EncodeHeader(&h), body))
	require.EqualValues(t, remoting.Success, resp.Code, resp.Remark)
	return resp
}

func queryDataVersion(t *testing.T, cl *remoting.Client, ns, brokerAddr string, dv protocol.DataVersion) *remoting.RemotingCommand {
	t.Helper()
	h := protocol.QueryDataVersionRequestHeader{BrokerName: "broker-a", BrokerAddr: brokerAddr, ClusterName: "DefaultCluster"}
	return call(t, cl, ns, remoting.NewRequest(protocol.QueryDataVersion, protocol.EncodeHeader(&h), dv.Encode()))
}

// QUERY_DATA_VERSION (322): changed=true and no body for an unknown broker; for a registered
// one, changed says whether the sent DataVersion differs from the registered one, and the body
// is the registered DataVersion JSON. Only an unchanged answer refreshes liveness, so a broker
// that keeps asking with an unchanged version is not expired (DefaultRequestProcessor#queryBrokerTopicConfig,
// RouteInfoManager#updateBrokerInfoUpdateTimestamp).
func TestQueryDataVersion(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	c := startNamesrvWith(t, nil, nil, WithClock(clk))
	cl := newClient(t)
	registered := protocol.DataVersion{Timestamp: 1700000000000, Counter: 5}

	resp := queryDataVersion(t, cl, c.Addr(), "127.0.0.1:10911", registered)
	require.EqualValues(t, remoting.Success, resp.Code)
	require.Equal(t, map[string]string{"changed": "true"}, resp.ExtFields)
	require.Empty(t, resp.Body, "unknown broker: no stored DataVersion")

	// Each broker on its own connection: closing an expired broker's channel removes every
	// broker registered over it.
	registerAs(t, cl, c.Addr(), "DefaultCluster", "broker-a", "127.0.0.1:10911", 0, 5, topic("T", 4, 6))
	registerAs(t, newClient(t), c.Addr(), "DefaultCluster", "broker-b", "127.0.0.1:10921", 0, 1, topic("T", 4, 6))

	clk.Advance(100 * time.Second)
	resp = queryDataVersion(t, cl, c.Addr(), "127.0.0.1:10911", registered)
	require.Equal(t, "false", resp.ExtFields["changed"])
	require.Equal(t, `{"counter":5,"timestamp":1700000000000}`, string(resp.Body))

	// broker-b asks with a newer version: changed, and its liveness is NOT refreshed.
	resp = queryDataVersion(t, cl, c.Addr(), "127.0.0.1:10921", protocol.DataVersion{Timestamp: 1700000000000, Counter: 2})
	require.Equal(t, "true", resp.ExtFields["changed"])
	require.Equal(t, `{"counter":1,"timestamp":1700000000000}`, string(resp.Body), "the stored version, not the sent one")

	clk.Advance(30 * time.Second) // 130 s after registering, 30 s after broker-a's query
	require.Equal(t, 1, c.RouteInfoManager.ScanNotActiveBroker())
	ci := c.RouteInfoManager.GetAllClusterInfo()
	require.Contains(t, ci.BrokerAddrTable, "broker-a", "refreshed by the unchanged query")
	require.NotContains(t, ci.BrokerAddrTable, "broker-b", "a changed answer is no heartbeat")

	bad := remoting.NewRequest(protocol.QueryDataVersion,
		protocol.EncodeHeader(&protocol.QueryDataVersionRequestHeader{BrokerName: "b", BrokerAddr: "a", ClusterName: "c"}), nil)
	require.EqualValues(t, remoting.SystemError, call(t, cl, c.Addr(), bad).Code, "a body is required")
}

// GET_TOPICS_BY_CLUSTER (224) lists the topics with queue data on the cluster's brokers;
// DELETE_TOPIC_IN_NAMESRV (216) forgets a topic everywhere, or with clusterName on that
// cluster's brokers only (RouteInfoManager#getTopicsByCluster, #deleteTopic).
func TestTopicsByClusterAndDeleteTopic(t *testing.T) {
	c := startNamesrvWith(t, nil, nil)
	cl := newClient(t)
	registerAs(t, cl, c.Addr(), "c1", "broker-a", "127.0.0.1:10911", 0, 1, topic("Shared", 4, 6), topic("OnlyA", 2, 6))
	registerAs(t, cl, c.Addr(), "c2", "broker-x", "127.0.0.1:10931", 0, 1, topic("Shared", 4, 6), topic("OnlyX", 1, 6))

	topicsOf := func(cluster string) string {
		resp := call(t, cl, c.Addr(), remoting.NewRequest(protocol.GetTopicsByCluster,
			protocol.EncodeHeader(&protocol.GetTopicsByClusterRequestHeader{Cluster: cluster}), nil))
		require.EqualValues(t, remoting.Success, resp.Code)
		return string(resp.Body)
	}
	require.Equal(t, `{"topicList":["OnlyA","Shared"]}`, topicsOf("c1"))
	require.Equal(t, `{"topicList":["OnlyX","Shared"]}`, topicsOf("c2"))
	require.Equal(t, `{"topicList":[]}`, topicsOf("nope"))

	del := func(h protocol.DeleteTopicFromNamesrvRequestHeader) {
		resp := call(t, cl, c.Addr(), remoting.NewRequest(protocol.DeleteTopicInNamesrv, protocol.EncodeHeader(&h), nil))
		require.EqualValues(t, remoting.Success, resp.Code)
	}
	del(protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "Shared", ClusterName: "c1"})
	route := c.RouteInfoManager.PickupTopicRouteData("Shared")
	require.Len(t, route.QueueDatas, 1)
	require.Equal(t, "broker-x", route.QueueDatas[0].BrokerName)
	del(protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "Shared", ClusterName: "c2"})
	require.Nil(t, c.RouteInfoManager.PickupTopicRouteData("Shared"), "no queue data left: the topic goes")
	del(protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "OnlyA"})
	require.Equal(t, []string{"OnlyX"}, c.RouteInfoManager.GetAllTopicList())
	resp := call(t, cl, c.Addr(), remoting.NewRequest(protocol.DeleteTopicInNamesrv, map[string]string{}, nil))
	require.EqualValues(t, remoting.SystemError, resp.Code, "topic is required")
}

// PUT_KV_CONFIG / GET_KV_CONFIG / GET_KVLIST_BY_NAMESPACE / DELETE_KV_CONFIG (100, 101, 219,
// 102) over TCP; the file holds {"configTable":{...}} after each change and a new name server
// on the same path loads it (KVConfigManager#putKVConfig, #persist, #load).
func TestKVConfigOverTCP(t *testing.T) {
	c := startNamesrvWith(t, nil, nil)
	cl := newClient(t)
	put := func(ns, k, v string) {
		resp := call(t, cl, c.Addr(), remoting.NewRequest(protocol.PutKVConfig,
			protocol.EncodeHeader(&protocol.PutKVConfigRequestHeader{Namespace: ns, Key: k, Value: v}), nil))
		require.EqualValues(t, remoting.Success, resp.Code, resp.Remark)
	}
	get := func(ns, k string) *remoting.RemotingCommand {
		return call(t, cl, c.Addr(), remoting.NewRequest(protocol.GetKVConfig,
			protocol.EncodeHeader(&protocol.GetKVConfigRequestHeader{Namespace: ns, Key: k}), nil))
	}
	put("ORDER_TOPIC_CONFIG", "TopicTest", "broker-a:4")
	put("ORDER_TOPIC_CONFIG", "TopicTest", "broker-a:4;broker-b:4")
	put("other", "k", "v")

	resp := get("ORDER_TOPIC_CONFIG", "TopicTest")
	require.EqualValues(t, remoting.Success, resp.Code)
	require.Equal(t, "broker-a:4;broker-b:4", resp.ExtFields["value"])
	resp = get("other", "missing")
	require.EqualValues(t, protocol.QueryNotFound, resp.Code)
	require.Equal(t, "No config item, Namespace: other Key: missing", resp.Remark)

	data, err := os.ReadFile(c.NamesrvConfig.KvConfigPath)
	require.NoError(t, err)
	require.Equal(t, `{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4;broker-b:4"},"other":{"k":"v"}}}`, string(data))

	resp = call(t, cl, c.Addr(), remoting.NewRequest(protocol.GetKVListByNamespace,
		protocol.EncodeHeader(&protocol.GetKVListByNamespaceRequestHeader{Namespace: "other"}), nil))
	require.EqualValues(t, remoting.Success, resp.Code)
	require.Equal(t, `{"table":{"k":"v"}}`, string(resp.Body))
	resp = call(t, cl, c.Addr(), remoting.NewRequest(protocol.GetKVListByNamespace,
		protocol.EncodeHeader(&protocol.GetKVListByNamespaceRequestHeader{Namespace: "none"}), nil))
	require.EqualValues(t, protocol.QueryNotFound, resp.Code)

	resp = call(t, cl, c.Addr(), remoting.NewRequest(protocol.DeleteKVConfig,
		protocol.EncodeHeader(&protocol.DeleteKVConfigRequestHeader{Namespace: "other", Key: "k"}), nil))
	require.EqualValues(t, remoting.Success, resp.Code)
	require.EqualValues(t, protocol.QueryNotFound, get("other", "k").Code)
	data, err = os.ReadFile(c.NamesrvConfig.KvConfigPath)
	require.NoError(t, err)
	require.Equal(t, `{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4;broker-b:4"},"other":{}}}`, string(data),
		"an emptied namespace stays, as in Java")

	c2 := startNamesrvWith(t, nil, func(nc *NamesrvConfig) { nc.KvConfigPath = c.NamesrvConfig.KvConfigPath })
	v, ok := c2.KVConfigManager.GetKVConfig("ORDER_TOPIC_CONFIG", "TopicTest")
	require.True(t, ok, "loaded at Initialize")
	require.Equal(t, "broker-a:4;broker-b:4", v)

	resp = call(t, cl, c.Addr(), remoting.NewRequest(protocol.PutKVConfig, map[string]string{"namespace": "n", "key": "k"}, nil))
	require.EqualValues(t, remoting.SystemError, resp.Code, "value is @CFNotNull")
}

// A KV file written by Java (hand-built fixture) loads; one that is not JSON stops Initialize
// (KVConfigManager#load).
func TestKVConfigLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kvConfig.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"configTable":{"ORDER_TOPIC_CONFIG":{"T":"broker-a:8"}}}`), 0o644))
	m := NewKVConfigManager(path, nil)
	require.NoError(t, m.Load())
	v, ok := m.GetKVConfig("ORDER_TOPIC_CONFIG", "T")
	require.True(t, ok)
	require.Equal(t, "broker-a:8", v)
	require.Equal(t, `{"table":{"T":"broker-a:8"}}`, string(m.GetKVListByNamespace("ORDER_TOPIC_CONFIG")))
	require.Nil(t, m.GetKVListByNamespace("absent"))

	require.NoError(t, NewKVConfigManager(filepath.Join(dir, "missing.json"), nil).Load(), "first start")

	require.NoError(t, os.WriteFile(path, []byte(`not json`), 0o644)) // and no .bak to fall back on
	cfg := DefaultNamesrvConfig()
	cfg.KvConfigPath = path
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = "127.0.0.1:0"
	require.Error(t, NewNamesrvController(cfg, sc, nil).Initialize())
}

// With orderMessageEnable=true the route carries the topic's ORDER_TOPIC_CONFIG item as
// orderTopicConf; with it off (the default) it carries none. Every REGISTER_BROKER response
// body is that namespace's KVTable (DefaultRequestProcessor#getRouteInfoByTopic,
// #registerBrokerWithFilterServer).
func TestOrderTopicConf(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		c := startNamesrvWith(t, nil, func(nc *NamesrvConfig) { nc.OrderMessageEnable = enabled })
		cl := newClient(t)
		resp := registerAs(t, cl, c.Addr(), "DefaultCluster", "broker-a", "127.0.0.1:10911", 0, 1, topic("TopicTest", 4, 6))
		require.Empty(t, resp.Body, "no ORDER_TOPIC_CONFIG namespace yet")
		require.NoError(t, c.KVConfigManager.PutKVConfig(protocol.NamespaceOrderTopicConfig, "TopicTest", "broker-a:4"))
		resp = registerAs(t, cl, c.Addr(), "DefaultCluster", "broker-a", "127.0.0.1:10911", 0, 1, topic("TopicTest", 4, 6))
		require.Equal(t, `{"table":{"TopicTest":"broker-a:4"}}`, string(resp.Body))

		req := remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&protocol.GetRouteInfoRequestHeader{Topic: "TopicTest"}), nil)
		req.Version = 317
		resp = call(t, cl, c.Addr(), req)
		require.EqualValues(t, remoting.Success, resp.Code)
		route, err := protocol.DecodeTopicRouteData(resp.Body)
		require.NoError(t, err)
		if enabled {
			require.Equal(t, "broker-a:4", route.OrderTopicConf)
		} else {
			require.Empty(t, route.OrderTopicConf)
			require.NotContains(t, string(resp.Body), "orderTopicConf")
		}
	}
}

// The step lines of expiry and channel destruction name the broker by brokerName and brokerId,
// never by its address (which holds a port): the chapter's golden file depends on it
// (RouteInfoManager#scanNotActiveBroker, #onChannelDestroy).
func TestExpiryStepsAreDeterministic(t *testing.T) {
	rec := trace.NewRecorder()
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	c := startNamesrvWith(t, rec.Tracer("namesrv"), func(nc *NamesrvConfig) { nc.ScanNotActiveBrokerInterval = time.Hour }, WithClock(clk))
	cl := newClient(t)
	registerAs(t, cl, c.Addr(), "DefaultCluster", "broker-a", "127.0.0.1:10911", 0, 1, topic("T", 4, 6), topic("A", 1, 6))
	clk.Advance(121 * time.Second)
	require.Equal(t, 1, c.RouteInfoManager.ScanNotActiveBroker())

	var got []trace.Recorded
	for _, s := range rec.Steps() {
		if s.Label == "RouteInfoManager#scanNotActiveBroker" || s.Label == "RouteInfoManager#onChannelDestroy" {
			got = append(got, s)
		}
	}
	require.Equal(t, []trace.Recorded{
		{Component: "namesrv", Label: "RouteInfoManager#scanNotActiveBroker", Attrs: map[string]string{
			"brokerName": "broker-a", "brokerId": "0", "silentFor": "2m1s", "expiredAfter": "2m0s"}},
		{Component: "namesrv", Label: "RouteInfoManager#onChannelDestroy", Attrs: map[string]string{
			"brokerName": "broker-a", "brokerId": "0", "brokerNameRemoved": "true",
			"queueDatasRemoved": "2", "topicsRemoved": "2"}},
	}, got)
}

// ScanNotActiveBroker passes are serialized: many concurrent passes remove an expired broker
// exactly once.
func TestConcurrentScansRemoveOnce(t *testing.T) {
	clk := clock.NewManual(time.Unix(1000, 0))
	r := NewRouteInfoManager(120*time.Second, clk, nil)
	r.RegisterBroker("c", "10.0.0.1:10911", "a", 0, "", wrapper(1, topic("T", 4, 6)), nil, nil)
	clk.Advance(121 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 8 {
		wg.Go(func() {
			n := r.ScanNotActiveBroker()
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Equal(t, 1, total)
}
