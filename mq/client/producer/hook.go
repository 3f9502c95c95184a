package producer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// SendMessageContext describes one send attempt to a SendMessageHook.
// Mirrors org.apache.rocketmq.client.hook.SendMessageContext (the fields that exist here).
type SendMessageContext struct {
	ProducerGroup     string
	Message           *primitive.Message
	MQ                primitive.MessageQueue
	BrokerAddr        string
	CommunicationMode client.CommunicationMode
	// SendResult and Err are set for SendMessageAfter (both nil after a oneway send).
	SendResult *client.SendResult
	Err        error
}

// SendMessageHook is called around every send attempt, inside the time the producer measures
// as the attempt's latency: SendMessageBefore right before the request is sent,
// SendMessageAfter once its outcome is known (for ASYNC, from the callback). Hooks run on the
// sending goroutine and must not block for long. A hook cannot stop a send.
// Mirrors org.apache.rocketmq.client.hook.SendMessageHook.
//
// Deviation: Java calls sendMessageAfter twice for an async send (once with no result right
// after submitting, once from the callback); here it is called once, with the outcome.
type SendMessageHook interface {
	HookName() string
	SendMessageBefore(ctx *SendMessageContext)
	SendMessageAfter(ctx *SendMessageContext)
}
