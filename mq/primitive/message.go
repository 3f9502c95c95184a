package primitive

import "strconv"

// Message is what a producer sends: topic, flag, properties, body.
// Mirrors org.apache.rocketmq.common.message.Message.
type Message struct {
	Topic string
	// Flag is the user flag, stored as is (4 bytes in the record).
	Flag int32
	// Properties holds TAGS, KEYS, UNIQ_KEY, WAIT, DELAY and user properties. Encoded on the
	// wire and on disk as name 0x01 value 0x02 ... (see MarshalProperties).
	Properties map[string]string
	Body       []byte
	// TransactionID is client-side only (never on the wire as a field).
	TransactionID string
}

// MessageExt is a message as stored by a broker and read back: Message plus store metadata.
// Mirrors org.apache.rocketmq.common.message.MessageExt.
type MessageExt struct {
	Message
	// MsgID is UNIQ_KEY when present, else OffsetMsgID.
	MsgID string
	// OffsetMsgID is hex(storeHost IP + port + CommitLogOffset), 32 upper-case chars for IPv4.
	OffsetMsgID string
	// StoreSize is the record's TOTALSIZE in bytes.
	StoreSize int32
	QueueID   int32
	// QueueOffset is the message's index in its ConsumeQueue (ConsumeQueue units, not bytes).
	QueueOffset int64
	// CommitLogOffset is the physical byte offset of the record in the CommitLog.
	CommitLogOffset int64
	SysFlag         int32
	// BornTimestamp and StoreTimestamp are milliseconds since the Unix epoch.
	BornTimestamp  int64
	StoreTimestamp int64
	// BornHost and StoreHost are "ip:port".
	BornHost  string
	StoreHost string
	// BodyCRC is CRC-32 (IEEE) of the stored body masked with 0x7FFFFFFF.
	BodyCRC        int32
	ReconsumeTimes int32
	// PreparedTransactionOffset is the half message's CommitLog offset for a committed
	// transaction message, else 0.
	PreparedTransactionOffset int64
}

// MessageExtBrokerInner is the form a message takes inside the broker on its way into the
// CommitLog: the properties already encoded, the tags hash computed.
// Mirrors org.apache.rocketmq.common.message.MessageExtBrokerInner.
type MessageExtBrokerInner struct {
	MessageExt
	// PropertiesString is the encoded properties (what the record stores, ≤ 32767 bytes).
	PropertiesString string
	// TagsCode is Java String.hashCode of TAGS sign-extended to 64 bits (0 without tags); for
	// SCHEDULE_TOPIC_XXXX it is the deliver timestamp in ms.
	TagsCode int64
	// BornHostBytes and StoreHostBytes are the raw host fields: 4-byte IPv4 (or 16-byte IPv6)
	// followed by a 4-byte big-endian port. Their lengths must match SysFlag bits 4 and 5.
	BornHostBytes  []byte
	StoreHostBytes []byte
}

// MessageQueue names one queue: topic, broker name, queue id.
// Mirrors org.apache.rocketmq.common.message.MessageQueue. JSON field names are RocketMQ's.
type MessageQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int32  `json:"queueId"`
}

// String formats the queue as Java does: "MessageQueue [topic=T, brokerName=B, queueId=N]".
// Java: MessageQueue#toString.
func (q MessageQueue) String() string {
	return "MessageQueue [topic=" + q.Topic + ", brokerName=" + q.BrokerName +
		", queueId=" + strconv.Itoa(int(q.QueueID)) + "]"
}

// CopyToInner returns a message to put again built from the stored message m, for topic and
// queueID: m's body (shared, not copied), flag, sysFlag, born timestamp and host, store host and
// reconsume times, and a copy of m's properties (an empty map when m has none). PropertiesString
// and TagsCode are left to the caller: each path decides which properties its record stores.
// It is what the broker's re-puts share: a delayed message's delivery, a transaction's commit,
// a half message put back or discarded.
func (m *MessageExt) CopyToInner(topic string, queueID int32) *MessageExtBrokerInner {
	inner := &MessageExtBrokerInner{}
	inner.Topic = topic
	inner.QueueID = queueID
	inner.Body = m.Body
	inner.Flag = m.Flag
	inner.SysFlag = m.SysFlag
	inner.BornTimestamp = m.BornTimestamp
	inner.BornHost = m.BornHost
	inner.StoreHost = m.StoreHost
	inner.ReconsumeTimes = m.ReconsumeTimes
	inner.Properties = make(map[string]string, len(m.Properties)+1)
	for k, v := range m.Properties {
		inner.Properties[k] = v
	}
	return inner
}
