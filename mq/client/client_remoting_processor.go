package client

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ClientRemotingProcessor answers the requests a broker sends to a client on the connection
// the client opened: NOTIFY_CONSUMER_IDS_CHANGED (40) wakes the rebalance at once, and
// CHECK_TRANSACTION_STATE (39) goes to the producer of the half message's group when it
// implements TransactionStateChecker, and RESET_CONSUMER_CLIENT_OFFSET (220) to the consumer of
// the group when it implements OffsetResetter, and PUSH_REPLY_MESSAGE_TO_CLIENT (326) to the
// request waiting for the reply (request_response_future.go). Other broker → client codes are not registered (the
// remoting layer answers REQUEST_CODE_NOT_SUPPORTED).
// Mirrors org.apache.rocketmq.client.impl.ClientRemotingProcessor.
type ClientRemotingProcessor struct {
	instance *MQClientInstance
}

func (p *ClientRemotingProcessor) register(c *remoting.Client) {
	c.RegisterProcessor(protocol.NotifyConsumerIdsChanged, p)
	c.RegisterProcessor(protocol.CheckTransactionState, p)
	c.RegisterProcessor(protocol.ResetConsumerClientOffset, p)
	c.RegisterProcessor(protocol.PushReplyMessageToClient, p)
}

// ProcessRequest implements remoting.RequestProcessor: it logs the request and hands it to the
// method of its code. Java: ClientRemotingProcessor#processRequest.
func (p *ClientRemotingProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	if tr := p.instance.tr; tr.Enabled() {
		attrs := []slog.Attr{slog.String("code", requestName(req.Code))}
		if g := req.ExtFields["consumerGroup"]; g != "" {
			attrs = append(attrs, slog.String("consumerGroup", g))
		}
		tr.Step("ClientRemotingProcessor#processRequest", attrs...)
	}
	switch req.Code {
	case protocol.NotifyConsumerIdsChanged:
		return p.notifyConsumerIdsChanged(ch, req)
	case protocol.CheckTransactionState:
		return p.checkTransactionState(ch, req)
	case protocol.ResetConsumerClientOffset:
		return p.resetOffset(ch, req)
	case protocol.PushReplyMessageToClient:
		return p.receiveReplyMessage(ch, req)
	}
	return remoting.NewNotSupportedResponse(req), nil
}

// RejectRequest implements remoting.RequestProcessor: never.
func (p *ClientRemotingProcessor) RejectRequest() bool { return false }

// requestName is the RequestCode name of the codes this processor serves (the number otherwise).
func requestName(code int32) string {
	switch code {
	case protocol.NotifyConsumerIdsChanged:
		return "NOTIFY_CONSUMER_IDS_CHANGED"
	case protocol.CheckTransactionState:
		return "CHECK_TRANSACTION_STATE"
	case protocol.ResetConsumerClientOffset:
		return "RESET_CONSUMER_CLIENT_OFFSET"
	case protocol.PushReplyMessageToClient:
		return "PUSH_REPLY_MESSAGE_TO_CLIENT"
	}
	return strconv.Itoa(int(code))
}

// resetOffset: an admin's INVOKE_BROKER_TO_RESET_OFFSET made the broker send the group's new
// queue offsets (RESET_CONSUMER_CLIENT_OFFSET, 220, oneway); the group's consumer moves its
// queues of the topic there when it implements OffsetResetter. Java: #resetOffset, then
// MQClientInstance#resetOffset.
func (p *ClientRemotingProcessor) resetOffset(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.ResetOffsetRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return nil, err
	}
	body, err := protocol.DecodeResetOffsetBody(req.Body)
	if err != nil {
		return nil, fmt.Errorf("resetOffset: %w", err)
	}
	p.instance.log.Info("invoke reset offset operation from broker", "topic", h.Topic, "group", h.Group, "timestamp", h.Timestamp)
	if r, ok := p.instance.SelectConsumer(h.Group).(OffsetResetter); ok {
		r.ResetOffset(h.Topic, body.OffsetTable)
	}
	return nil, nil
}

// notifyConsumerIdsChanged: a member joined or left a consumer group of this client; the
// broker expects no answer (client-go and Java send none). Java: #notifyConsumerIdsChanged.
func (p *ClientRemotingProcessor) notifyConsumerIdsChanged(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.NotifyConsumerIdsChangedRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return nil, err
	}
	p.instance.log.Info("receive broker's notification, the consumer group changed, rebalance immediately",
		"consumerGroup", h.ConsumerGroup)
	p.instance.RebalanceImmediately()
	return nil, nil
}

// checkTransactionState: the broker asks about a half message; the body is the message record.
// No answer is written here: the producer answers with END_TRANSACTION. Java: #checkTransactionState.
func (p *ClientRemotingProcessor) checkTransactionState(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.CheckTransactionStateRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return nil, err
	}
	msg, _, err := primitive.DecodeMessage(req.Body)
	if err != nil {
		return nil, fmt.Errorf("checkTransactionState: %w", err)
	}
	if id := msg.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx); id != "" {
		msg.TransactionID = id
	}
	group := msg.GetProperty(primitive.PropertyProducerGroup)
	if tr := p.instance.tr; tr.Enabled() {
		tr.Step("ClientRemotingProcessor#checkTransactionState", slog.String("group", group), slog.String("topic", msg.Topic),
			slog.Int64("tranStateTableOffset", h.TranStateTableOffset))
	}
	if group == "" {
		p.instance.log.Warn("checkTransactionState, pick producer group failed")
		return nil, nil
	}
	checker, ok := p.instance.SelectProducer(group).(TransactionStateChecker)
	if !ok {
		p.instance.log.Debug("checkTransactionState, pick producer by group failed", "group", group)
		return nil, nil
	}
	checker.CheckTransactionState(ch.RemoteAddr(), msg, &h)
	return nil, nil
}
