package protocol

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// The bodies of the admin requests (mqadmin's; docs/reference/remoting-protocol.md §4.17).
// Java writes them with fastjson, which puts a Map<MessageQueue, X> with the queue objects
// themselves as keys:
//
//	{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":0,"maxOffset":5,"minOffset":0}}}
//
// That is not standard JSON; the encoders here write it (keys sorted by topic, broker, queue),
// the decoders read it through fastjson.QuoteObjectKeys (and standard JSON with string keys).

// TopicOffset is one queue's row of TopicStatsTable: queue offsets (ConsumeQueue units) and the
// store time (ms) of the last message. Mirrors admin.TopicOffset.
type TopicOffset struct {
	LastUpdateTimestamp int64 `json:"lastUpdateTimestamp"`
	MaxOffset           int64 `json:"maxOffset"`
	MinOffset           int64 `json:"minOffset"`
}

// OffsetTableBody is a body that is one table, queue → V: {"offsetTable":{MQ:V,...}} in
// fastjson's dialect. TopicStatsTable and ResetOffsetBody are its two instances.
type OffsetTableBody[V any] struct {
	OffsetTable map[primitive.MessageQueue]V
}

// Encode writes {"offsetTable":{MQ:V,...}} in fastjson's dialect.
func (b *OffsetTableBody[V]) Encode() []byte { return encodeOffsetTable(b.OffsetTable) }

// decodeOffsetTableBody reads an OffsetTableBody; what names the body in errors, which wrap
// ErrBadBody.
func decodeOffsetTableBody[V any](body []byte, what string) (*OffsetTableBody[V], error) {
	t, err := decodeOffsetTable[V](body, what, nil)
	return &OffsetTableBody[V]{OffsetTable: t}, err
}

// TopicStatsTable is the body of a GET_TOPIC_STATS_INFO (202) response: each queue's
// TopicOffset. Mirrors admin.TopicStatsTable.
type TopicStatsTable = OffsetTableBody[TopicOffset]

// DecodeTopicStatsTable reads a GET_TOPIC_STATS_INFO body; errors wrap ErrBadBody.
func DecodeTopicStatsTable(body []byte) (*TopicStatsTable, error) {
	return decodeOffsetTableBody[TopicOffset](body, "topic stats")
}

// OffsetWrapper is one queue's row of ConsumeStats: the broker's max offset and the group's
// committed offset (ConsumeQueue units; their difference is the lag) and the store time (ms)
// of the last consumed message. Mirrors admin.OffsetWrapper.
type OffsetWrapper struct {
	BrokerOffset   int64 `json:"brokerOffset"`
	ConsumerOffset int64 `json:"consumerOffset"`
	LastTimestamp  int64 `json:"lastTimestamp"`
}

// ConsumeStats is the body of a GET_CONSUME_STATS (208) response. Mirrors admin.ConsumeStats.
type ConsumeStats struct {
	ConsumeTps  float64
	OffsetTable map[primitive.MessageQueue]OffsetWrapper
}

// ComputeTotalDiff is the lag summed over the queues: brokerOffset - consumerOffset.
// Java: ConsumeStats#computeTotalDiff.
func (c *ConsumeStats) ComputeTotalDiff() int64 {
	var n int64
	for _, o := range c.OffsetTable {
		n += o.BrokerOffset - o.ConsumerOffset
	}
	return n
}

// Encode writes {"consumeTps":N,"offsetTable":{MQ:OffsetWrapper,...}} in fastjson's dialect.
func (c *ConsumeStats) Encode() []byte {
	tps, _ := json.Marshal(c.ConsumeTps) // a finite float64 always marshals
	w := jsonWriter{}
	w.byte('{')
	w.key("consumeTps")
	w.b = append(w.b, tps...)
	w.next("offsetTable")
	writeMQTable(&w, c.OffsetTable)
	w.byte('}')
	return w.b
}

// DecodeConsumeStats reads a GET_CONSUME_STATS body; errors wrap ErrBadBody.
func DecodeConsumeStats(body []byte) (*ConsumeStats, error) {
	var rest struct {
		ConsumeTps float64 `json:"consumeTps"`
	}
	t, err := decodeOffsetTable[OffsetWrapper](body, "consume stats", &rest)
	return &ConsumeStats{ConsumeTps: rest.ConsumeTps, OffsetTable: t}, err
}

// ResetOffsetBody is the body of RESET_CONSUMER_CLIENT_OFFSET (220) and of an
// INVOKE_BROKER_TO_RESET_OFFSET (222) response: the queue offset (ConsumeQueue units) each
// queue is reset to. Mirrors ResetOffsetBody.
type ResetOffsetBody = OffsetTableBody[int64]

