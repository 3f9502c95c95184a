package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// lockTimeout bounds the wait for the route lock (Java LOCK_TIMEOUT_MILLIS, 3000 ms).
const lockTimeout = 3 * time.Second

// MQClientInstance is the part of a client process that producers and consumers with one
// clientId share: the connections (MQClientAPIImpl), the route and broker-address tables, the
// route refresh, the heartbeat, and the schedule of the consumer-side tasks (offset persistence,
// rebalance), which call each consumer through MQConsumerInner.
// Producers and consumers register by group and are called back through MQProducerInner and
// MQConsumerInner. Mirrors org.apache.rocketmq.client.impl.factory.MQClientInstance.
//
// Goroutines (unless Options.DisableScheduledTasks): the route refresh (first after 10 ms, then
// every PollNameServerInterval), the heartbeat with cleanOfflineBroker (first after 1 s, then
// every HeartbeatBrokerInterval), offset persistence (first after 10 s, then every
// PersistConsumerOffsetInterval) and the RebalanceService (every RebalanceInterval, or at once
// on RebalanceImmediately) — each a ServiceThread — plus the remoting client's.
//
// Locks: mu guards state and the producer and consumer tables (Java's synchronized methods);
// routeMu the topic route, broker address and broker version tables; lockNamesrv serializes route
// updates and the offline-broker cleanup (Java lockNamesrv, tried for 3 s); lockHeartbeat
// keeps heartbeats from overlapping (Java lockHeartbeat, tried once). No lock is held while a
// producer or consumer is called back, except lockNamesrv during a route update (as in Java).
type MQClientInstance struct {
	cfg           ClientConfig
	opts          Options
	instanceIndex int
	clientID      string
	bootTimestamp time.Time
	tr            *trace.Tracer
	log           *slog.Logger
	api           *MQClientAPI

	mu            sync.Mutex
	state         ServiceState
	producerTable map[string]MQProducerInner
	consumerTable map[string]MQConsumerInner

	lockNamesrv   chan struct{} // capacity 1: a lock that can be tried with a timeout
	lockHeartbeat sync.Mutex

	routeMu            sync.RWMutex
	topicRouteTable    map[string]*protocol.TopicRouteData
	brokerAddrTable    map[string]map[int64]string
	brokerVersionTable map[string]map[string]int32

	pollNamesrv   *service.ServiceThread
	heartbeat     *service.ServiceThread
	persistOffset *service.ServiceThread
	rebalance     *service.ServiceThread
}

// NewMQClientInstance returns an instance for cfg (defaults filled in) and opts named clientID;
// use MQClientManager.GetOrCreateMQClientInstance rather than this, so that the process shares
// it.
// Steps are traced as component "client" (Options.TraceName adds a suffix).
func NewMQClientInstance(cfg ClientConfig, opts Options, instanceIndex int, clientID string) *MQClientInstance {
	cfg = cfg.WithDefaults()
	m := &MQClientInstance{
		cfg:                cfg,
		opts:               opts,
		instanceIndex:      instanceIndex,
		clientID:           clientID,
		bootTimestamp:      opts.Now(),
		tr:                 trace.New(opts.Logger, opts.Component("client")),
		log:                opts.Log(),
		producerTable:      map[string]MQProducerInner{},
		consumerTable:      map[string]MQConsumerInner{},
		lockNamesrv:        make(chan struct{}, 1),
		topicRouteTable:    map[string]*protocol.TopicRouteData{},
		brokerAddrTable:    map[string]map[int64]string{},
		brokerVersionTable: map[string]map[string]int32{},
		pollNamesrv:        service.New("MQClientFactoryScheduledThread-pollNameServer"),
		heartbeat:          service.New("MQClientFactoryScheduledThread-heartbeat"),
		persistOffset:      service.New("MQClientFactoryScheduledThread-persistOffset"),
		rebalance:          service.New("RebalanceService"),
	}
	m.api = NewMQClientAPI(cfg, opts, &ClientRemotingProcessor{instance: m}, m.tr)
	if addrs := cfg.NamesrvAddrList(); len(addrs) > 0 {
		m.api.UpdateNameServerAddressList(addrs)
	}
	return m
}

