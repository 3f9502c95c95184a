package namesrv

import (
	"log/slog"
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

// RegisterBroker records a broker's registration: cluster membership, its address under its
// brokerId (an address re-registered under another id replaces the old id), its liveness, and —
// for a master (brokerId 0) whose DataVersion changed or that registers for the first time —
// the queue data of every topic it carries. Queue data are merged, never pruned here.
// Java: RouteInfoManager#registerBroker.
func (r *RouteInfoManager) RegisterBroker(clusterName, brokerAddr, brokerName string, brokerID int64,
	haServerAddr string, topicConfig *protocol.TopicConfigSerializeWrapper, filterServerList []string,
	ch *remoting.Channel) RegisterBrokerResult {
	var result RegisterBrokerResult
	r.mu.Lock()
	defer r.mu.Unlock()

	names := r.clusterAddrTable[clusterName]
	if names == nil {
		names = map[string]struct{}{}
		r.clusterAddrTable[clusterName] = names
	}
	names[brokerName] = struct{}{}

	registerFirst := false
	bd := r.brokerAddrTable[brokerName]
	if bd == nil {
		registerFirst = true
		bd = &protocol.BrokerData{Cluster: clusterName, BrokerName: brokerName, BrokerAddrs: map[int64]string{}}
		r.brokerAddrTable[brokerName] = bd
	}
	// A slave switched to master (or the reverse) registers its address under a new id.
	for id, addr := range bd.BrokerAddrs {
		if addr == brokerAddr && id != brokerID {
			delete(bd.BrokerAddrs, id)
		}
	}
	_, had := bd.BrokerAddrs[brokerID]
	bd.BrokerAddrs[brokerID] = brokerAddr
	registerFirst = registerFirst || !had

	topics := 0
	var dv protocol.DataVersion
	if topicConfig != nil {
		dv = topicConfig.DataVersion
		if brokerID == protocol.MasterID && (registerFirst || r.isBrokerTopicConfigChanged(brokerAddr, dv)) {
			for _, tc := range topicConfig.TopicConfigTable {
				r.createAndUpdateQueueData(brokerName, tc)
				topics++
			}
		}
	}
	r.brokerLiveTable[brokerAddr] = &BrokerLiveInfo{
		LastUpdateTimestamp: r.clock.Now(),
		DataVersion:         dv,
		Channel:             ch,
		HaServerAddr:        haServerAddr,
	}
	if len(filterServerList) == 0 {
		delete(r.filterServerTable, brokerAddr)
	} else {
		r.filterServerTable[brokerAddr] = append([]string(nil), filterServerList...)
	}
	if brokerID != protocol.MasterID {
		if masterAddr, ok := bd.BrokerAddrs[protocol.MasterID]; ok {
			if live := r.brokerLiveTable[masterAddr]; live != nil {
				result.HaServerAddr = live.HaServerAddr
				result.MasterAddr = masterAddr
			}
		}
	}
	if r.tr.Enabled() {
		// No brokerAddr: it holds the broker's (often ephemeral) port, and step lines are
		// deterministic. brokerName and brokerId name the broker as well.
		r.tr.Step("RouteInfoManager#registerBroker",
			slog.String("cluster", clusterName), slog.String("brokerName", brokerName),
			slog.Int64("brokerId", brokerID), slog.Bool("first", registerFirst),
			slog.Int("topicsUpdated", topics), slog.Int64("dataVersion", dv.Counter))
	}
	return result
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

// ScanNotActiveBroker removes every broker whose last registration (or unchanged
// QUERY_DATA_VERSION) is older than the expiry: its live entry goes first, then its channel is
// closed and its routes are cleaned by OnChannelDestroy. It returns the number removed. Passes
// are serialized, so the scan service and a direct call never remove one broker twice.
// Java: RouteInfoManager#scanNotActiveBroker.
func (r *RouteInfoManager) ScanNotActiveBroker() int {
	r.scanMu.Lock()
	defer r.scanMu.Unlock()
	type victim struct {
		addr, name string
		id         int64
		silent     time.Duration
		ch         *remoting.Channel
	}
	var victims []victim
	r.mu.Lock()
	now := r.clock.Now()
	for addr, live := range r.brokerLiveTable {
		if live.LastUpdateTimestamp.Add(r.expired).Before(now) {
			name, id := r.brokerOf(addr)
			victims = append(victims, victim{addr, name, id, now.Sub(live.LastUpdateTimestamp), live.Channel})
			// Removed before the channel closes, as Java's it.remove(): the close event then finds
			// no broker behind the channel, and only the call below cleans (and logs) the routes.
			delete(r.brokerLiveTable, addr)
		}
	}
	r.mu.Unlock()
	sort.Slice(victims, func(i, j int) bool { return victims[i].addr < victims[j].addr })
	for _, v := range victims {
		if r.tr.Enabled() {
			r.tr.Step("RouteInfoManager#scanNotActiveBroker", slog.String("brokerName", v.name),
				slog.Int64("brokerId", v.id), slog.Duration("silentFor", v.silent),
				slog.Duration("expiredAfter", r.expired))
		}
		r.log().Warn("The broker channel expired", "brokerAddr", v.addr, "expiredAfter", r.expired)
		if v.ch != nil {
			_ = v.ch.Close()
		}
		r.OnChannelDestroy(v.addr, v.ch)
	}
	return len(victims)
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
	out := make([]string, 0, len(r.topicQueueTable))
	for t := range r.topicQueueTable {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
