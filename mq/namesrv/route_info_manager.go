package namesrv

import (
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// BrokerLiveInfo is what the name server knows of a registered broker address.
// Mirrors org.apache.rocketmq.namesrv.routeinfo.BrokerLiveInfo.
type BrokerLiveInfo struct {
	// LastUpdateTimestamp is the time of the last registration.
	LastUpdateTimestamp time.Time
	DataVersion         protocol.DataVersion
	Channel             *remoting.Channel
	// HaServerAddr is "ip:port" of the broker's HA listener.
	HaServerAddr string
}

// RegisterBrokerResult is what a registering slave learns: its master's address and HA address.
// Both are empty for a master. Mirrors org.apache.rocketmq.common.namesrv.RegisterBrokerResult.
type RegisterBrokerResult struct {
	HaServerAddr string
	MasterAddr   string
}

// RouteInfoManager holds the route tables (see the package doc) under one read-write lock.
// Mirrors org.apache.rocketmq.namesrv.routeinfo.RouteInfoManager.
type RouteInfoManager struct {
	mu                sync.RWMutex
	topicQueueTable   map[string]map[string]*protocol.QueueData // topic → brokerName → queue data
	brokerAddrTable   map[string]*protocol.BrokerData           // brokerName → broker data
	clusterAddrTable  map[string]map[string]struct{}            // cluster → brokerNames
	brokerLiveTable   map[string]*BrokerLiveInfo                // brokerAddr → live info
	filterServerTable map[string][]string                       // brokerAddr → filter servers

	expired time.Duration
	clock   clock.Clock // registration times and expiry
	tr      *trace.Tracer

	// scanMu serializes ScanNotActiveBroker passes: the scan service's and a direct call (a test,
	// a chapter) never both expire one broker.
	scanMu sync.Mutex
}

// NewRouteInfoManager returns empty tables. expired is the broker channel expiry (120 s in
// RocketMQ); clk is the clock of liveness timestamps and expiry (nil: the system clock).
func NewRouteInfoManager(expired time.Duration, clk clock.Clock, tr *trace.Tracer) *RouteInfoManager {
	return &RouteInfoManager{
		topicQueueTable:   map[string]map[string]*protocol.QueueData{},
		brokerAddrTable:   map[string]*protocol.BrokerData{},
		clusterAddrTable:  map[string]map[string]struct{}{},
		brokerLiveTable:   map[string]*BrokerLiveInfo{},
		filterServerTable: map[string][]string{},
		expired:           expired,
		clock:             clock.Or(clk),
		tr:                tr,
	}
}

// BrokerLiveCount is the number of brokers in the live table: registered and neither
// unregistered, expired nor disconnected.
func (r *RouteInfoManager) BrokerLiveCount() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.brokerLiveTable)
}

// IsBrokerTopicConfigChanged reports whether dv differs from the DataVersion last registered by
// brokerAddr (true for an unknown broker). DataVersions are equal when timestamp and counter
// are. Java: RouteInfoManager#isBrokerTopicConfigChanged.
func (r *RouteInfoManager) IsBrokerTopicConfigChanged(brokerAddr string, dv protocol.DataVersion) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.isBrokerTopicConfigChanged(brokerAddr, dv)
}

func (r *RouteInfoManager) isBrokerTopicConfigChanged(brokerAddr string, dv protocol.DataVersion) bool {
	prev := r.brokerLiveTable[brokerAddr]
	return prev == nil || prev.DataVersion != dv
}

// QueryBrokerTopicConfig returns the DataVersion last registered by brokerAddr, false when the
// broker is not live. Java: RouteInfoManager#queryBrokerTopicConfig.
func (r *RouteInfoManager) QueryBrokerTopicConfig(brokerAddr string) (protocol.DataVersion, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if live := r.brokerLiveTable[brokerAddr]; live != nil {
		return live.DataVersion, true
	}
	return protocol.DataVersion{}, false
}

// UpdateBrokerInfoUpdateTimestamp refreshes a live broker's liveness to now (nothing for an
// unknown broker): QUERY_DATA_VERSION counts as a heartbeat when nothing changed.
// Java: RouteInfoManager#updateBrokerInfoUpdateTimestamp.
func (r *RouteInfoManager) UpdateBrokerInfoUpdateTimestamp(brokerAddr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if live := r.brokerLiveTable[brokerAddr]; live != nil {
		live.LastUpdateTimestamp = r.clock.Now()
	}
}

