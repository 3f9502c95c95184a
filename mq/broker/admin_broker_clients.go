package broker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// connection is a channel's row of a connection list.
func connection(info ClientChannelInfo) protocol.Connection {
	return protocol.Connection{ClientAddr: info.Channel.RemoteAddr(), ClientID: info.ClientID,
		Language: info.Language, Version: info.Version}
}

// getConsumerConnectionList answers GET_CONSUMER_CONNECTION_LIST (203): the group's channels
// (sorted by client id), subscriptions and consume settings, or CONSUMER_NOT_ONLINE (206)
// "the consumer group[G] not online". Java: AdminBrokerProcessor#getConsumerConnectionList.
func (p *AdminBrokerProcessor) getConsumerConnectionList(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetConsumerConnectionListRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get consumer connection list", err)
	}
	g := p.b.consumerManager.GetConsumerGroupInfo(h.ConsumerGroup)
	if g == nil || len(g.ChannelInfoTable) == 0 {
		return remoting.NewResponse(protocol.ConsumerNotOnline, "the consumer group["+h.ConsumerGroup+"] not online")
	}
	cc := protocol.ConsumerConnection{
		ConnectionSet:     []protocol.Connection{},
		ConsumeFromWhere:  protocol.ConsumeFromWhere(g.ConsumeFromWhere),
		ConsumeType:       protocol.ConsumeType(g.ConsumeType),
		MessageModel:      protocol.MessageModel(g.MessageModel),
		SubscriptionTable: g.SubscriptionTable,
	}
	for _, info := range g.ChannelInfoTable {
		cc.ConnectionSet = append(cc.ConnectionSet, connection(*info))
	}
	slices.SortFunc(cc.ConnectionSet, func(a, b protocol.Connection) int { return strings.Compare(a.ClientID, b.ClientID) })
	body, err := json.Marshal(&cc)
	return jsonBody(body, err, "")
}

// getProducerConnectionList answers GET_PRODUCER_CONNECTION_LIST (204): the group's channels,
// or SYSTEM_ERROR "the producer group[G] not exist". Java: AdminBrokerProcessor#getProducerConnectionList.
func (p *AdminBrokerProcessor) getProducerConnectionList(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetProducerConnectionListRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get producer connection list", err)
	}
	infos := p.b.producerManager.GroupChannels(h.ProducerGroup)
	if len(infos) == 0 {
		return remoting.NewResponse(protocol.SystemError, "the producer group["+h.ProducerGroup+"] not exist")
	}
	pc := protocol.ProducerConnection{}
	for _, info := range infos {
		pc.ConnectionSet = append(pc.ConnectionSet, connection(info))
	}
	body, err := json.Marshal(&pc)
	return jsonBody(body, err, "")
}

// resetOffset answers INVOKE_BROKER_TO_RESET_OFFSET (222): for every write queue of the topic
// the offset of the first message stored at or after the header's timestamp (ms; -1: the max
// offset), kept at the group's committed offset when that is smaller and isForce is false;
// then RESET_CONSUMER_CLIENT_OFFSET (220) goes oneway to every online consumer of the group,
// which moves its queues there. Answers the offsets (ResetOffsetBody); SYSTEM_ERROR when the
// broker lacks the topic or the group has no offset on a queue; CONSUMER_NOT_ONLINE (206) when
// no consumer of the group is connected (mqadmin then falls back to UPDATE_CONSUMER_OFFSET).
// Java: Broker2Client#resetOffset.
func (p *AdminBrokerProcessor) resetOffset(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.ResetOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("reset offset", err)
	}
	p.b.log.Info("[reset-offset] reset offset started", "topic", h.Topic, "group", h.Group,
		"timestamp", h.Timestamp, "isForce", h.IsForce)
	tc := p.b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil {
		return remoting.NewResponse(protocol.SystemError, "[reset-offset] reset offset failed, no topic in this broker. topic="+h.Topic)
	}
	ms := p.b.messageStore
	body := protocol.ResetOffsetBody{OffsetTable: map[primitive.MessageQueue]int64{}}
	for i := range tc.WriteQueueNums {
		consumerOffset := p.b.consumerOffsetManager.QueryOffset(h.Group, h.Topic, i)
		if consumerOffset == -1 {
			return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("THe consumer group <%s> not exist", h.Group))
		}
		var at store.QueueOffset
		if h.Timestamp == -1 {
			at = ms.GetMaxOffsetInQueue(h.Topic, i)
		} else {
			at = ms.GetOffsetInQueueByTime(h.Topic, i, h.Timestamp)
		}
		at = max(at, 0)
		if !h.IsForce && at >= consumerOffset {
			at = consumerOffset
		}
		body.OffsetTable[primitive.MessageQueue{Topic: h.Topic, BrokerName: p.b.cfg.BrokerName, QueueID: i}] = int64(at)
	}
	g := p.b.consumerManager.GetConsumerGroupInfo(h.Group)
	if g == nil || len(g.ChannelInfoTable) == 0 {
		return remoting.NewResponse(protocol.ConsumerNotOnline, fmt.Sprintf(
			"Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d", h.Group, h.Topic, h.Timestamp))
	}
	encoded := body.Encode()
	for _, info := range g.ChannelInfoTable {
		push := remoting.NewRequest(protocol.ResetConsumerClientOffset, protocol.EncodeHeader(&h), encoded)
		if err := info.Channel.InvokeOneway(push); err != nil {
			p.b.log.Error("[reset-offset] reset offset exception", "clientId", info.ClientID, "err", err)
			continue
		}
		p.b.log.Info("[reset-offset] reset offset success", "topic", h.Topic, "group", h.Group, "clientId", info.ClientID)
	}
	return jsonBody(encoded, nil, "")
}
