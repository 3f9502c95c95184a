package protocol

import "strings"

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

// The send header's fields by index: the order of sendKeysV1 and sendKeysV2 (V2's a … n).
const (
	sendProducerGroup = iota
	sendTopic
	sendDefaultTopic
	sendDefaultTopicQueueNums
	sendQueueID
	sendSysFlag
	sendBornTimestamp
	sendFlag
	sendProperties
	sendReconsumeTimes
	sendUnitMode
	sendMaxReconsumeTimes
	sendBatch
	sendBrokerName
	sendFieldCount
)

// sendKeys are the wire keys of the send header's fields, by index.
type sendKeys [sendFieldCount]string

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
	f := SendHeaderFields{keys: &sendKeysV1}
	f.fromMap(ext)
	return f.decodeInto(h)
}

// DecodeSendMessageRequestHeaderV2 reads the single-letter header of SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE (a = producerGroup … n = bname) into the same struct.
// Java: SendMessageRequestHeaderV2#createSendMessageRequestHeaderV1.
func DecodeSendMessageRequestHeaderV2(ext map[string]string) (SendMessageRequestHeader, error) {
	var h SendMessageRequestHeader
	f := SendHeaderFields{keys: &sendKeysV2, labels: sendV2Labels}
	f.fromMap(ext)
	err := f.decodeInto(&h)
	return h, err
}

// SendHeaderFields is a send request's header fields as text, collected member by member while
// the request's JSON header is decoded (it is a remoting.CustomHeader: SetExtField), so the
// broker decodes SendMessageRequestHeader without building the extFields map first. Decode
// applies the rules DecodeHeader and DecodeSendMessageRequestHeaderV2 apply to a map, with the
// same errors. The zero value is not usable: NewSendHeaderFields.
// Java: SendMessageRequestHeaderV2 (a … n) and SendMessageRequestHeader (long names), whose
// fields RemotingCommand#decodeCommandCustomHeader fills from the extFields map.
type SendHeaderFields struct {
	keys   *sendKeys
	labels map[string]string
	vals   [sendFieldCount]string
	has    uint16 // bit i: field i was present
}

// NewSendHeaderFields returns the collector of a send request with code: the single-letter
// keys for SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320), the long names for
// SEND_MESSAGE (10); nil for any other code.
func NewSendHeaderFields(code int32) *SendHeaderFields {
	switch code {
	case SendMessageV2, SendBatchMessage:
		return &SendHeaderFields{keys: &sendKeysV2, labels: sendV2Labels}
	case SendMessage:
		return &SendHeaderFields{keys: &sendKeysV1}
	}
	return nil
}

// SetExtField keeps value when key is one of the header's keys and reports whether it was (a
// later value of the same key replaces an earlier one, as in a map). Other keys are not kept:
// the caller keeps them in the command's extFields.
func (f *SendHeaderFields) SetExtField(key, value string) bool {
	i := f.index(key)
	if i < 0 {
		return false
	}
	f.vals[i] = value
	f.has |= 1 << i
	return true
}

// ExtField returns the text of the header field with wire key key and whether it was present.
func (f *SendHeaderFields) ExtField(key string) (string, bool) {
	if i := f.index(key); i >= 0 && f.has&(1<<i) != 0 {
		return f.vals[i], true
	}
	return "", false
}