// createAndUpdateQueueData sets the queue data of one topic on one broker name.
// Java: RouteInfoManager#createAndUpdateQueueData.
func (r *RouteInfoManager) createAndUpdateQueueData(brokerName string, tc *protocol.TopicConfig) {
	qd := &protocol.QueueData{
		BrokerName:     brokerName,
		ReadQueueNums:  tc.ReadQueueNums,
		WriteQueueNums: tc.WriteQueueNums,
		Perm:           tc.Perm,
		TopicSysFlag:   tc.TopicSysFlag,
	}
	m := r.topicQueueTable[tc.TopicName]
	if m == nil {
		m = map[string]*protocol.QueueData{}
		r.topicQueueTable[tc.TopicName] = m
	}
	m[brokerName] = qd
}

// UnregisterBroker removes one broker address, as a broker does at shutdown.
// Java: RouteInfoManager#unregisterBroker.
func (r *RouteInfoManager) UnregisterBroker(clusterName, brokerAddr, brokerName string, brokerID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.brokerLiveTable, brokerAddr)
	delete(r.filterServerTable, brokerAddr)
	bd := r.brokerAddrTable[brokerName]
	if bd == nil {
		return
	}
	if bd.BrokerAddrs[brokerID] == brokerAddr {
		delete(bd.BrokerAddrs, brokerID)
	}
	if len(bd.BrokerAddrs) == 0 {
		r.removeBrokerName(brokerName)
	}
}

// removeBrokerName drops a broker name that has no address left: from the broker table, from
// its cluster (and the cluster if it empties) and from every topic's queue data (and the topic
// if it empties). It returns how many topics lost that broker's queue data and how many of them
// were left with none (and so were removed). Caller holds the write lock.
func (r *RouteInfoManager) removeBrokerName(brokerName string) (queueDatasRemoved, topicsRemoved int) {
	delete(r.brokerAddrTable, brokerName)
	for cluster, names := range r.clusterAddrTable {
		delete(names, brokerName)
		if len(names) == 0 {
			delete(r.clusterAddrTable, cluster)
		}
	}
	for topic, qds := range r.topicQueueTable {
		if _, ok := qds[brokerName]; ok {
			delete(qds, brokerName)
			queueDatasRemoved++
		}
		if len(qds) == 0 {
			delete(r.topicQueueTable, topic)
			topicsRemoved++
		}
	}
	return queueDatasRemoved, topicsRemoved
}

// DeleteTopic forgets a topic's queue data on every broker (DELETE_TOPIC_IN_NAMESRV without a
// cluster). A broker that still has the topic brings it back when its DataVersion changes.
// Java: RouteInfoManager#deleteTopic(topic).
func (r *RouteInfoManager) DeleteTopic(topic string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.topicQueueTable, topic)
}

// DeleteTopicInCluster forgets a topic's queue data on the brokers of one cluster, and the topic
// when no queue data is left. Java: RouteInfoManager#deleteTopic(topic, clusterName).
func (r *RouteInfoManager) DeleteTopicInCluster(topic, clusterName string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	qds := r.topicQueueTable[topic]
	if qds == nil {
		return
	}
	for name := range r.clusterAddrTable[clusterName] {
		delete(qds, name)
	}
	if len(qds) == 0 {
		delete(r.topicQueueTable, topic)
	}
}

