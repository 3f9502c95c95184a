package protocol

import (
	"encoding/json"
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// GetConsumerListByGroupResponseBody is the body of a GET_CONSUMER_LIST_BY_GROUP (38) response:
// the clientIDs of the group's live consumers, exactly as their heartbeats named them.
// Mirrors GetConsumerListByGroupResponseBody (remoting-protocol.md §4.10).
type GetConsumerListByGroupResponseBody struct {
	ConsumerIDList []string `json:"consumerIdList"`
}

// Encode returns {"consumerIdList":[...]} ([] when empty, never null).
func (b *GetConsumerListByGroupResponseBody) Encode() []byte {
	w := jsonWriter{}
	w.byte('{')
	w.key("consumerIdList")
	w.strings(b.ConsumerIDList)
	w.byte('}')
	return w.b
}

// TopicList is the body of GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206) and similar listings.
// Mirrors org.apache.rocketmq.common.protocol.body.TopicList.
type TopicList struct {
	TopicList  []string `json:"topicList"`
	BrokerAddr string   `json:"brokerAddr,omitempty"`
}

// Encode returns the JSON body ([] when empty, never null).
func (t *TopicList) Encode() []byte {
	w := jsonWriter{}
	w.byte('{')
	if t.BrokerAddr != "" {
		w.key("brokerAddr")
		w.str(t.BrokerAddr)
		w.byte(',')
	}
	w.key("topicList")
	w.strings(t.TopicList)
	w.byte('}')
	return w.b
}

// LockBatchRequestBody is the body of LOCK_BATCH_MQ (41) and, with OnlyThisBroker, of
// UNLOCK_BATCH_MQ (42). Mirrors LockBatchRequestBody / UnlockBatchRequestBody
// (remoting-protocol.md §4.10b).
type LockBatchRequestBody struct {
	ConsumerGroup  string                   `json:"consumerGroup"`
	ClientID       string                   `json:"clientId"`
	OnlyThisBroker bool                     `json:"onlyThisBroker,omitempty"`
	MqSet          []primitive.MessageQueue `json:"mqSet"`
}

// UnlockBatchRequestBody is the body of UNLOCK_BATCH_MQ (42).
type UnlockBatchRequestBody = LockBatchRequestBody

// LockBatchResponseBody is the body of a LOCK_BATCH_MQ response: the queues now held by the
// requesting client. Mirrors LockBatchResponseBody.
type LockBatchResponseBody struct {
	LockOKMQSet []primitive.MessageQueue `json:"lockOKMQSet"`
}

// unmarshalBody unmarshals a standard-JSON body into v; errors wrap ErrBadBody naming what.
func unmarshalBody(body []byte, what string, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadBody, what, err)
	}
	return nil
}

// unmarshalFastjsonBody is unmarshalBody for a body in fastjson's dialect (unquoted numeric
// keys) or standard JSON.
func unmarshalFastjsonBody(body []byte, what string, v any) error {
	if err := fastjson.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadBody, what, err)
	}
	return nil
}

// DecodeJSONBody unmarshals a standard-JSON body into v; errors wrap ErrBadBody. For bodies
// that may carry fastjson's unquoted numeric keys use DecodeTopicRouteData/DecodeClusterInfo.
func DecodeJSONBody(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %T: %v", ErrBadBody, v, err)
	}
	return nil
}
