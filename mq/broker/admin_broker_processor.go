package broker

import (
	"fmt"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// AdminBrokerProcessor answers the admin codes built so far: UPDATE_AND_CREATE_TOPIC (17),
// DELETE_TOPIC_IN_BROKER (215), SEARCH_OFFSET_BY_TIMESTAMP (29), GET_MAX_OFFSET (30),
// GET_MIN_OFFSET (31), and what a slave's SlaveSynchronize asks: GET_ALL_TOPIC_CONFIG (21),
// GET_ALL_CONSUMER_OFFSET (43), GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), and mqadmin's codes
// (admin_broker_stats.go, admin_broker_clients.go, admin_broker_config.go): GET_BROKER_RUNTIME_INFO
// (28), GET_TOPIC_STATS_INFO (202), GET_CONSUME_STATS (208), GET_CONSUMER_CONNECTION_LIST (203),
// GET_PRODUCER_CONNECTION_LIST (204), QUERY_TOPIC_CONSUME_BY_WHO (300),
// INVOKE_BROKER_TO_RESET_OFFSET (222), GET_BROKER_CONFIG (26), UPDATE_BROKER_CONFIG (25),
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), DELETE_SUBSCRIPTIONGROUP (207); the orderly
// consumer's LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) (lock_batch_mq.go); and the ACL codes
// (admin_broker_acl.go): UPDATE_AND_CREATE_ACL_CONFIG (50), DELETE_ACL_CONFIG (51),
// GET_BROKER_CLUSTER_ACL_INFO (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53).
// Mirrors org.apache.rocketmq.broker.processor.AdminBrokerProcessor (every other code it owns
// in Java is a later issue).
type AdminBrokerProcessor struct {
	remoting.NeverRejects
	b *BrokerController
	// conf is the config table GET_BROKER_CONFIG and UPDATE_BROKER_CONFIG share.
	conf brokerConfiguration
	// boot is when the broker was initialized (GET_BROKER_RUNTIME_INFO's bootTimestamp).
	boot time.Time
}

// NewAdminBrokerProcessor returns the processor of b.
func NewAdminBrokerProcessor(b *BrokerController) *AdminBrokerProcessor {
	return &AdminBrokerProcessor{b: b, boot: b.clock.Now()}
}

// ProcessRequest implements remoting.RequestProcessor.
// Java: AdminBrokerProcessor#processRequest.
func (p *AdminBrokerProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	switch req.Code {
	case protocol.UpdateAndCreateTopic:
		return p.updateAndCreateTopic(ch, req), nil
	case protocol.DeleteTopicInBroker:
		return p.deleteTopic(ch, req), nil
	case protocol.SearchOffsetByTimestamp:
		return p.searchOffsetByTimestamp(req), nil
	case protocol.GetMaxOffset:
		return p.getMaxOffset(req), nil
	case protocol.GetMinOffset:
		return p.getMinOffset(req), nil
	case protocol.GetAllTopicConfig:
		return p.getAllTopicConfig(), nil
	case protocol.GetAllConsumerOffset:
		return p.getAllConsumerOffset(), nil
	case protocol.GetAllSubscriptionGroupConfig:
		return p.getAllSubscriptionGroupConfig(), nil
	case protocol.LockBatchMQ:
		return p.lockBatchMQ(req), nil
	case protocol.UnlockBatchMQ:
		return p.unlockBatchMQ(req), nil
	}
	return p.processAdminRequest(req), nil
}

// adminRequests are the codes mqadmin sends (admin_broker_*.go), by request code.
var adminRequests = map[int32]func(*AdminBrokerProcessor, *remoting.RemotingCommand) *remoting.RemotingCommand{
	protocol.GetBrokerRuntimeInfo: func(p *AdminBrokerProcessor, _ *remoting.RemotingCommand) *remoting.RemotingCommand {
		return p.getBrokerRuntimeInfo()
	},
	protocol.GetTopicStatsInfo:         (*AdminBrokerProcessor).getTopicStatsInfo,
	protocol.GetConsumeStats:           (*AdminBrokerProcessor).getConsumeStats,
	protocol.GetConsumerConnectionList: (*AdminBrokerProcessor).getConsumerConnectionList,
	protocol.GetProducerConnectionList: (*AdminBrokerProcessor).getProducerConnectionList,
	protocol.QueryTopicConsumeByWho:    (*AdminBrokerProcessor).queryTopicConsumeByWho,
	protocol.InvokeBrokerToResetOffset: (*AdminBrokerProcessor).resetOffset,
	protocol.GetBrokerConfig: func(p *AdminBrokerProcessor, _ *remoting.RemotingCommand) *remoting.RemotingCommand {
		return p.getBrokerConfig()
	},
	protocol.UpdateBrokerConfig:               (*AdminBrokerProcessor).updateBrokerConfig,
	protocol.UpdateAndCreateSubscriptionGroup: (*AdminBrokerProcessor).updateAndCreateSubscriptionGroup,
	protocol.DeleteSubscriptionGroup:          (*AdminBrokerProcessor).deleteSubscriptionGroup,
	// The ACL admin codes (admin_broker_acl.go).
	protocol.UpdateAndCreateACLConfig:     (*AdminBrokerProcessor).updateAndCreateAccessConfig,
	protocol.DeleteACLConfig:              (*AdminBrokerProcessor).deleteAccessConfig,
	protocol.GetBrokerClusterACLInfo:      (*AdminBrokerProcessor).getBrokerClusterAclInfo,
	protocol.UpdateGlobalWhiteAddrsConfig: (*AdminBrokerProcessor).updateGlobalWhiteAddrsConfig,
}