// ClientID is "ip@instanceName". Java: MQClientInstance#getClientId.
func (m *MQClientInstance) ClientID() string { return m.clientID }

// Config returns the instance's config (the first registrant's).
func (m *MQClientInstance) Config() ClientConfig { return m.cfg }

// Options returns the instance's options (the first registrant's).
func (m *MQClientInstance) Options() Options { return m.opts }

// MQClientAPI returns the instance's API. Java: MQClientInstance#getMQClientAPIImpl.
func (m *MQClientInstance) MQClientAPI() *MQClientAPI { return m.api }

// Tracer is the instance's tracer (component "client"); nil when off.
func (m *MQClientInstance) Tracer() *trace.Tracer { return m.tr }

// Logger is the instance's operating logger (Options.Logger; silent when that is nil).
func (m *MQClientInstance) Logger() *slog.Logger { return m.log }

// Now reads the instance's clock (Options.Clock).
func (m *MQClientInstance) Now() time.Time { return m.opts.Now() }

// NextIndexSeed returns a start value for a round-robin index (Options.IndexSeed, or random).
func (m *MQClientInstance) NextIndexSeed() int32 { return m.opts.NextIndexSeed() }

// State returns the service state.
func (m *MQClientInstance) State() ServiceState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Start starts the instance once: its scheduled tasks (unless Options.DisableScheduledTasks).
// Starting a running instance does nothing; an instance whose start failed cannot be started
// again. Java: MQClientInstance#start (the name-server address lookup over HTTP is not built;
// the pull service is each push consumer's own).
func (m *MQClientInstance) Start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch m.state {
	case CreateJust:
		m.state = StartFailed
		// Java: rebalanceService.start(); its run() logs its start. Manual
		// (DisableScheduledTasks): the caller drives DoRebalance. The step is logged only for an
		// instance started by a consumer (a producer's instance starts the same service, idle).
		// The pull loop is the push consumer's own (mq/client/consumer.PullMessageService).
		if len(m.consumerTable) > 0 && m.tr.Enabled() {
			m.tr.Step("RebalanceService#run", slog.String("state", "started"), slog.Bool("manual", m.opts.DisableScheduledTasks),
				slog.Duration("waitInterval", m.cfg.RebalanceInterval))
		}
		if !m.opts.DisableScheduledTasks {
			m.startScheduledTask()
		}
		m.log.Info("the client factory start OK", "clientId", m.clientID)
		m.state = Running
		return nil
	case StartFailed:
		return fmt.Errorf("%w: the factory object[%s] has been created before, and failed", ErrServiceState, m.clientID)
	}
	return nil
}

// startScheduledTask starts the periodic jobs with Java's initial delays.
// Java: MQClientInstance#startScheduledTask.
func (m *MQClientInstance) startScheduledTask() {
	m.pollNamesrv.RunEvery(10*time.Millisecond, m.cfg.PollNameServerInterval, m.UpdateAllTopicRouteInfoFromNameServer)
	m.heartbeat.RunEvery(time.Second, m.cfg.HeartbeatBrokerInterval, func() {
		m.CleanOfflineBroker()
		m.SendHeartbeatToAllBrokerWithLock()
	})
	m.persistOffset.RunEvery(10*time.Second, m.cfg.PersistConsumerOffsetInterval, m.RunPersistConsumerOffsetTask)
	// RebalanceService#run: waitForRunning(interval), then doRebalance; a wake-up cuts the wait.
	m.rebalance.RunEvery(m.cfg.RebalanceInterval, m.cfg.RebalanceInterval, m.DoRebalance)
}