// index is key's field index, or -1 for a key the header does not have.
func (f *SendHeaderFields) index(key string) int {
	if f.keys == &sendKeysV2 {
		if len(key) == 1 && key[0] >= 'a' && key[0] < 'a'+sendFieldCount {
			return int(key[0] - 'a')
		}
		return -1
	}
	for i, k := range f.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// fromMap takes the header's fields from an extFields map.
func (f *SendHeaderFields) fromMap(ext map[string]string) {
	for i, k := range f.keys {
		if v, ok := ext[k]; ok {
			f.vals[i] = v
			f.has |= 1 << i
		}
	}
}

// Decode returns the typed header. Errors: ErrMissingField, ErrBadField, naming the first
// field (in the header's field order) that is absent or does not parse.
func (f *SendHeaderFields) Decode() (SendMessageRequestHeader, error) {
	var h SendMessageRequestHeader
	err := f.decodeInto(&h)
	return h, err
}

func (f *SendHeaderFields) decodeInto(h *SendMessageRequestHeader) error {
	r := extReader{labels: f.labels}
	*h = SendMessageRequestHeader{
		ProducerGroup:         f.str(&r, sendProducerGroup),
		Topic:                 f.str(&r, sendTopic),
		DefaultTopic:          f.str(&r, sendDefaultTopic),
		DefaultTopicQueueNums: f.i32(&r, sendDefaultTopicQueueNums),
		QueueID:               f.i32(&r, sendQueueID),
		SysFlag:               f.i32(&r, sendSysFlag),
		BornTimestamp:         f.i64(&r, sendBornTimestamp),
		Flag:                  f.i32(&r, sendFlag),
		Properties:            f.vals[sendProperties],
		UnitMode:              strings.EqualFold(f.vals[sendUnitMode], "true"),
		Batch:                 strings.EqualFold(f.vals[sendBatch], "true"),
		BrokerName:            f.vals[sendBrokerName],
	}
	h.ReconsumeTimes, _ = f.optI32(&r, sendReconsumeTimes)
	h.MaxReconsumeTimes, h.HasMaxReconsumeTimes = f.optI32(&r, sendMaxReconsumeTimes)
	return r.err
}

// The readers of field i by extReader's rules (the first failure sticks in r.err).

func (f *SendHeaderFields) present(i int) bool { return f.has&(1<<i) != 0 }

func (f *SendHeaderFields) str(r *extReader, i int) string {
	if !f.present(i) {
		r.missing(f.keys[i])
	}
	return f.vals[i]
}

func (f *SendHeaderFields) i32(r *extReader, i int) int32 {
	if !f.present(i) {
		r.missing(f.keys[i])
		return 0
	}
	return r.parse32(f.keys[i], f.vals[i])
}

func (f *SendHeaderFields) i64(r *extReader, i int) int64 {
	if !f.present(i) {
		r.missing(f.keys[i])
		return 0
	}
	return r.parse64(f.keys[i], f.vals[i])
}

func (f *SendHeaderFields) optI32(r *extReader, i int) (int32, bool) {
	if !f.present(i) {
		return 0, false
	}
	return r.parse32(f.keys[i], f.vals[i]), true
}

// encodeExt writes the V1 (long-name) header.
func (h *SendMessageRequestHeader) encodeExt() map[string]string { return h.encode(&sendKeysV1) }

// EncodeV2 writes the single-letter header of SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE.
func (h *SendMessageRequestHeader) EncodeV2() map[string]string { return h.encode(&sendKeysV2) }

func (h *SendMessageRequestHeader) encode(k *sendKeys) map[string]string {
	ext := map[string]string{
		k[sendProducerGroup]:         h.ProducerGroup,
		k[sendTopic]:                 h.Topic,
		k[sendDefaultTopic]:          h.DefaultTopic,
		k[sendDefaultTopicQueueNums]: itoa32(h.DefaultTopicQueueNums),
		k[sendQueueID]:               itoa32(h.QueueID),
		k[sendSysFlag]:               itoa32(h.SysFlag),
		k[sendBornTimestamp]:         itoa64(h.BornTimestamp),
		k[sendFlag]:                  itoa32(h.Flag),
		k[sendProperties]:            h.Properties,
		k[sendReconsumeTimes]:        itoa32(h.ReconsumeTimes),
		k[sendUnitMode]:              btoa(h.UnitMode),
		k[sendBatch]:                 btoa(h.Batch),
	}
	if h.HasMaxReconsumeTimes {
		ext[k[sendMaxReconsumeTimes]] = itoa32(h.MaxReconsumeTimes)
	}
	putOpt(ext, k[sendBrokerName], h.BrokerName)
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
