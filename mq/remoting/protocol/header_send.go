package protocol

// SendMessageRequestHeader is the header of SEND_MESSAGE (10), SEND_REPLY_MESSAGE (324) and,
// under single-letter keys, SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320).
// Mirrors SendMessageRequestHeader / SendMessageRequestHeaderV2 (remoting-protocol.md §4.3, §4.4).
type SendMessageRequestHeader struct {
	ProducerGroup string // required
	Topic         string // required
	// DefaultTopic is the auto-create template (client-go always sends TBW102). Required.
	DefaultTopic string
	// DefaultTopicQueueNums is the queue count for auto-creation (client-go: 4). Required.
	DefaultTopicQueueNums int32
	// QueueID: negative asks the broker to pick one. Required.
	QueueID int32
	// SysFlag holds the message sysFlag bits (primitive.CompressedFlag, transaction type). Required.
	SysFlag int32
	// BornTimestamp is the producer's ms timestamp. Required.
	BornTimestamp int64
	// Flag is the user flag. Required.
	Flag int32
	// Properties is the encoded properties string (primitive.MarshalProperties). Optional.
	Properties     string
	ReconsumeTimes int32 // optional, 0 when absent
	UnitMode       bool  // optional
	// MaxReconsumeTimes is honoured only for %RETRY% topics; HasMaxReconsumeTimes tells
	// whether it was sent (absent: the group's retryMaxTimes applies). Optional.
	MaxReconsumeTimes    int32
	HasMaxReconsumeTimes bool
	// Batch marks a SEND_BATCH_MESSAGE body. Optional.
	Batch bool
	// BrokerName is the `bname` of RpcRequestHeader (informational). Optional.
	BrokerName string
}

type sendKeys struct {
	producerGroup, topic, defaultTopic, defaultTopicQueueNums, queueID, sysFlag,
	bornTimestamp, flag, properties, reconsumeTimes, unitMode, maxReconsumeTimes, batch, brokerName string
}