// Shutdown stops the instance once no producer or consumer is registered any more (a producer
// or consumer calls it after unregistering itself): its services, then its connections; the
// manager forgets it. Java: MQClientInstance#shutdown.
func (m *MQClientInstance) Shutdown() {
	m.mu.Lock()
	if len(m.consumerTable) > 0 || len(m.producerTable) > 0 {
		m.mu.Unlock()
		return
	}
	state := m.state
	if state != CreateJust && state != Running {
		m.mu.Unlock()
		return
	}
	m.state = ShutdownAlready
	m.mu.Unlock()
	if state == Running {
		m.rebalance.Shutdown()
		m.persistOffset.Shutdown()
		m.heartbeat.Shutdown()
		m.pollNamesrv.Shutdown()
	}
	m.api.Shutdown()
	manager.remove(m)
	m.log.Info("the client factory shutdown OK", "clientId", m.clientID)
}

// RegisterProducer adds a producer under group; false if the group is taken.
// Java: MQClientInstance#registerProducer.
func (m *MQClientInstance) RegisterProducer(group string, p MQProducerInner) bool {
	return p != nil && register(m, m.producerTable, group, p, "the producer group exist already")
}

// UnregisterProducer removes group's producer and tells every known broker (UNREGISTER_CLIENT).
// Java: MQClientInstance#unregisterProducer.
func (m *MQClientInstance) UnregisterProducer(group string) {
	unregister(m, m.producerTable, group)
	m.unregisterClient(group, "")
}

// RegisterConsumer adds a consumer under group; false if the group is taken.
// Java: MQClientInstance#registerConsumer.
func (m *MQClientInstance) RegisterConsumer(group string, c MQConsumerInner) bool {
	return c != nil && register(m, m.consumerTable, group, c, "the consumer group exist already")
}

// UnregisterConsumer removes group's consumer and tells every known broker (UNREGISTER_CLIENT).
// Java: MQClientInstance#unregisterConsumer.
func (m *MQClientInstance) UnregisterConsumer(group string) {
	unregister(m, m.consumerTable, group)
	m.unregisterClient("", group)
}

// SelectProducer returns group's producer (nil if none). Java: MQClientInstance#selectProducer.
func (m *MQClientInstance) SelectProducer(group string) MQProducerInner {
	return lookup(m, m.producerTable, group)
}

// SelectConsumer returns group's consumer (nil if none). Java: MQClientInstance#selectConsumer.
func (m *MQClientInstance) SelectConsumer(group string) MQConsumerInner {
	return lookup(m, m.consumerTable, group)
}

// producers and consumers snapshot the tables in group order (deterministic call-back order).
func (m *MQClientInstance) producers() []MQProducerInner { return snapshot(m, m.producerTable) }

func (m *MQClientInstance) consumers() []MQConsumerInner { return snapshot(m, m.consumerTable) }

// register, unregister, lookup and snapshot are the producer and consumer tables' operations
// (Java's synchronized registerProducer/registerConsumer and their kin), under m.mu.
func register[T any](m *MQClientInstance, table map[string]T, group string, v T, exists string) bool {
	if group == "" {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := table[group]; ok {
		m.log.Warn(exists, "group", group)
		return false
	}
	table[group] = v
	return true
}

func unregister[T any](m *MQClientInstance, table map[string]T, group string) {
	m.mu.Lock()
	delete(table, group)
	m.mu.Unlock()
}

func lookup[T any](m *MQClientInstance, table map[string]T, group string) T {
	m.mu.Lock()
	defer m.mu.Unlock()
	return table[group]
}

func snapshot[T any](m *MQClientInstance, table map[string]T) []T {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]T, 0, len(table))
	for _, g := range slices.Sorted(maps.Keys(table)) {
		out = append(out, table[g])
	}
	return out
}