// GetTopicsByCluster returns, sorted and without duplicates, the topics that have queue data on
// at least one broker of cluster (none for an unknown cluster).
// Java: RouteInfoManager#getTopicsByCluster.
func (r *RouteInfoManager) GetTopicsByCluster(cluster string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []string{}
	names := r.clusterAddrTable[cluster]
	for topic, qds := range r.topicQueueTable {
		for name := range qds {
			if _, ok := names[name]; ok {
				out = append(out, topic)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// PickupTopicRouteData builds the route of one topic: its queue data and the brokers that carry
// them. It returns nil when the topic has no queue data or no broker data (→ TOPIC_NOT_EXIST).
// Queue data and broker data are sorted by broker name so the JSON is deterministic.
// Java: RouteInfoManager#pickupTopicRouteData.
func (r *RouteInfoManager) PickupTopicRouteData(topic string) *protocol.TopicRouteData {
	r.mu.RLock()
	defer r.mu.RUnlock()
	qds := r.topicQueueTable[topic]
	if len(qds) == 0 {
		r.stepPickup(topic, 0, 0)
		return nil
	}
	names := make([]string, 0, len(qds))
	for name := range qds {
		names = append(names, name)
	}
	sort.Strings(names)
	route := &protocol.TopicRouteData{FilterServerTable: map[string][]string{}}
	for _, name := range names {
		q := *qds[name]
		route.QueueDatas = append(route.QueueDatas, &q)
		bd := r.brokerAddrTable[name]
		if bd == nil {
			continue
		}
		c := &protocol.BrokerData{Cluster: bd.Cluster, BrokerName: bd.BrokerName, BrokerAddrs: map[int64]string{}}
		for id, addr := range bd.BrokerAddrs {
			c.BrokerAddrs[id] = addr
			if fs := r.filterServerTable[addr]; len(fs) > 0 {
				route.FilterServerTable[addr] = append([]string(nil), fs...)
			}
		}
		route.BrokerDatas = append(route.BrokerDatas, c)
	}
	r.stepPickup(topic, len(route.BrokerDatas), len(route.QueueDatas))
	if len(route.BrokerDatas) == 0 {
		return nil
	}
	return route
}

func (r *RouteInfoManager) stepPickup(topic string, brokers, queueDatas int) {
	if r.tr.Enabled() {
		r.tr.Step("RouteInfoManager#pickupTopicRouteData", slog.String("topic", topic),
			slog.Int("brokerDatas", brokers), slog.Int("queueDatas", queueDatas))
	}
}

// GetAllClusterInfo returns copies of the broker and cluster tables.
// Java: RouteInfoManager#getAllClusterInfo.
func (r *RouteInfoManager) GetAllClusterInfo() *protocol.ClusterInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ci := &protocol.ClusterInfo{BrokerAddrTable: map[string]*protocol.BrokerData{}, ClusterAddrTable: map[string][]string{}}
	for name, bd := range r.brokerAddrTable {
		c := &protocol.BrokerData{Cluster: bd.Cluster, BrokerName: bd.BrokerName, BrokerAddrs: map[int64]string{}}
		for id, addr := range bd.BrokerAddrs {
			c.BrokerAddrs[id] = addr
		}
		ci.BrokerAddrTable[name] = c
	}
	for cluster, names := range r.clusterAddrTable {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		ci.ClusterAddrTable[cluster] = list
	}
	return ci
}

// brokerOf returns the broker name and id registered under addr ("" and -1 when none).
// Caller holds mu.
func (r *RouteInfoManager) brokerOf(addr string) (string, int64) {
	for name, bd := range r.brokerAddrTable {
		for id, a := range bd.BrokerAddrs {
			if a == addr {
				return name, id
			}
		}
	}
	return "", -1
}

// OnChannelDestroy forgets the broker behind a closed (or expired) channel: its live entry, its
// address in the broker table, and — if its broker name has no address left — the broker name's
// cluster membership and queue data (topics left without queue data disappear). The broker is
// found by its channel; when no live entry holds that channel, remoteAddr is taken as the broker
// address. A channel that belongs to no broker (a producer's, a consumer's) changes nothing.
// Java: RouteInfoManager#onChannelDestroy.
func (r *RouteInfoManager) OnChannelDestroy(remoteAddr string, ch *remoting.Channel) {
	r.mu.Lock()
	defer r.mu.Unlock()
	brokerAddr := ""
	if ch != nil {
		for addr, live := range r.brokerLiveTable {
			if live.Channel == ch {
				brokerAddr = addr
				break
			}
		}
	}
	if brokerAddr == "" {
		brokerAddr = remoteAddr
	}
	if _, ok := r.brokerLiveTable[brokerAddr]; !ok && !r.knownAddr(brokerAddr) {
		return // a client's channel, not a broker's
	}
	delete(r.brokerLiveTable, brokerAddr)
	delete(r.filterServerTable, brokerAddr)
	name, id := r.brokerOf(brokerAddr)
	nameRemoved, queueDatas, topics := false, 0, 0
	for n, bd := range r.brokerAddrTable {
		for i, addr := range bd.BrokerAddrs {
			if addr == brokerAddr {
				delete(bd.BrokerAddrs, i)
			}
		}
		if len(bd.BrokerAddrs) == 0 {
			q, t := r.removeBrokerName(n)
			nameRemoved = nameRemoved || n == name
			queueDatas += q
			topics += t
		}
	}
	if r.tr.Enabled() {
		r.tr.Step("RouteInfoManager#onChannelDestroy", slog.String("brokerName", name),
			slog.Int64("brokerId", id), slog.Bool("brokerNameRemoved", nameRemoved),
			slog.Int("queueDatasRemoved", queueDatas), slog.Int("topicsRemoved", topics))
	}
	r.log().Info("the broker's channel destroyed, its routes cleaned", "brokerAddr", brokerAddr,
		"brokerName", name, "brokerId", id)
}

// log is the operating logger (the tracer's; silent when there is none).
func (r *RouteInfoManager) log() *slog.Logger {
	if l := r.tr.Logger(); l != nil {
		return l
	}
	return discardLogger
}

var discardLogger = slog.New(slog.DiscardHandler)

func (r *RouteInfoManager) knownAddr(addr string) bool {
	for _, bd := range r.brokerAddrTable {
		for _, a := range bd.BrokerAddrs {
			if a == addr {
				return true
			}
		}
	}
	return false
}

// GetAllTopicList returns every topic with queue data, sorted.
func (r *RouteInfoManager) GetAllTopicList() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.topicQueueTable))
}
