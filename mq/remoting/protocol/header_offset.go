package protocol

// QueryConsumerOffsetRequestHeader is the header of QUERY_CONSUMER_OFFSET (14).
// Mirrors QueryConsumerOffsetRequestHeader (remoting-protocol.md §4.7).
type QueryConsumerOffsetRequestHeader struct {
	ConsumerGroup string // required
	Topic         string // required
	QueueID       int32  // required
	BrokerName    string // `bname`, optional
}

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *QueryConsumerOffsetRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = QueryConsumerOffsetRequestHeader{
		ConsumerGroup: r.str("consumerGroup"),
		Topic:         r.str("topic"),
		QueueID:       r.i32("queueId"),
		BrokerName:    r.optStr("bname"),
	}
	return r.err
}

// Encode writes the header.
func (h *QueryConsumerOffsetRequestHeader) Encode() map[string]string {
	ext := map[string]string{
		"consumerGroup": h.ConsumerGroup,
		"topic":         h.Topic,
		"queueId":       itoa32(h.QueueID),
	}
	putOpt(ext, "bname", h.BrokerName)
	return ext
}

// OffsetResponseHeader is the `offset` response header of QUERY_CONSUMER_OFFSET (14),
// GET_MAX_OFFSET (30), GET_MIN_OFFSET (31) and SEARCH_OFFSET_BY_TIMESTAMP (29): a ConsumeQueue
// index. Mirrors QueryConsumerOffsetResponseHeader, GetMaxOffsetResponseHeader,
// GetMinOffsetResponseHeader and SearchOffsetResponseHeader, which differ only in name.
type OffsetResponseHeader struct {
	Offset int64
}

// Decode reads `offset`; it is required (Java: nullable only for QUERY_CONSUMER_OFFSET, whose
// "no offset" answer is code 22 without a header, never a header without offset).
// Errors: ErrMissingField, ErrBadField.
func (h *OffsetResponseHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	h.Offset = r.i64("offset")
	return r.err
}

// Encode writes `offset`.
func (h *OffsetResponseHeader) Encode() map[string]string {
	return map[string]string{"offset": itoa64(h.Offset)}
}

// The per-code names of OffsetResponseHeader, as in Java.
type (
	QueryConsumerOffsetResponseHeader = OffsetResponseHeader
	GetMaxOffsetResponseHeader        = OffsetResponseHeader
	GetMinOffsetResponseHeader        = OffsetResponseHeader
	SearchOffsetResponseHeader        = OffsetResponseHeader
)

// UpdateConsumerOffsetRequestHeader is the header of UPDATE_CONSUMER_OFFSET (15).
// Mirrors UpdateConsumerOffsetRequestHeader (remoting-protocol.md §4.8).
type UpdateConsumerOffsetRequestHeader struct {
	ConsumerGroup string // required
	Topic         string // required
	QueueID       int32  // required
	// CommitOffset is the next ConsumeQueue index to consume. Required.
	CommitOffset int64
	BrokerName   string // `bname`, optional
}

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *UpdateConsumerOffsetRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = UpdateConsumerOffsetRequestHeader{
		ConsumerGroup: r.str("consumerGroup"),
		Topic:         r.str("topic"),
		QueueID:       r.i32("queueId"),
		CommitOffset:  r.i64("commitOffset"),
		BrokerName:    r.optStr("bname"),
	}
	return r.err
}

// Encode writes the header.
func (h *UpdateConsumerOffsetRequestHeader) Encode() map[string]string {
	ext := map[string]string{
		"consumerGroup": h.ConsumerGroup,
		"topic":         h.Topic,
		"queueId":       itoa32(h.QueueID),
		"commitOffset":  itoa64(h.CommitOffset),
	}
	putOpt(ext, "bname", h.BrokerName)
	return ext
}

// TopicQueueRequestHeader is the header of GET_MAX_OFFSET (30) and GET_MIN_OFFSET (31): topic
// and queueId (required), bname (optional). Mirrors GetMaxOffsetRequestHeader and
// GetMinOffsetRequestHeader (remoting-protocol.md §4.9).
type TopicQueueRequestHeader struct {
	Topic      string
	QueueID    int32
	BrokerName string
}

// The per-code names of TopicQueueRequestHeader, as in Java.
type (
	GetMaxOffsetRequestHeader = TopicQueueRequestHeader
	GetMinOffsetRequestHeader = TopicQueueRequestHeader
)

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *TopicQueueRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = TopicQueueRequestHeader{
		Topic:      r.str("topic"),
		QueueID:    r.i32("queueId"),
		BrokerName: r.optStr("bname"),
	}
	return r.err
}

// Encode writes the header.
func (h *TopicQueueRequestHeader) Encode() map[string]string {
	ext := map[string]string{"topic": h.Topic, "queueId": itoa32(h.QueueID)}
	putOpt(ext, "bname", h.BrokerName)
	return ext
}

// SearchOffsetRequestHeader is the header of SEARCH_OFFSET_BY_TIMESTAMP (29).
// Mirrors SearchOffsetRequestHeader (remoting-protocol.md §4.9).
type SearchOffsetRequestHeader struct {
	Topic   string // required
	QueueID int32  // required
	// Timestamp is the store time to look for, ms. Required.
	Timestamp  int64
	BrokerName string // `bname`, optional
}

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *SearchOffsetRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = SearchOffsetRequestHeader{
		Topic:      r.str("topic"),
		QueueID:    r.i32("queueId"),
		Timestamp:  r.i64("timestamp"),
		BrokerName: r.optStr("bname"),
	}
	return r.err
}

// Encode writes the header.
func (h *SearchOffsetRequestHeader) Encode() map[string]string {
	ext := map[string]string{"topic": h.Topic, "queueId": itoa32(h.QueueID), "timestamp": itoa64(h.Timestamp)}
	putOpt(ext, "bname", h.BrokerName)
	return ext
}
