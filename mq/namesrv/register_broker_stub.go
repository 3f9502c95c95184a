//go:build ex_ch01

package namesrv

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
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
	// Hint: under r.mu (write lock), in this order:
	//   - add brokerName to clusterAddrTable[clusterName];
	//   - brokerAddrTable[brokerName]: create the BrokerData on first sight, drop another id that
	//     holds this brokerAddr, then set BrokerAddrs[brokerID] = brokerAddr;
	//   - a master (brokerID 0) registering first, or whose DataVersion differs from the one in
	//     brokerLiveTable (isBrokerTopicConfigChanged), has every topic of topicConfig merged into
	//     topicQueueTable (createAndUpdateQueueData);
	//   - brokerLiveTable[brokerAddr] = now (r.clock), the DataVersion, the channel, haServerAddr;
	//   - a slave's result carries its master's address and the master's HaServerAddr;
	//   - log the step "RouteInfoManager#registerBroker" (see the golden file for its fields).
	panic(exercise.NotImplemented("ch01", "tutorial/ch01-namesrv.md §RouteInfoManager#registerBroker",
		"write RouteInfoManager.RegisterBroker (mq/namesrv/register_broker_stub.go): fill clusterAddrTable, brokerAddrTable, topicQueueTable and brokerLiveTable"))
}
