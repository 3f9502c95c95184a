package client

import (
	"errors"
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// CreateReplyMessage builds the reply to request with body: topic <cluster>_REPLY_TOPIC (the
// request's CLUSTER property, which the broker set), MSG_TYPE=reply, and the request's
// CORRELATION_ID, REPLY_TO_CLIENT and TTL. Send it with any producer (its send travels as
// SEND_REPLY_MESSAGE_V2). A nil request or one without CLUSTER is an error.
// Java: MessageUtil#createReplyMessage.
func CreateReplyMessage(request *primitive.MessageExt, body []byte) (*primitive.Message, error) {
	if request == nil {
		return nil, errors.New("create reply message fail, requestMessage cannot be null")
	}
	cluster := request.GetProperty(primitive.PropertyCluster)
	if cluster == "" {
		return nil, fmt.Errorf("create reply message fail, requestMessage error, property[%s] is null", primitive.PropertyCluster)
	}
	reply := &primitive.Message{Topic: protocol.GetReplyTopic(cluster), Body: body}
	reply.PutProperty(primitive.PropertyMessageType, primitive.ReplyMessageFlag)
	for _, k := range []string{primitive.PropertyCorrelationID, primitive.PropertyMessageReplyToClient, primitive.PropertyMessageTTL} {
		if v := request.GetProperty(k); v != "" {
			reply.PutProperty(k, v)
		}
	}
	return reply, nil
}
