package broker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// pushReplyTimeout bounds the wait for the requester's answer to PUSH_REPLY_MESSAGE_TO_CLIENT
// (Java: 3000 ms in ReplyMessageProcessor#pushReplyMessage).
const pushReplyTimeout = 3 * time.Second

// ReplyMessageProcessor answers SEND_REPLY_MESSAGE (324, the V1 header) and
// SEND_REPLY_MESSAGE_V2 (325, the single-letter header): a consumer's reply to a request
// message. The reply passes the send checks (msgCheck, checkCompressed) of SendMessageProcessor,
// is pushed to the requesting client (the REPLY_TO_CLIENT property names its clientId; its
// channel is found in the producer table: a requester sends its request as a producer) as
// PUSH_REPLY_MESSAGE_TO_CLIENT (326), and, with storeReplyMessageEnable, stored in the reply
// topic (<cluster>_REPLY_TOPIC). The answer's code is the push's: SUCCESS when the requester
// took the reply, SYSTEM_ERROR with a remark naming the reason otherwise (no REPLY_TO_CLIENT,
// no channel for that clientId, the push failed); the store's msgId and queueOffset are added
// when the put stored the reply.
// Mirrors org.apache.rocketmq.broker.processor.ReplyMessageProcessor.
type ReplyMessageProcessor struct {
	send *SendMessageProcessor
}

// NewReplyMessageProcessor returns the reply processor of the broker send belongs to.
func NewReplyMessageProcessor(send *SendMessageProcessor) *ReplyMessageProcessor {
	return &ReplyMessageProcessor{send: send}
}

// RejectRequest refuses replies at the door as sends are refused (page cache busy).
func (p *ReplyMessageProcessor) RejectRequest() bool { return p.send.RejectRequest() }

// ProcessRequest decodes the header (V2 for 325, V1 for 324; a bad header is SYSTEM_ERROR
// naming the field), builds the reply message as a send does, pushes it and stores it.
// Java: ReplyMessageProcessor#processReplyMessageRequest.
func (p *ReplyMessageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.SendMessageRequestHeader
	var err error
	if req.Code == protocol.SendReplyMessageV2 {
		h, err = protocol.DecodeSendMessageRequestHeaderV2(req.ExtFields)
	} else {
		err = protocol.DecodeHeader(req.ExtFields, &h)
	}
	if err != nil {
		return badHeader("send reply message", err), nil
	}
	s := p.send
	resp := s.newSendResponse()
	msg, queueID, v := s.preSend(ch, req, &h)
	if !v.ok() {
		return v.answer(resp), nil
	}
	if err := s.setHosts(ch, msg); err != nil {
		return refuse(protocol.SystemError, err.Error()).answer(resp), nil
	}
	msg.TagsCode = primitive.TagsString2TagsCode(msg.Properties[primitive.PropertyTags])

	v = p.pushReplyMessage(ch, &h, msg)
	v.answer(resp)
	resp.AddExtField("queueId", fmt.Sprint(queueID))
	if !s.b.cfg.StoreReplyMessageEnable {
		return resp, nil
	}
	msg.PropertiesString = primitive.MarshalProperties(msg.Properties)
	return s.awaitResult(ch, req, s.b.store.AsyncPutMessage(msg), func(r store.PutMessageResult) *remoting.RemotingCommand {
		// Java: ReplyMessageProcessor#handlePutMessageResult only adds the stored
		// position; the push decided the code.
		if _, stored := storedCode(r.PutMessageStatus); stored && r.AppendMessageResult != nil {
			resp.AddExtField("msgId", r.AppendMessageResult.MsgID)
			resp.AddExtField("queueOffset", fmt.Sprint(r.AppendMessageResult.LogicsOffset))
		} else if !stored {
			s.b.log.Warn("store reply message failed", "topic", msg.Topic, "status", r.PutMessageStatus)
		}
		return resp
	})
}

// pushReplyMessage sends the reply to the client REPLY_TO_CLIENT names, on its own channel,
// and waits up to pushReplyTimeout for its answer. The pushed properties gain PUSH_REPLY_TIME
// (the broker's ms). Java: ReplyMessageProcessor#pushReplyMessage.
func (p *ReplyMessageProcessor) pushReplyMessage(ch *remoting.Channel, h *protocol.SendMessageRequestHeader,
	msg *primitive.MessageExtBrokerInner) verdict {
	b := p.send.b
	senderID := msg.Properties[primitive.PropertyMessageReplyToClient]
	if tr := b.tr; tr.Enabled() {
		tr.Step("ReplyMessageProcessor#pushReplyMessage", slog.String("topic", msg.Topic),
			slog.String("replyToClient", senderID))
	}
	if senderID == "" {
		return refuse(protocol.SystemError, "REPLY_TO_CLIENT is null, can not reply message")
	}
	target := b.producerManager.FindChannel(senderID)
	if target == nil {
		return refuse(protocol.SystemError, fmt.Sprintf("push reply message fail, channel of <%s> not found.", senderID))
	}
	now := clock.Millis(b.clock)
	msg.Properties[primitive.PropertyPushReplyTime] = fmt.Sprint(now)
	rh := protocol.ReplyMessageRequestHeader{
		ProducerGroup:         h.ProducerGroup,
		Topic:                 h.Topic,
		DefaultTopic:          h.DefaultTopic,
		DefaultTopicQueueNums: h.DefaultTopicQueueNums,
		QueueID:               msg.QueueID,
		SysFlag:               msg.SysFlag,
		BornTimestamp:         msg.BornTimestamp,
		Flag:                  msg.Flag,
		Properties:            primitive.MarshalProperties(msg.Properties),
		ReconsumeTimes:        msg.ReconsumeTimes,
		UnitMode:              h.UnitMode,
		BornHost:              ch.RemoteAddr(),
		StoreHost:             b.BrokerAddr(),
		StoreTimestamp:        now,
	}
	ctx, cancel := context.WithTimeout(context.Background(), pushReplyTimeout)
	defer cancel()
	out, err := target.InvokeSync(ctx, remoting.NewRequest(protocol.PushReplyMessageToClient, protocol.EncodeHeader(&rh), msg.Body))
	if err != nil {
		b.log.Warn("push reply message failed", "client", senderID, "err", err)
		return refuse(protocol.SystemError, fmt.Sprintf("push reply message to %s fail.", senderID))
	}
	if out.Code != protocol.Success {
		return refuse(protocol.SystemError, fmt.Sprintf("push reply message to %s fail: code %d %s", senderID, out.Code, out.Remark))
	}
	return passed
}