// DecodeResetOffsetBody reads a reset-offset body; errors wrap ErrBadBody.
func DecodeResetOffsetBody(body []byte) (*ResetOffsetBody, error) {
	return decodeOffsetTableBody[int64](body, "reset offset")
}

// Connection is one client channel of a group. Language is the client's LanguageCode ("JAVA",
// "GO"), Version its MQVersion ordinal. Mirrors org.apache.rocketmq.common.protocol.body.Connection.
type Connection struct {
	ClientAddr string `json:"clientAddr"`
	ClientID   string `json:"clientId"`
	Language   string `json:"language"`
	Version    int32  `json:"version"`
}

// ConsumerConnection is the body of a GET_CONSUMER_CONNECTION_LIST (203) response: the group's
// channels and subscriptions. Mirrors ConsumerConnection.
type ConsumerConnection struct {
	ConnectionSet     []Connection                `json:"connectionSet"`
	ConsumeFromWhere  ConsumeFromWhere            `json:"consumeFromWhere"`
	ConsumeType       ConsumeType                 `json:"consumeType"`
	MessageModel      MessageModel                `json:"messageModel"`
	SubscriptionTable map[string]SubscriptionData `json:"subscriptionTable"`
}

// ProducerConnection is the body of a GET_PRODUCER_CONNECTION_LIST (204) response.
// Mirrors ProducerConnection.
type ProducerConnection struct {
	ConnectionSet []Connection `json:"connectionSet"`
}

// GroupList is the body of a QUERY_TOPIC_CONSUME_BY_WHO (300) response. Mirrors GroupList.
type GroupList struct {
	GroupList []string `json:"groupList"`
}

// decodeOffsetTable reads a body {"offsetTable":{<MessageQueue>:V,...},...} in fastjson's
// object-key form (or standard JSON with the queues' text as keys) and, when rest is not nil,
// its other fields into rest. Errors wrap ErrBadBody naming what.
func decodeOffsetTable[V any](body []byte, what string, rest any) (map[primitive.MessageQueue]V, error) {
	var raw struct {
		OffsetTable map[string]V `json:"offsetTable"`
	}
	std, err := fastjson.QuoteObjectKeys(body)
	if err == nil {
		err = json.Unmarshal(std, &raw)
	}
	if err == nil && rest != nil {
		err = json.Unmarshal(std, rest)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadBody, what, err)
	}
	out := make(map[primitive.MessageQueue]V, len(raw.OffsetTable))
	for k, v := range raw.OffsetTable {
		var mq primitive.MessageQueue
		if err := json.Unmarshal([]byte(k), &mq); err != nil {
			return nil, fmt.Errorf("%w: %s: queue key %q: %v", ErrBadBody, what, k, err)
		}
		out[mq] = v
	}
	return out, nil
}

// SortedQueues returns the queues of m ordered by topic, broker name and queue id, the order
// the encoders write and mqadmin prints.
func SortedQueues[V any](m map[primitive.MessageQueue]V) []primitive.MessageQueue {
	keys := make([]primitive.MessageQueue, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareQueues)
	return keys
}

func compareQueues(a, b primitive.MessageQueue) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.BrokerName, b.BrokerName), cmp.Compare(a.QueueID, b.QueueID))
}

// encodeOffsetTable writes {"offsetTable":{MQ:V,...}}, a body that is its offset table only.
func encodeOffsetTable[V any](m map[primitive.MessageQueue]V) []byte {
	w := jsonWriter{}
	w.byte('{')
	w.key("offsetTable")
	writeMQTable(&w, m)
	w.byte('}')
	return w.b
}

// writeMQTable writes m as a fastjson object keyed by queue objects (fastjson's alphabetical
// field order: brokerName, queueId, topic), values as encoding/json writes them.
func writeMQTable[V any](w *jsonWriter, m map[primitive.MessageQueue]V) {
	w.byte('{')
	for i, mq := range SortedQueues(m) {
		w.comma(i)
		w.byte('{')
		w.key("brokerName")
		w.str(mq.BrokerName)
		w.next("queueId")
		w.int(int64(mq.QueueID))
		w.next("topic")
		w.str(mq.Topic)
		w.byte('}')
		w.byte(':')
		v, _ := json.Marshal(m[mq]) // the value types here always marshal
		w.b = append(w.b, v...)
	}
	w.byte('}')
}
