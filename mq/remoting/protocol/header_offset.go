package protocol

// QueryConsumerOffsetRequestHeader is the header of QUERY_CONSUMER_OFFSET (14).
// Mirrors QueryConsumerOffsetRequestHeader (remoting-protocol.md §4.7).
type QueryConsumerOffsetRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup"`
	Topic         string `ext:"topic"`
	QueueID       int32  `ext:"queueId"`
	BrokerName    string `ext:"bname,omitempty"`
}

// OffsetResponseHeader is the `offset` response header of QUERY_CONSUMER_OFFSET (14),
// GET_MAX_OFFSET (30), GET_MIN_OFFSET (31) and SEARCH_OFFSET_BY_TIMESTAMP (29): a ConsumeQueue
// index. Mirrors QueryConsumerOffsetResponseHeader, GetMaxOffsetResponseHeader,
// GetMinOffsetResponseHeader and SearchOffsetResponseHeader, which differ only in name.
//
// `offset` is required (Java: nullable only for QUERY_CONSUMER_OFFSET, whose "no offset"
// answer is code 22 without a header, never a header without offset).
type OffsetResponseHeader struct {
	Offset int64 `ext:"offset"`
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
	ConsumerGroup string `ext:"consumerGroup"`
	Topic         string `ext:"topic"`
	QueueID       int32  `ext:"queueId"`
	// CommitOffset is the next ConsumeQueue index to consume.
	CommitOffset int64  `ext:"commitOffset"`
	BrokerName   string `ext:"bname,omitempty"`
}

// TopicQueueRequestHeader is the header of GET_MAX_OFFSET (30) and GET_MIN_OFFSET (31): topic
// and queueId (required), bname (optional). Mirrors GetMaxOffsetRequestHeader and
// GetMinOffsetRequestHeader (remoting-protocol.md §4.9).
type TopicQueueRequestHeader struct {
	Topic      string `ext:"topic"`
	QueueID    int32  `ext:"queueId"`
	BrokerName string `ext:"bname,omitempty"`
}

// The per-code names of TopicQueueRequestHeader, as in Java.
type (
	GetMaxOffsetRequestHeader = TopicQueueRequestHeader
	GetMinOffsetRequestHeader = TopicQueueRequestHeader
)

// SearchOffsetRequestHeader is the header of SEARCH_OFFSET_BY_TIMESTAMP (29).
// Mirrors SearchOffsetRequestHeader (remoting-protocol.md §4.9).
type SearchOffsetRequestHeader struct {
	Topic   string `ext:"topic"`
	QueueID int32  `ext:"queueId"`
	// Timestamp is the store time to look for, ms.
	Timestamp  int64  `ext:"timestamp"`
	BrokerName string `ext:"bname,omitempty"`
}