// unregisterClient sends UNREGISTER_CLIENT for the group leaving to every known broker, masters
// and slaves, under the heartbeat lock so that no heartbeat registers the group again meanwhile.
// Java: MQClientInstance#unregisterClientWithLock and #unregisterClient (Java tries the lock for
// 3 s and skips the requests when it cannot have it; here the caller waits for the heartbeat in
// flight, whose requests are bounded by MQClientAPITimeout).
func (m *MQClientInstance) unregisterClient(producerGroup, consumerGroup string) {
	m.lockHeartbeat.Lock()
	defer m.lockHeartbeat.Unlock()
	for _, addr := range m.allBrokerAddrs(false) {
		ctx, cancel := timeoutCtx(context.Background(), m.cfg.MQClientAPITimeout)
		err := m.api.UnregisterClient(ctx, addr.addr, m.clientID, producerGroup, consumerGroup)
		cancel()
		if err != nil {
			m.log.Warn("unregister client failed", "broker", addr.name, "brokerAddr", addr.addr, "err", err)
		}
	}
}

type brokerAddr struct {
	name string
	id   int64
	addr string
}

// allBrokerAddrs lists the broker address table in broker-name and id order (masters only when
// mastersOnly).
func (m *MQClientInstance) allBrokerAddrs(mastersOnly bool) []brokerAddr {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	var out []brokerAddr
	for _, name := range slices.Sorted(maps.Keys(m.brokerAddrTable)) {
		ids := m.brokerAddrTable[name]
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			if mastersOnly && id != protocol.MasterID {
				continue
			}
			if a := ids[id]; a != "" {
				out = append(out, brokerAddr{name: name, id: id, addr: a})
			}
		}
	}
	return out
}

