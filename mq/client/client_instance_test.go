package client

import (
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

type testCluster struct {
	ns                  *fakeNamesrv
	aMaster, aSlave, bM *fakeBroker
}

// startTestCluster: a name server routing topic T to broker-a (master and slave, 4 queues) and
// broker-b (master, 2 queues).
func startTestCluster(t *testing.T) *testCluster {
	c := &testCluster{ns: startFakeNamesrv(t), aMaster: startFakeBroker(t), aSlave: startFakeBroker(t), bM: startFakeBroker(t)}
	c.ns.setRoute("T", c.route(true))
	return c
}

func (c *testCluster) route(withB bool) *protocol.TopicRouteData {
	brokers := []routeBroker{{"broker-a", 4, 6, map[int64]string{0: c.aMaster.addr(), 1: c.aSlave.addr()}}}
	if withB {
		brokers = append(brokers, routeBroker{"broker-b", 2, 6, map[int64]string{0: c.bM.addr()}})
	}
	return route(brokers...)
}

func newTestInstance(t *testing.T, ns string, mutate ...func(*ClientConfig, *Options)) *MQClientInstance {
	cfg := DefaultClientConfig()
	cfg.NamesrvAddr = ns
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = t.Name()
	opts := Options{DisableScheduledTasks: true}
	for _, m := range mutate {
		m(&cfg, &opts)
	}
	inst := GetMQClientManager().GetOrCreateMQClientInstance(cfg, opts)
	require.NoError(t, inst.Start())
	t.Cleanup(func() {
		inst.mu.Lock()
		inst.producerTable = map[string]MQProducerInner{}
		inst.consumerTable = map[string]MQConsumerInner{}
		inst.mu.Unlock()
		inst.Shutdown()
	})
	return inst
}

// MQClientInstance#updateTopicRouteInfoFromNameServer gives every producer a TopicPublishInfo
// (with route info) and every consumer the readable queues, records the broker addresses, and
// reports false for an unchanged route the producers and consumers already have.
func TestUpdateTopicRouteFeedsProducersAndConsumers(t *testing.T) {
	c := startTestCluster(t)
	inst := newTestInstance(t, c.ns.addr())
	p := newFakeProducer("T")
	cons := newFakeConsumer("g", "T")
	require.True(t, inst.RegisterProducer("pg", p))
	require.False(t, inst.RegisterProducer("pg", newFakeProducer()), "a group registers once")
	require.True(t, inst.RegisterConsumer("g", cons))
	require.False(t, inst.RegisterConsumer("g", newFakeConsumer("g")))

	inst.UpdateAllTopicRouteInfoFromNameServer()
	info := p.info("T")
	require.True(t, info.HaveTopicRouterInfo)
	require.Len(t, info.MessageQueueList, 6)
	require.Len(t, cons.subscribe["T"], 6)
	require.Equal(t, c.aMaster.addr(), inst.FindBrokerAddressInPublish("broker-a"))
	require.Equal(t, c.bM.addr(), inst.FindBrokerAddressInPublish("broker-b"))
	require.False(t, inst.UpdateTopicRouteInfoFromNameServer("T"), "unchanged")
	require.Same(t, info, p.info("T"))

	c.ns.setRoute("T", c.route(false))
	require.True(t, inst.UpdateTopicRouteInfoFromNameServer("T"))
	require.Len(t, p.info("T").MessageQueueList, 4)
	require.Equal(t, c.bM.addr(), inst.FindBrokerAddressInPublish("broker-b"), "kept until cleanOfflineBroker")
	inst.CleanOfflineBroker()
	require.Empty(t, inst.FindBrokerAddressInPublish("broker-b"))
	require.Equal(t, c.aMaster.addr(), inst.FindBrokerAddressInPublish("broker-a"))

	require.False(t, inst.UpdateTopicRouteInfoFromNameServer("Missing"))
	require.Nil(t, p.info("Missing"))
}

// The default-topic path installs TBW102's route under the new topic, every queue data cut to
// min(defaultTopicQueueNums, readQueueNums). Java: updateTopicRouteInfoFromNameServer(topic, true, producer).
func TestUpdateTopicRouteWithDefault(t *testing.T) {
	c := startTestCluster(t)
	c.ns.setRoute("TBW102", route(routeBroker{"broker-a", 8, 7, map[int64]string{0: c.aMaster.addr()}},
		routeBroker{"broker-b", 2, 7, map[int64]string{0: c.bM.addr()}}))
	inst := newTestInstance(t, c.ns.addr())
	p := newFakeProducer("New")
	inst.RegisterProducer("pg", p)
	require.False(t, inst.UpdateTopicRouteInfoFromNameServer("New"))
	require.True(t, inst.UpdateTopicRouteInfoFromNameServerWithDefault("New", "TBW102", 4))
	var got []int32
	for _, qd := range inst.TopicRouteData("New").QueueDatas {
		got = append(got, qd.ReadQueueNums, qd.WriteQueueNums)
	}
	require.Equal(t, []int32{4, 4, 2, 2}, got)
	require.Len(t, p.info("New").MessageQueueList, 6)
	require.Equal(t, "New", p.info("New").MessageQueueList[0].Topic)
}

// MQClientInstance#sendHeartbeatToAllBroker: with producers only, masters only; with a consumer,
// slaves too. The body names the clientId and every group. Nothing is sent with neither.
func TestHeartbeat(t *testing.T) {
	c := startTestCluster(t)
	inst := newTestInstance(t, c.ns.addr())
	inst.SendHeartbeatToAllBrokerWithLock()
	p := newFakeProducer("T")
	inst.RegisterProducer("pg", p)
	inst.UpdateTopicRouteInfoFromNameServer("T")
	inst.SendHeartbeatToAllBrokerWithLock()
	require.Equal(t, []int{1, 0, 1}, []int{c.aMaster.heartbeatCount(), c.aSlave.heartbeatCount(), c.bM.heartbeatCount()})
	hb := c.aMaster.heartbeats[0]
	require.Equal(t, "127.0.0.1@"+t.Name(), hb.ClientID)
	require.Equal(t, []protocol.ProducerData{{GroupName: "pg"}}, hb.ProducerDataSet)
	require.Empty(t, hb.ConsumerDataSet)

	inst.RegisterConsumer("cg", newFakeConsumer("cg", "T"))
	inst.SendHeartbeatToAllBrokerWithLock()
	require.Equal(t, []int{2, 1, 2}, []int{c.aMaster.heartbeatCount(), c.aSlave.heartbeatCount(), c.bM.heartbeatCount()})
	hb = c.aSlave.heartbeats[0]
	require.Len(t, hb.ConsumerDataSet, 1)
	require.Equal(t, "cg", hb.ConsumerDataSet[0].GroupName)
	require.Equal(t, protocol.ConsumePassively, hb.ConsumerDataSet[0].ConsumeType)
	require.Equal(t, "T", hb.ConsumerDataSet[0].SubscriptionDataSet[0].Topic)

	inst.UnregisterProducer("pg")
	for _, b := range []*fakeBroker{c.aMaster, c.aSlave, c.bM} {
		b.mu.Lock()
		require.Equal(t, []protocol.UnregisterClientRequestHeader{{ClientID: "127.0.0.1@" + t.Name(), ProducerGroup: "pg"}}, b.unregisters)
		b.mu.Unlock()
	}
}

// MQClientInstance#findBrokerAddressInSubscribe: the asked id; for a missing slave the next id;
// otherwise any address unless onlyThisBroker. Only the calls that did not get the id asked
// for log the step.
func TestFindBrokerAddressInSubscribe(t *testing.T) {
	c := startTestCluster(t)
	rec := trace.NewRecorder()
	inst := newTestInstance(t, c.ns.addr(), func(_ *ClientConfig, o *Options) { o.Logger = slog.New(rec) })
	inst.RegisterProducer("pg", newFakeProducer("T"))
	inst.UpdateTopicRouteInfoFromNameServer("T")
	for _, tc := range []struct {
		broker string
		id     int64
		only   bool
		want   FindBrokerResult
		ok     bool
	}{
		{"broker-a", 0, false, FindBrokerResult{BrokerAddr: c.aMaster.addr()}, true},
		{"broker-a", 1, false, FindBrokerResult{BrokerAddr: c.aSlave.addr(), Slave: true}, true},
		{"broker-b", 1, true, FindBrokerResult{}, false},
		{"broker-b", 1, false, FindBrokerResult{BrokerAddr: c.bM.addr()}, true},
		{"broker-x", 0, false, FindBrokerResult{}, false},
	} {
		got, ok := inst.FindBrokerAddressInSubscribe(tc.broker, tc.id, tc.only)
		require.Equal(t, tc.ok, ok, "%+v", tc)
		require.Equal(t, tc.want, got, "%+v", tc)
	}
	var logged []string
	for _, s := range rec.Steps() {
		if s.Label == "MQClientInstance#findBrokerAddressInSubscribe" {
			logged = append(logged, s.Attrs["brokerName"]+"/"+s.Attrs["brokerId"]+"->"+s.Attrs["foundBrokerId"])
		}
	}
	require.Equal(t, []string{"broker-b/1->-1", "broker-b/1->0", "broker-x/0->-1"}, logged)
}

// NOTIFY_CONSUMER_IDS_CHANGED from a broker wakes the RebalanceService at once
// (ClientRemotingProcessor#notifyConsumerIdsChanged → rebalanceImmediately); the scheduled route
// poll runs 10 ms after start.
func TestNotifyConsumerIdsChangedRebalancesAndScheduledRoutePoll(t *testing.T) {
	c := startTestCluster(t)
	var brokerSide *remoting.Channel
	seen := make(chan struct{}, 1)
	notifier := remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(protocol.HeartBeat, remoting.ProcessorFunc(func(ch *remoting.Channel, _ *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			brokerSide = ch
			select {
			case seen <- struct{}{}:
			default:
			}
			return remoting.NewResponse(remoting.Success, ""), nil
		}), 1)
	})
	c.ns.setRoute("N", route(routeBroker{"broker-n", 1, 6, map[int64]string{0: notifier.Addr().String()}}))

	inst := newTestInstance(t, c.ns.addr(), func(cfg *ClientConfig, opts *Options) {
		opts.DisableScheduledTasks = false
		cfg.RebalanceInterval = time.Hour
	})
	cons := newFakeConsumer("cg", "N")
	inst.RegisterConsumer("cg", cons)
	require.Eventually(t, func() bool { return inst.FindBrokerAddressInPublish("broker-n") != "" },
		5*time.Second, 5*time.Millisecond, "the scheduled route poll fetched N")
	inst.SendHeartbeatToAllBrokerWithLock()
	<-seen
	h := protocol.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: "cg"}
	require.NoError(t, brokerSide.InvokeOneway(remoting.NewRequest(protocol.NotifyConsumerIdsChanged, protocol.EncodeHeader(&h), nil)))
	require.Eventually(t, func() bool { r, _ := cons.counts(); return r >= 1 }, 5*time.Second, 5*time.Millisecond)
	inst.PersistAllConsumerOffset()
	_, persists := cons.counts()
	require.Equal(t, 1, persists)
}

