package broker

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// ConsumerManageProcessor answers GET_CONSUMER_LIST_BY_GROUP (38), UPDATE_CONSUMER_OFFSET (15)
// and QUERY_CONSUMER_OFFSET (14).
// Mirrors org.apache.rocketmq.broker.processor.ConsumerManageProcessor.
type ConsumerManageProcessor struct {
	remoting.NeverRejects
	b *BrokerController
}

// NewConsumerManageProcessor returns the processor of b.
func NewConsumerManageProcessor(b *BrokerController) *ConsumerManageProcessor {
	return &ConsumerManageProcessor{b: b}
}

// ProcessRequest implements remoting.RequestProcessor.
// Java: ConsumerManageProcessor#processRequest.
func (p *ConsumerManageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	switch req.Code {
	case protocol.GetConsumerListByGroup:
		return p.getConsumerListByGroup(ch, req), nil
	case protocol.UpdateConsumerOffset:
		return p.updateConsumerOffset(ch, req), nil
	case protocol.QueryConsumerOffset:
		return p.queryConsumerOffset(req), nil
	}
	return remoting.NewNotSupportedResponse(req), nil
}

// getConsumerListByGroup answers the exact client IDs of the group's channels; a group without
// channels is answered SYSTEM_ERROR "no consumer for this group, <group>" (the client ignores
// the code and sees an empty list). Java: ConsumerManageProcessor#getConsumerListByGroup.
func (p *ConsumerManageProcessor) getConsumerListByGroup(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetConsumerListByGroupRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get consumer list", err)
	}
	if gi := p.b.consumerManager.GetConsumerGroupInfo(h.ConsumerGroup); gi != nil {
		if ids := gi.AllClientIDs(); len(ids) > 0 {
			body := protocol.GetConsumerListByGroupResponseBody{ConsumerIDList: ids}
			resp := remoting.NewResponse(protocol.Success, "")
			resp.Body = body.Encode()
			return resp
		}
	}
	p.b.log.Warn("getConsumerGroupInfo failed", "group", h.ConsumerGroup, "remoteAddr", ch.RemoteAddr())
	return remoting.NewResponse(protocol.SystemError, "no consumer for this group, "+h.ConsumerGroup)
}

// updateConsumerOffset stores commitOffset unconditionally.
// Java: ConsumerManageProcessor#updateConsumerOffset.
func (p *ConsumerManageProcessor) updateConsumerOffset(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.UpdateConsumerOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("update consumer offset", err)
	}
	p.b.consumerOffsetManager.CommitOffset(ch.RemoteAddr(), h.ConsumerGroup, h.Topic, h.QueueID, store.QueueOffset(h.CommitOffset))
	return remoting.NewResponse(protocol.Success, "")
}

// queryConsumerOffset answers the stored offset; without one it answers 0 when the queue is
// young (min offset ≤ 0 and its first message is not yet "on disk", i.e. beyond the in-memory
// window — an empty queue counts as young), so a new group starts from the beginning of a new
// queue, else QUERY_NOT_FOUND (22). Java: ConsumerManageProcessor#queryConsumerOffset.
func (p *ConsumerManageProcessor) queryConsumerOffset(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	b := p.b
	var h protocol.QueryConsumerOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("query consumer offset", err)
	}
	offset := b.consumerOffsetManager.QueryOffset(h.ConsumerGroup, h.Topic, h.QueueID)
	if offset < 0 {
		minOffset := b.store.GetMinOffsetInQueue(h.Topic, h.QueueID)
		if minOffset <= 0 && !b.store.CheckInDiskByConsumeOffset(h.Topic, h.QueueID, 0) {
			offset = 0
		}
	}
	if offset < 0 {
		return remoting.NewResponse(protocol.QueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
	}
	resp := remoting.NewResponse(protocol.Success, "")
	rh := protocol.QueryConsumerOffsetResponseHeader{Offset: int64(offset)}
	resp.ExtFields = protocol.EncodeHeader(&rh)
	return resp
}
