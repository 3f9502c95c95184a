package client

import (
	"sync"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

// fakeNamesrv answers GET_ROUTEINFO_BY_TOPIC from a table (TOPIC_NOT_EXIST for other topics).
type fakeNamesrv struct {
	srv    *remoting.Server
	mu     sync.Mutex
	routes map[string]*protocol.TopicRouteData
	asked  []string
}

func startFakeNamesrv(t *testing.T) *fakeNamesrv {
	t.Helper()
	f := &fakeNamesrv{routes: map[string]*protocol.TopicRouteData{}}
	f.srv = remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(protocol.GetRouteinfoByTopic, remoting.ProcessorFunc(f.route), 1)
	})
	return f
}

func (f *fakeNamesrv) addr() string { return f.srv.Addr().String() }

func (f *fakeNamesrv) setRoute(topic string, r *protocol.TopicRouteData) {
	f.mu.Lock()
	f.routes[topic] = r
	f.mu.Unlock()
}

func (f *fakeNamesrv) route(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.GetRouteInfoRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, h.Topic)
	r := f.routes[h.Topic]
	if r == nil {
		return remoting.NewResponse(protocol.TopicNotExist, "No topic route info in name server for the topic: "+h.Topic), nil
	}
	resp := remoting.NewResponse(remoting.Success, "")
	resp.Body = r.Encode()
	return resp, nil
}

// fakeBroker records heartbeats and UNREGISTER_CLIENT requests and answers sends with a
// scripted code.
type fakeBroker struct {
	srv         *remoting.Server
	mu          sync.Mutex
	heartbeats  []*protocol.HeartbeatData
	unregisters []protocol.UnregisterClientRequestHeader
}

func startFakeBroker(t *testing.T) *fakeBroker {
	t.Helper()
	f := &fakeBroker{}
	f.srv = remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(protocol.HeartBeat, record(f, &f.heartbeats, func(req *remoting.RemotingCommand) (*protocol.HeartbeatData, error) {
			return protocol.DecodeHeartbeatData(req.Body)
		}), 1)
		s.RegisterProcessor(protocol.UnregisterClient, record(f, &f.unregisters, func(req *remoting.RemotingCommand) (protocol.UnregisterClientRequestHeader, error) {
			var h protocol.UnregisterClientRequestHeader
			err := protocol.DecodeHeader(req.ExtFields, &h)
			return h, err
		}), 1)
	})
	return f
}

// record answers SUCCESS to each request that decode reads, after appending what it read to
// *list under f.mu; a request it cannot read is an error.
func record[T any](f *fakeBroker, list *[]T, decode func(*remoting.RemotingCommand) (T, error)) remoting.ProcessorFunc {
	return func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
		v, err := decode(req)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		*list = append(*list, v)
		f.mu.Unlock()
		return remoting.NewResponse(remoting.Success, ""), nil
	}
}

func (f *fakeBroker) addr() string { return f.srv.Addr().String() }

func (f *fakeBroker) heartbeatCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.heartbeats)
}

// route builds a route: each broker name gets queues read/write queues with perm, and the
// addresses by id.
func route(brokers ...routeBroker) *protocol.TopicRouteData {
	r := &protocol.TopicRouteData{FilterServerTable: map[string][]string{}}
	for _, b := range brokers {
		r.QueueDatas = append(r.QueueDatas, &protocol.QueueData{BrokerName: b.name, ReadQueueNums: b.queues, WriteQueueNums: b.queues, Perm: b.perm})
		r.BrokerDatas = append(r.BrokerDatas, &protocol.BrokerData{Cluster: "DefaultCluster", BrokerName: b.name, BrokerAddrs: b.addrs})
	}
	return r
}

type routeBroker struct {
	name   string
	queues int32
	perm   int32
	addrs  map[int64]string
}

// fakeProducer is an MQProducerInner that records what the instance gives it.
type fakeProducer struct {
	mu     sync.Mutex
	topics []string
	infos  map[string]*TopicPublishInfo
}

func newFakeProducer(topics ...string) *fakeProducer {
	return &fakeProducer{topics: topics, infos: map[string]*TopicPublishInfo{}}
}

func (p *fakeProducer) PublishTopicList() []string { return p.topics }

func (p *fakeProducer) IsPublishTopicNeedUpdate(topic string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.infos[topic].OK()
}

func (p *fakeProducer) UpdateTopicPublishInfo(topic string, info *TopicPublishInfo) {
	p.mu.Lock()
	p.infos[topic] = info
	p.mu.Unlock()
}

func (p *fakeProducer) IsUnitMode() bool { return false }

func (p *fakeProducer) info(topic string) *TopicPublishInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.infos[topic]
}

// fakeConsumer is an MQConsumerInner that counts the instance's calls.
type fakeConsumer struct {
	group string
	subs  []protocol.SubscriptionData

	mu         sync.Mutex
	rebalances int
	persists   int
	subscribe  map[string][]primitive.MessageQueue
}

func newFakeConsumer(group string, topics ...string) *fakeConsumer {
	c := &fakeConsumer{group: group, subscribe: map[string][]primitive.MessageQueue{}}
	for _, t := range topics {
		c.subs = append(c.subs, protocol.SubscriptionData{Topic: t, SubString: "*", ExpressionType: "TAG"})
	}
	return c
}

func (c *fakeConsumer) GroupName() string                   { return c.group }
func (c *fakeConsumer) MessageModel() protocol.MessageModel { return protocol.Clustering }
func (c *fakeConsumer) ConsumeType() protocol.ConsumeType   { return protocol.ConsumePassively }
func (c *fakeConsumer) ConsumeFromWhere() protocol.ConsumeFromWhere {
	return protocol.ConsumeFromLastOffset
}
func (c *fakeConsumer) Subscriptions() []protocol.SubscriptionData { return c.subs }
func (c *fakeConsumer) IsUnitMode() bool                           { return false }

func (c *fakeConsumer) DoRebalance() {
	c.mu.Lock()
	c.rebalances++
	c.mu.Unlock()
}

func (c *fakeConsumer) PersistConsumerOffset() {
	c.mu.Lock()
	c.persists++
	c.mu.Unlock()
}

func (c *fakeConsumer) UpdateTopicSubscribeInfo(topic string, info []primitive.MessageQueue) {
	c.mu.Lock()
	c.subscribe[topic] = info
	c.mu.Unlock()
}

func (c *fakeConsumer) IsSubscribeTopicNeedUpdate(topic string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.subscribe[topic]) == 0
}

func (c *fakeConsumer) counts() (rebalances, persists int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rebalances, c.persists
}