// MQClientManager keeps one instance per clientId; an instance shuts down only when no producer
// or consumer is registered, and is then forgotten.
func TestClientManagerAndShutdown(t *testing.T) {
	cfg := DefaultClientConfig()
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = t.Name()
	m := GetMQClientManager()
	a := m.GetOrCreateMQClientInstance(cfg, Options{})
	require.Same(t, a, m.GetOrCreateMQClientInstance(cfg, Options{DisableScheduledTasks: true}))
	require.False(t, a.Options().DisableScheduledTasks, "the first registrant's options win")
	cfg2 := cfg
	cfg2.InstanceName = t.Name() + "-2"
	b := m.GetOrCreateMQClientInstance(cfg2, Options{})
	require.NotSame(t, a, b)
	b.Shutdown()

	require.NoError(t, a.Start())
	require.NoError(t, a.Start(), "starting a running instance does nothing")
	a.RegisterProducer("pg", newFakeProducer())
	a.Shutdown()
	require.Equal(t, Running, a.State(), "not while a producer is registered")
	a.UnregisterProducer("pg")
	a.Shutdown()
	require.Equal(t, ShutdownAlready, a.State())
	require.NotSame(t, a, m.GetOrCreateMQClientInstance(cfg, Options{}), "a shut-down instance is forgotten")
	m.GetOrCreateMQClientInstance(cfg, Options{}).Shutdown()
}

// The producer's callbacks see groups in name order (a deterministic refresh order).
func TestProducersInGroupOrder(t *testing.T) {
	inst := NewMQClientInstance(ClientConfig{ClientIP: "127.0.0.1"}, Options{DisableScheduledTasks: true}, 0, "x")
	t.Cleanup(func() {
		for _, g := range []string{"a", "b", "c"} {
			inst.UnregisterProducer(g)
		}
		inst.Shutdown()
	})
	for _, g := range []string{"c", "a", "b"} {
		inst.RegisterProducer(g, newFakeProducer(g))
	}
	var topics []string
	for _, p := range inst.producers() {
		topics = append(topics, p.PublishTopicList()...)
	}
	require.True(t, sort.StringsAreSorted(topics))
	hb := inst.prepareHeartbeatData()
	require.Len(t, hb.ProducerDataSet, 3)
	require.Equal(t, "a", hb.ProducerDataSet[0].GroupName)
}