// processAdminRequest answers an adminRequests code, or REQUEST_CODE_NOT_SUPPORTED.
func (p *AdminBrokerProcessor) processAdminRequest(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	if handle, ok := adminRequests[req.Code]; ok {
		return handle(p, req)
	}
	return remoting.NewNotSupportedResponse(req)
}

// validateSlave refuses topic changes on a slave. Java: AdminBrokerProcessor#validateSlave.
func (p *AdminBrokerProcessor) validateSlave() *remoting.RemotingCommand {
	if p.b.storeCfg.BrokerRole == store.Slave {
		return remoting.NewResponse(protocol.SystemError,
			"Can't modify topic or subscription group from slave broker, please execute it from master broker.")
	}
	return nil
}

// checkUserTopic refuses invalid names and system topics (the built-ins, including the cluster-
// and broker-name topics, and rmq_sys_*). Java: TopicValidator#validateTopic, #isSystemTopic.
func (p *AdminBrokerProcessor) checkUserTopic(topic string) *remoting.RemotingCommand {
	if code, remark, ok := validateTopic(topic); !ok {
		return remoting.NewResponse(code, remark)
	}
	if protocol.IsSystemTopic(topic) || p.b.topicConfigManager.IsSystemTopic(topic) {
		return remoting.NewResponse(protocol.SystemError, "The topic["+topic+"] is conflict with system topic.")
	}
	return nil
}

// checkTopicChange runs what UPDATE_AND_CREATE_TOPIC and DELETE_TOPIC_IN_BROKER check first: a
// slave refuses them, the header h (a *protocol.XxxRequestHeader) decodes ("bad <what> request header" when not), the call is
// logged as op, and the header's topic (*topic, a field of h) is a user topic. It answers nil
// when the request may go on. Java: the head of AdminBrokerProcessor#updateAndCreateTopic and
// #deleteTopic.
func (p *AdminBrokerProcessor) checkTopicChange(ch *remoting.Channel, req *remoting.RemotingCommand,
	h any, topic *string, what, op string) *remoting.RemotingCommand {
	if resp := p.validateSlave(); resp != nil {
		return resp
	}
	if err := protocol.DecodeHeader(req.ExtFields, h); err != nil {
		return badHeader(what, err)
	}
	p.b.log.Info(op+" called", "topic", *topic, "remoteAddr", ch.RemoteAddr())
	return p.checkUserTopic(*topic)
}

// MaxTopicQueueNums is the most read or write queues UPDATE_AND_CREATE_TOPIC accepts.
//
// Deviation: RocketMQ 4.9 accepts any int; one request with 99999999 queues then makes
// GET_TOPIC_STATS_INFO build that many entries, every client's rebalance that many
// MessageQueues, and each queue a producer writes a preallocated ConsumeQueue file
// (mappedFileSizeConsumeQueue bytes, 5.7 MiB by default). 1024 is above what deployments use.
const MaxTopicQueueNums = 1024

// updateAndCreateTopic creates or replaces a topic and registers with the name servers before
// answering; negative queue nums or more than MaxTopicQueueNums are SYSTEM_ERROR and change
// nothing. Java: AdminBrokerProcessor#updateAndCreateTopic.
//
// Deviation: Java registers only the changed topic (registerIncrementBrokerData); we register
// the whole table, which the name server merges the same way.
func (p *AdminBrokerProcessor) updateAndCreateTopic(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.CreateTopicRequestHeader
	if resp := p.checkTopicChange(ch, req, &h, &h.Topic, "create topic", "updateAndCreateTopic"); resp != nil {
		return resp
	}
	if h.ReadQueueNums < 0 || h.WriteQueueNums < 0 {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("queue nums must not be negative: read %d, write %d",
			h.ReadQueueNums, h.WriteQueueNums))
	}
	if h.ReadQueueNums > MaxTopicQueueNums || h.WriteQueueNums > MaxTopicQueueNums {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("queue nums must be at most %d: read %d, write %d",
			MaxTopicQueueNums, h.ReadQueueNums, h.WriteQueueNums))
	}
	tc := *protocol.NewTopicConfig(h.Topic)
	tc.ReadQueueNums = h.ReadQueueNums
	tc.WriteQueueNums = h.WriteQueueNums
	tc.TopicFilterType = h.TopicFilterType
	tc.Perm = h.Perm
	tc.TopicSysFlag = h.TopicSysFlag
	tc.Order = h.Order
	p.b.topicConfigManager.UpdateTopicConfig(tc)
	p.b.RegisterBrokerAll()
	return remoting.NewResponse(protocol.Success, "")
}