var (
	sendKeysV1 = sendKeys{"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag",
		"bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch", "bname"}
	sendKeysV2 = sendKeys{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"}
	// sendV2Labels names the single-letter keys in errors.
	sendV2Labels = map[string]string{"a": "producerGroup", "b": "topic", "c": "defaultTopic",
		"d": "defaultTopicQueueNums", "e": "queueId", "f": "sysFlag", "g": "bornTimestamp", "h": "flag",
		"i": "properties", "j": "reconsumeTimes", "k": "unitMode", "l": "maxReconsumeTimes", "m": "batch", "n": "bname"}
)

// decodeExt reads the V1 (long-name) header of SEND_MESSAGE and SEND_REPLY_MESSAGE.
// Errors: ErrMissingField, ErrBadField.
func (h *SendMessageRequestHeader) decodeExt(ext map[string]string) error {
	return h.decode(ext, &sendKeysV1, nil)
}

// DecodeSendMessageRequestHeaderV2 reads the single-letter header of SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE (a = producerGroup … n = bname) into the same struct.
// Java: SendMessageRequestHeaderV2#createSendMessageRequestHeaderV1.
func DecodeSendMessageRequestHeaderV2(ext map[string]string) (SendMessageRequestHeader, error) {
	var h SendMessageRequestHeader
	err := h.decode(ext, &sendKeysV2, sendV2Labels)
	return h, err
}

func (h *SendMessageRequestHeader) decode(ext map[string]string, k *sendKeys, labels map[string]string) error {
	r := extReader{ext: ext, labels: labels}
	*h = SendMessageRequestHeader{
		ProducerGroup:         r.str(k.producerGroup),
		Topic:                 r.str(k.topic),
		DefaultTopic:          r.str(k.defaultTopic),
		DefaultTopicQueueNums: r.i32(k.defaultTopicQueueNums),
		QueueID:               r.i32(k.queueID),
		SysFlag:               r.i32(k.sysFlag),
		BornTimestamp:         r.i64(k.bornTimestamp),
		Flag:                  r.i32(k.flag),
		Properties:            r.optStr(k.properties),
		UnitMode:              r.optBool(k.unitMode),
		Batch:                 r.optBool(k.batch),
		BrokerName:            r.optStr(k.brokerName),
	}
	h.ReconsumeTimes, _ = r.optI32(k.reconsumeTimes)
	h.MaxReconsumeTimes, h.HasMaxReconsumeTimes = r.optI32(k.maxReconsumeTimes)
	return r.err
}

// encodeExt writes the V1 (long-name) header.
func (h *SendMessageRequestHeader) encodeExt() map[string]string { return h.encode(&sendKeysV1) }

// EncodeV2 writes the single-letter header of SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE.
func (h *SendMessageRequestHeader) EncodeV2() map[string]string { return h.encode(&sendKeysV2) }

func (h *SendMessageRequestHeader) encode(k *sendKeys) map[string]string {
	ext := map[string]string{
		k.producerGroup:         h.ProducerGroup,
		k.topic:                 h.Topic,
		k.defaultTopic:          h.DefaultTopic,
		k.defaultTopicQueueNums: itoa32(h.DefaultTopicQueueNums),
		k.queueID:               itoa32(h.QueueID),
		k.sysFlag:               itoa32(h.SysFlag),
		k.bornTimestamp:         itoa64(h.BornTimestamp),
		k.flag:                  itoa32(h.Flag),
		k.properties:            h.Properties,
		k.reconsumeTimes:        itoa32(h.ReconsumeTimes),
		k.unitMode:              btoa(h.UnitMode),
		k.batch:                 btoa(h.Batch),
	}
	if h.HasMaxReconsumeTimes {
		ext[k.maxReconsumeTimes] = itoa32(h.MaxReconsumeTimes)
	}
	putOpt(ext, k.brokerName, h.BrokerName)
	return ext
}

// SendMessageResponseHeader is the header of a send response (10, 310, 320, 324).
// Mirrors SendMessageResponseHeader plus the MSG_REGION / TRACE_ON extFields the broker adds
// (remoting-protocol.md §4.1, §4.3).
type SendMessageResponseHeader struct {
	// MsgID is the offsetMsgId (comma-separated, one per message, for a batch). Required.
	MsgID string
	// QueueID is the queue written. Required.
	QueueID int32
	// QueueOffset is the ConsumeQueue index of the (first) stored message. Required.
	QueueOffset int64
	// TransactionID is declared by Java but not filled by the 4.9.8 broker. Optional.
	TransactionID string
	// MsgRegion is the broker's regionId (extField MSG_REGION, default "DefaultRegion").
	MsgRegion string
	// TraceOn is extField TRACE_ON; it decodes as client-go reads it: true unless absent,
	// empty or "false".
	TraceOn bool
}

// decodeExt reads a send response header. Errors: ErrMissingField, ErrBadField.
func (h *SendMessageResponseHeader) decodeExt(ext map[string]string) error {
	r := extReader{ext: ext}
	trace := r.optStr("TRACE_ON")
	*h = SendMessageResponseHeader{
		MsgID:         r.str("msgId"),
		QueueID:       r.i32("queueId"),
		QueueOffset:   r.i64("queueOffset"),
		TransactionID: r.optStr("transactionId"),
		MsgRegion:     r.optStr("MSG_REGION"),
		TraceOn:       trace != "" && trace != "false",
	}
	return r.err
}

// encodeExt writes the header; TRACE_ON always, MSG_REGION and transactionId when set.
func (h *SendMessageResponseHeader) encodeExt() map[string]string {
	ext := map[string]string{
		"msgId":       h.MsgID,
		"queueId":     itoa32(h.QueueID),
		"queueOffset": itoa64(h.QueueOffset),
		"TRACE_ON":    btoa(h.TraceOn),
	}
	putOpt(ext, "transactionId", h.TransactionID)
	putOpt(ext, "MSG_REGION", h.MsgRegion)
	return ext
}

// ConsumerSendMsgBackRequestHeader is the header of CONSUMER_SEND_MSG_BACK (36).
// Mirrors ConsumerSendMsgBackRequestHeader (remoting-protocol.md §4.11).
type ConsumerSendMsgBackRequestHeader struct {
	// Offset is the failed message's CommitLog offset (bytes).
	Offset int64  `ext:"offset"`
	Group  string `ext:"group"`
	// DelayLevel: 0 = broker decides (3 + reconsumeTimes), < 0 = straight to DLQ.
	DelayLevel  int32  `ext:"delayLevel"`
	OriginMsgID string `ext:"originMsgId,omitempty"`
	OriginTopic string `ext:"originTopic,omitempty"`
	UnitMode    bool   `ext:"unitMode,optional"`
	// MaxReconsumeTimes, when HasMaxReconsumeTimes, overrides the group's retryMaxTimes.
	MaxReconsumeTimes    int32 `ext:"maxReconsumeTimes,has=HasMaxReconsumeTimes"`
	HasMaxReconsumeTimes bool
	BrokerName           string `ext:"bname,omitempty"`
}

// EndTransactionRequestHeader is the header of END_TRANSACTION (37).
// Mirrors EndTransactionRequestHeader (remoting-protocol.md §4.12).
type EndTransactionRequestHeader struct {
	ProducerGroup string `ext:"producerGroup"`
	// TranStateTableOffset is the half message's ConsumeQueue index (send reply queueOffset).
	TranStateTableOffset int64 `ext:"tranStateTableOffset"`
	// CommitLogOffset is the half message's CommitLog offset (bytes).
	CommitLogOffset int64 `ext:"commitLogOffset"`
	// CommitOrRollback is primitive.TransactionNotType (0), TransactionCommitType (8) or
	// TransactionRollbackType (12); anything else is ErrBadField (Java checkFields).
	CommitOrRollback     int32  `ext:"commitOrRollback"`
	FromTransactionCheck bool   `ext:"fromTransactionCheck,optional"`
	MsgID                string `ext:"msgId"`
	TransactionID        string `ext:"transactionId,omitempty"`
	BrokerName           string `ext:"bname,omitempty"`
}

// checkFields rejects a commitOrRollback other than 0, 8 and 12 (ErrBadField).
// Java: EndTransactionRequestHeader#checkFields.
func (h *EndTransactionRequestHeader) checkFields(ext map[string]string) error {
	switch h.CommitOrRollback {
	case 0, 8, 12:
		return nil
	}
	r := extReader{ext: ext}
	r.bad("commitOrRollback", ext["commitOrRollback"], "0, 8 or 12")
	return r.err
}

// CheckTransactionStateRequestHeader is the header of CHECK_TRANSACTION_STATE (39, broker →
// producer). Mirrors CheckTransactionStateRequestHeader (remoting-protocol.md §4.13).
type CheckTransactionStateRequestHeader struct {
	// TranStateTableOffset is the current half-queue index.
	TranStateTableOffset int64 `ext:"tranStateTableOffset"`
	// CommitLogOffset is the current half message's CommitLog offset (bytes).
	CommitLogOffset int64 `ext:"commitLogOffset"`
	// MsgID is the UNIQ_KEY.
	MsgID         string `ext:"msgId,omitempty"`
	TransactionID string `ext:"transactionId,omitempty"`
	OffsetMsgID   string `ext:"offsetMsgId,omitempty"`
}
