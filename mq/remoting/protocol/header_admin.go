package protocol

// CreateTopicRequestHeader is the header of UPDATE_AND_CREATE_TOPIC (17).
// Mirrors CreateTopicRequestHeader (remoting-protocol.md §4.15).
type CreateTopicRequestHeader struct {
	Topic string `ext:"topic"`
	// DefaultTopic is required (client-go sends "defaultTopic").
	DefaultTopic   string `ext:"defaultTopic"`
	ReadQueueNums  int32  `ext:"readQueueNums"`
	WriteQueueNums int32  `ext:"writeQueueNums"`
	// Perm holds Perm* bits.
	Perm int32 `ext:"perm"`
	// TopicFilterType must be SINGLE_TAG or MULTI_TAG (Java checkFields).
	TopicFilterType TopicFilterType `ext:"topicFilterType"`
	TopicSysFlag    int32           `ext:"topicSysFlag,optional"`
	Order           bool            `ext:"order"`
}

// checkFields rejects a topicFilterType other than SINGLE_TAG and MULTI_TAG (ErrBadField).
// Java: CreateTopicRequestHeader#checkFields.
func (h *CreateTopicRequestHeader) checkFields(ext map[string]string) error {
	if h.TopicFilterType != SingleTag && h.TopicFilterType != MultiTag {
		r := extReader{ext: ext}
		r.bad("topicFilterType", string(h.TopicFilterType), "SINGLE_TAG or MULTI_TAG")
		return r.err
	}
	return nil
}

// DeleteTopicRequestHeader is the header of DELETE_TOPIC_IN_BROKER (215).
// Mirrors DeleteTopicRequestHeader.
type DeleteTopicRequestHeader struct {
	Topic string `ext:"topic"`
}

// TopicRequestHeader is the header of the admin requests that name one topic:
// GET_TOPIC_STATS_INFO (202) and QUERY_TOPIC_CONSUME_BY_WHO (300).
// Mirrors GetTopicStatsInfoRequestHeader and QueryTopicConsumeByWhoRequestHeader.
type TopicRequestHeader struct {
	Topic string `ext:"topic"`
}

// GetConsumeStatsRequestHeader is the header of GET_CONSUME_STATS (208): the group's offsets on
// every queue of Topic, or of every topic it subscribes (its retry topic included) when Topic
// is empty. Mirrors GetConsumeStatsRequestHeader.
type GetConsumeStatsRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup"`
	Topic         string `ext:"topic,omitempty"`
}

// GetConsumerConnectionListRequestHeader is the header of GET_CONSUMER_CONNECTION_LIST (203).
// Mirrors GetConsumerConnectionListRequestHeader.
type GetConsumerConnectionListRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup"`
}

// GetProducerConnectionListRequestHeader is the header of GET_PRODUCER_CONNECTION_LIST (204).
// Mirrors GetProducerConnectionListRequestHeader.
type GetProducerConnectionListRequestHeader struct {
	ProducerGroup string `ext:"producerGroup"`
}

// DeleteSubscriptionGroupRequestHeader is the header of DELETE_SUBSCRIPTIONGROUP (207);
// RemoveOffset also drops the group's consumer offsets. Mirrors DeleteSubscriptionGroupRequestHeader.
type DeleteSubscriptionGroupRequestHeader struct {
	GroupName    string `ext:"groupName"`
	RemoveOffset bool   `ext:"removeOffset,optional"`
}

// ResetOffsetRequestHeader is the header of INVOKE_BROKER_TO_RESET_OFFSET (222, admin →
// broker) and of RESET_CONSUMER_CLIENT_OFFSET (220, broker → consumer): the group's offsets on
// Topic go back (or, with IsForce, also forward) to the first message stored at or after
// Timestamp (ms). Mirrors ResetOffsetRequestHeader.
type ResetOffsetRequestHeader struct {
	Topic     string `ext:"topic"`
	Group     string `ext:"group"`
	Timestamp int64  `ext:"timestamp"`
	IsForce   bool   `ext:"isForce"`
}

// GetBrokerConfigResponseHeader is the header of a GET_BROKER_CONFIG (26) response: the config
// table's DataVersion as JSON. Mirrors GetBrokerConfigResponseHeader.
type GetBrokerConfigResponseHeader struct {
	Version string `ext:"version"`
}
