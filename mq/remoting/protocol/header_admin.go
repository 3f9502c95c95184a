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
