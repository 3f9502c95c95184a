//go:build !ex_ch01

package namesrv

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

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