func (m *MQClientInstance) tryLockNamesrv() bool {
	select {
	case m.lockNamesrv <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(lockTimeout)
	defer t.Stop()
	select {
	case m.lockNamesrv <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

func (m *MQClientInstance) unlockNamesrv() { <-m.lockNamesrv }

// UpdateAllTopicRouteInfoFromNameServer refreshes the route of every topic the consumers
// subscribe to and the producers publish to: the periodic task's pass.
// Java: MQClientInstance#updateTopicRouteInfoFromNameServer().
func (m *MQClientInstance) UpdateAllTopicRouteInfoFromNameServer() {
	topics := map[string]bool{}
	for _, c := range m.consumers() {
		for _, sd := range c.Subscriptions() {
			topics[sd.Topic] = true
		}
	}
	for _, p := range m.producers() {
		for _, t := range p.PublishTopicList() {
			topics[t] = true
		}
	}
	for _, t := range slices.Sorted(maps.Keys(topics)) {
		m.UpdateTopicRouteInfoFromNameServer(t)
	}
}

// UpdateTopicRouteInfoFromNameServer fetches topic's route; when it changed (or a producer or
// consumer lacks it) the broker addresses are recorded, every producer gets a new
// TopicPublishInfo and every consumer the readable queues. It reports whether it installed a
// route. Java: MQClientInstance#updateTopicRouteInfoFromNameServer(String).
func (m *MQClientInstance) UpdateTopicRouteInfoFromNameServer(topic string) bool {
	return m.updateTopicRouteInfoFromNameServer(topic, false, "", 0)
}

// UpdateTopicRouteInfoFromNameServerWithDefault installs, under topic, the route of the
// auto-create template createTopicKey (TBW102) with every queue data cut to
// min(defaultTopicQueueNums, readQueueNums) read and write queues: the route a producer uses
// for a topic that does not exist yet, whose first message makes the broker create it.
// Java: MQClientInstance#updateTopicRouteInfoFromNameServer(topic, true, defaultMQProducer).
func (m *MQClientInstance) UpdateTopicRouteInfoFromNameServerWithDefault(topic, createTopicKey string, defaultTopicQueueNums int32) bool {
	return m.updateTopicRouteInfoFromNameServer(topic, true, createTopicKey, defaultTopicQueueNums)
}

func (m *MQClientInstance) updateTopicRouteInfoFromNameServer(topic string, isDefault bool, createTopicKey string, defaultTopicQueueNums int32) bool {
	if m.tr.Enabled() {
		attrs := []slog.Attr{slog.String("topic", topic), slog.Bool("isDefault", isDefault)}
		if isDefault {
			attrs = append(attrs, slog.String("createTopicKey", createTopicKey), slog.Int("defaultTopicQueueNums", int(defaultTopicQueueNums)))
		}
		m.tr.Step("MQClientInstance#updateTopicRouteInfoFromNameServer", attrs...)
	}
	if !m.tryLockNamesrv() {
		m.log.Warn("updateTopicRouteInfoFromNameServer tryLock timeout", "timeout", lockTimeout, "clientId", m.clientID)
		return false
	}
	defer m.unlockNamesrv()
	ctx, cancel := timeoutCtx(context.Background(), m.cfg.MQClientAPITimeout)
	defer cancel()
	var route *protocol.TopicRouteData
	var err error
	if isDefault {
		route, err = m.api.GetTopicRouteInfoFromNameServer(ctx, createTopicKey, false)
		if route != nil {
			for _, qd := range route.QueueDatas {
				n := min(defaultTopicQueueNums, qd.ReadQueueNums)
				qd.ReadQueueNums, qd.WriteQueueNums = n, n
			}
		}
	} else {
		route, err = m.api.GetTopicRouteInfoFromNameServer(ctx, topic, true)
	}
	if err != nil {
		if !errors.Is(err, ErrNoRouteInfo) {
			m.log.Error("updateTopicRouteInfoFromNameServer exception", "topic", topic, "err", err)
		} else if !protocol.IsRetryTopic(topic) && topic != protocol.DefaultTopic {
			m.log.Warn("updateTopicRouteInfoFromNameServer exception", "topic", topic, "err", err)
		}
		return false
	}
	m.routeMu.RLock()
	old := m.topicRouteTable[topic]
	m.routeMu.RUnlock()
	changed := topicRouteDataIsChange(old, route)
	if !changed {
		changed = m.isNeedUpdateTopicRouteInfo(topic)
	} else {
		m.log.Info("the topic route info changed", "topic", topic)
	}
	if !changed {
		return false
	}
	m.routeMu.Lock()
	for _, bd := range route.BrokerDatas {
		m.brokerAddrTable[bd.BrokerName] = maps.Clone(bd.BrokerAddrs)
	}
	m.routeMu.Unlock()
	if ps := m.producers(); len(ps) > 0 {
		info := TopicRouteData2TopicPublishInfo(topic, route, m.NextIndexSeed(), m.tr)
		info.HaveTopicRouterInfo = true
		for _, p := range ps {
			p.UpdateTopicPublishInfo(topic, info)
		}
	}
	if cs := m.consumers(); len(cs) > 0 {
		sub := TopicRouteData2TopicSubscribeInfo(topic, route)
		for _, c := range cs {
			c.UpdateTopicSubscribeInfo(topic, slices.Clone(sub))
		}
	}
	m.routeMu.Lock()
	m.topicRouteTable[topic] = route.Clone()
	m.routeMu.Unlock()
	return true
}

// isNeedUpdateTopicRouteInfo asks the producers, then the consumers, whether one lacks topic.
// Java: MQClientInstance#isNeedUpdateTopicRouteInfo.
func (m *MQClientInstance) isNeedUpdateTopicRouteInfo(topic string) bool {
	for _, p := range m.producers() {
		if p.IsPublishTopicNeedUpdate(topic) {
			return true
		}
	}
	for _, c := range m.consumers() {
		if c.IsSubscribeTopicNeedUpdate(topic) {
			return true
		}
	}
	return false
}

// TopicRouteData returns a copy of the route installed for topic (nil if none).
// Java: MQClientInstance#getAnExistTopicRouteData.
func (m *MQClientInstance) TopicRouteData(topic string) *protocol.TopicRouteData {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	if r := m.topicRouteTable[topic]; r != nil {
		return r.Clone()
	}
	return nil
}

// CleanOfflineBroker drops from the broker address table every address no installed route
// mentions any more, and broker names left without addresses.
// Java: MQClientInstance#cleanOfflineBroker.
func (m *MQClientInstance) CleanOfflineBroker() {
	if !m.tryLockNamesrv() {
		return
	}
	defer m.unlockNamesrv()
	m.routeMu.Lock()
	defer m.routeMu.Unlock()
	inRoutes := map[string]bool{}
	for _, r := range m.topicRouteTable {
		for _, bd := range r.BrokerDatas {
			for _, a := range bd.BrokerAddrs {
				inRoutes[a] = true
			}
		}
	}
	for name, ids := range m.brokerAddrTable {
		for id, a := range ids {
			if !inRoutes[a] {
				delete(ids, id)
				m.log.Info("the broker addr is offline, remove it", "brokerName", name, "brokerAddr", a)
			}
		}
		if len(ids) == 0 {
			delete(m.brokerAddrTable, name)
			m.log.Info("the broker name's host is offline, remove it", "brokerName", name)
		}
	}
}

// SendHeartbeatToAllBrokerWithLock sends the heartbeat unless one is in progress.
// Java: MQClientInstance#sendHeartbeatToAllBrokerWithLock.
func (m *MQClientInstance) SendHeartbeatToAllBrokerWithLock() {
	if !m.lockHeartbeat.TryLock() {
		m.log.Warn("lock heartBeat, but failed", "clientId", m.clientID)
		return
	}
	defer m.lockHeartbeat.Unlock()
	m.sendHeartbeatToAllBroker()
}

// sendHeartbeatToAllBroker sends HEART_BEAT to every known broker address: masters only when the
// instance has no consumer (slaves serve consumers), nothing when it has neither producers nor
// consumers. The broker's version is recorded per address.
// Java: MQClientInstance#sendHeartbeatToAllBroker.
func (m *MQClientInstance) sendHeartbeatToAllBroker() {
	hb := m.prepareHeartbeatData()
	if len(hb.ProducerDataSet) == 0 && len(hb.ConsumerDataSet) == 0 {
		m.log.Warn("sending heartbeat, but no consumer and no producer", "clientId", m.clientID)
		return
	}
	addrs := m.allBrokerAddrs(len(hb.ConsumerDataSet) == 0)
	if len(addrs) > 0 && m.tr.Enabled() {
		// Logged for the pass that sends (a producer's first heartbeat, before it knows a
		// route, goes nowhere): the step of the WithLock entry, whose lock is held here.
		groups := make([]string, len(hb.ConsumerDataSet))
		for i, c := range hb.ConsumerDataSet {
			groups[i] = c.GroupName
		}
		m.tr.Step("MQClientInstance#sendHeartbeatToAllBrokerWithLock", slog.String("clientId", m.clientID),
			slog.String("consumerGroups", strings.Join(groups, ",")), slog.Int("producerGroups", len(hb.ProducerDataSet)),
			slog.Int("brokers", len(addrs)))
	}
	for _, b := range addrs {
		ctx, cancel := timeoutCtx(context.Background(), m.cfg.MQClientAPITimeout)
		version, err := m.api.SendHeartbeat(ctx, b.addr, hb)
		cancel()
		if err != nil {
			m.log.Info("send heart beat to broker failed", "brokerName", b.name, "brokerId", b.id, "brokerAddr", b.addr, "err", err)
			continue
		}
		m.routeMu.Lock()
		if m.brokerVersionTable[b.name] == nil {
			m.brokerVersionTable[b.name] = map[string]int32{}
		}
		m.brokerVersionTable[b.name][b.addr] = version
		m.routeMu.Unlock()
	}
}

// prepareHeartbeatData builds the heartbeat body: the clientId, every consumer group with its
// subscriptions, every producer group. Lists are never null on the wire.
// Java: MQClientInstance#prepareHeartbeatData.
func (m *MQClientInstance) prepareHeartbeatData() *protocol.HeartbeatData {
	hb := &protocol.HeartbeatData{
		ClientID:        m.clientID,
		ProducerDataSet: []protocol.ProducerData{},
		ConsumerDataSet: []protocol.ConsumerData{},
	}
	for _, c := range m.consumers() {
		subs := c.Subscriptions()
		if subs == nil {
			subs = []protocol.SubscriptionData{}
		}
		hb.ConsumerDataSet = append(hb.ConsumerDataSet, protocol.ConsumerData{
			GroupName:           c.GroupName(),
			ConsumeType:         c.ConsumeType(),
			MessageModel:        c.MessageModel(),
			ConsumeFromWhere:    c.ConsumeFromWhere(),
			SubscriptionDataSet: subs,
			UnitMode:            c.IsUnitMode(),
		})
	}
	m.mu.Lock()
	for _, g := range slices.Sorted(maps.Keys(m.producerTable)) {
		hb.ProducerDataSet = append(hb.ProducerDataSet, protocol.ProducerData{GroupName: g})
	}
	m.mu.Unlock()
	return hb
}

// FindBrokerAddressInPublish returns brokerName's master address ("" if unknown).
// Java: MQClientInstance#findBrokerAddressInPublish.
func (m *MQClientInstance) FindBrokerAddressInPublish(brokerName string) string {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	return m.brokerAddrTable[brokerName][protocol.MasterID]
}

// FindBrokerResult is a broker address chosen for a consumer request.
// Mirrors org.apache.rocketmq.client.impl.FindBrokerResult.
type FindBrokerResult struct {
	BrokerAddr    string
	Slave         bool
	BrokerVersion int32
}

// FindBrokerAddressInSubscribe returns the address of brokerName's broker brokerID; for a
// missing slave id the next id; unless onlyThisBroker, any address of the broker (lowest id):
// with the master gone from the route, a request for the master (0) gets the slave. ok is
// false when nothing was found. The step is logged when the answer is not the id asked for (a
// fallback) or nothing was found; a plain hit, which every pull makes, is not.
// Java: MQClientInstance#findBrokerAddressInSubscribe.
func (m *MQClientInstance) FindBrokerAddressInSubscribe(brokerName string, brokerID int64, onlyThisBroker bool) (FindBrokerResult, bool) {
	r, foundID, ok := m.findBrokerAddressInSubscribe(brokerName, brokerID, onlyThisBroker)
	if (!ok || foundID != brokerID) && m.tr.Enabled() {
		m.tr.Step("MQClientInstance#findBrokerAddressInSubscribe", slog.String("brokerName", brokerName),
			slog.Int64("brokerId", brokerID), slog.Bool("onlyThisBroker", onlyThisBroker), slog.Bool("found", ok),
			slog.Int64("foundBrokerId", foundID), slog.Bool("slave", r.Slave))
	}
	return r, ok
}

// findBrokerAddressInSubscribe is FindBrokerAddressInSubscribe with the id found (-1: none).
func (m *MQClientInstance) findBrokerAddressInSubscribe(brokerName string, brokerID int64, onlyThisBroker bool) (FindBrokerResult, int64, bool) {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	ids := m.brokerAddrTable[brokerName]
	if len(ids) == 0 {
		return FindBrokerResult{}, -1, false
	}
	id := brokerID
	addr, found := ids[id]
	slave := brokerID != protocol.MasterID
	if !found && slave {
		id = brokerID + 1
		addr, found = ids[id]
	}
	if !found && !onlyThisBroker {
		id = slices.Min(slices.Collect(maps.Keys(ids)))
		addr, found = ids[id], true
		slave = id != protocol.MasterID
	}
	if !found {
		return FindBrokerResult{}, -1, false
	}
	return FindBrokerResult{BrokerAddr: addr, Slave: slave, BrokerVersion: m.brokerVersionTable[brokerName][addr]}, id, true
}

// FindBrokerVersion returns the version brokerAddr answered the last heartbeat with (0 if none).
// Java: MQClientInstance#findBrokerVersion.
func (m *MQClientInstance) FindBrokerVersion(brokerName, brokerAddr string) int32 {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	return m.brokerVersionTable[brokerName][brokerAddr]
}

// FindBrokerAddrByTopic returns an address of a random broker of topic's installed route (its
// master when it has one). Java: MQClientInstance#findBrokerAddrByTopic.
func (m *MQClientInstance) FindBrokerAddrByTopic(topic string) string {
	m.routeMu.RLock()
	defer m.routeMu.RUnlock()
	r := m.topicRouteTable[topic]
	if r == nil || len(r.BrokerDatas) == 0 {
		return ""
	}
	bd := r.BrokerDatas[rand.IntN(len(r.BrokerDatas))]
	if a := bd.MasterAddr(); a != "" {
		return a
	}
	for _, id := range slices.Sorted(maps.Keys(bd.BrokerAddrs)) {
		return bd.BrokerAddrs[id]
	}
	return ""
}

// FindConsumerIDList asks a broker of topic for the clientIds of group's consumers.
// Java: MQClientInstance#findConsumerIdList.
func (m *MQClientInstance) FindConsumerIDList(topic, group string) ([]string, error) {
	addr := m.FindBrokerAddrByTopic(topic)
	if addr == "" {
		m.UpdateTopicRouteInfoFromNameServer(topic)
		if addr = m.FindBrokerAddrByTopic(topic); addr == "" {
			return nil, fmt.Errorf("%w: %s", ErrNoRouteInfo, topic)
		}
	}
	ctx, cancel := timeoutCtx(context.Background(), m.cfg.MQClientAPITimeout)
	defer cancel()
	return m.api.GetConsumerIDListByGroup(ctx, addr, group)
}

// DoRebalance asks every consumer to reassign its queues (the RebalanceService's pass).
// Java: MQClientInstance#doRebalance.
func (m *MQClientInstance) DoRebalance() {
	cs := m.consumers()
	if m.tr.Enabled() {
		m.tr.Step("MQClientInstance#doRebalance", slog.Int("consumers", len(cs)))
	}
	for _, c := range cs {
		c.DoRebalance()
	}
}

// RebalanceImmediately wakes the RebalanceService (a consumer joined or left a group).
// Java: MQClientInstance#rebalanceImmediately.
func (m *MQClientInstance) RebalanceImmediately() {
	if m.tr.Enabled() {
		m.tr.Step("MQClientInstance#rebalanceImmediately")
	}
	m.rebalance.Wakeup()
}

// RunPersistConsumerOffsetTask is one pass of the offset-persistence task that
// startScheduledTask schedules (first after 10 s, then every PersistConsumerOffsetInterval);
// with DisableScheduledTasks the caller runs it. Java: the persistAllConsumerOffset runnable
// of MQClientInstance#startScheduledTask.
func (m *MQClientInstance) RunPersistConsumerOffsetTask() {
	if m.tr.Enabled() {
		m.tr.Step("MQClientInstance#startScheduledTask", slog.String("task", "persistAllConsumerOffset"),
			slog.Duration("period", m.cfg.PersistConsumerOffsetInterval))
	}
	m.PersistAllConsumerOffset()
}

// PersistAllConsumerOffset asks every consumer to persist its offsets.
// Java: MQClientInstance#persistAllConsumerOffset.
func (m *MQClientInstance) PersistAllConsumerOffset() {
	for _, c := range m.consumers() {
		c.PersistConsumerOffset()
	}
}