// deleteTopic removes a topic's config and its ConsumeQueues (files and next queue offsets:
// a topic created again under the name starts at queue offset 0); its CommitLog records stay
// until the clean service expires them, its consumer offsets stay (as in 4.9), and the name
// servers keep its route until DELETE_TOPIC_IN_NAMESRV.
// Java: AdminBrokerProcessor#deleteTopic (whose cleanUnusedTopic destroys the queues of every
// topic the table lacks; we destroy the deleted topic's only, as RocketMQ 5's deleteTopics).
func (p *AdminBrokerProcessor) deleteTopic(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.DeleteTopicRequestHeader
	if resp := p.checkTopicChange(ch, req, &h, &h.Topic, "delete topic", "deleteTopic"); resp != nil {
		return resp
	}
	p.b.topicConfigManager.DeleteTopicConfig(h.Topic)
	p.b.messageStore.DeleteTopics([]string{h.Topic})
	return remoting.NewResponse(protocol.Success, "")
}

// searchOffsetByTimestamp answers the queue offset of the message stored nearest timestamp.
// Java: AdminBrokerProcessor#searchOffsetByTimestamp.
func (p *AdminBrokerProcessor) searchOffsetByTimestamp(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.SearchOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("search offset", err)
	}
	return offsetResponse(p.b.store.GetOffsetInQueueByTime(h.Topic, h.QueueID, h.Timestamp))
}

// getMaxOffset answers the queue's max offset (the next offset to be written; 0 for an
// unknown queue). Java: AdminBrokerProcessor#getMaxOffset.
func (p *AdminBrokerProcessor) getMaxOffset(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetMaxOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get max offset", err)
	}
	return offsetResponse(p.b.store.GetMaxOffsetInQueue(h.Topic, h.QueueID))
}

// getMinOffset answers the queue's min offset. Java: AdminBrokerProcessor#getMinOffset.
func (p *AdminBrokerProcessor) getMinOffset(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetMinOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get min offset", err)
	}
	return offsetResponse(p.b.store.GetMinOffsetInQueue(h.Topic, h.QueueID))
}

// offsetResponse is SUCCESS with header offset.
func offsetResponse(offset store.QueueOffset) *remoting.RemotingCommand {
	resp := remoting.NewResponse(protocol.Success, "")
	h := protocol.OffsetResponseHeader{Offset: int64(offset)}
	resp.ExtFields = protocol.EncodeHeader(&h)
	return resp
}

// jsonBody answers SUCCESS with body, or SYSTEM_ERROR with remark when encoding failed.
func jsonBody(body []byte, err error, remark string) *remoting.RemotingCommand {
	if err != nil || len(body) == 0 {
		return remoting.NewResponse(protocol.SystemError, remark)
	}
	resp := remoting.NewResponse(protocol.Success, "")
	resp.Body = body
	return resp
}

// getAllTopicConfig answers GET_ALL_TOPIC_CONFIG (21): the body is the TopicConfigSerializeWrapper
// JSON {"dataVersion":{...},"topicConfigTable":{...}}. Java: AdminBrokerProcessor#getAllTopicConfig.
func (p *AdminBrokerProcessor) getAllTopicConfig() *remoting.RemotingCommand {
	w := p.b.topicConfigManager.BuildTopicConfigSerializeWrapper()
	body, err := w.Encode()
	return jsonBody(body, err, "No topic in this broker")
}

// getAllConsumerOffset answers GET_ALL_CONSUMER_OFFSET (43): the body is consumerOffset.json's
// content {"offsetTable":{"topic@group":{queueId:offset}}}, queue ids unquoted as fastjson
// writes them. Java: AdminBrokerProcessor#getAllConsumerOffset.
func (p *AdminBrokerProcessor) getAllConsumerOffset() *remoting.RemotingCommand {
	body, err := p.b.consumerOffsetManager.Encode()
	return jsonBody(body, err, "No consumer offset in this broker")
}

// getAllSubscriptionGroupConfig answers GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): the body is
// subscriptionGroup.json's content {"dataVersion":{...},"subscriptionGroupTable":{...}}.
// Java: AdminBrokerProcessor#getAllSubscriptionGroup.
func (p *AdminBrokerProcessor) getAllSubscriptionGroupConfig() *remoting.RemotingCommand {
	body, err := p.b.subscriptionGroupManager.Encode()
	return jsonBody(body, err, "No subscription group in this broker")
}
