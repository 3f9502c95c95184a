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

// Decode reads the header. Errors: ErrMissingField, ErrBadField (also for an unknown
// topicFilterType).
func (h *CreateTopicRequestHeader) Decode(ext map[string]string) error {
	if err := decodeHeader(ext, h); err != nil {
		return err
	}
	if h.TopicFilterType != SingleTag && h.TopicFilterType != MultiTag {
		r := extReader{ext: ext}
		r.bad("topicFilterType", string(h.TopicFilterType), "SINGLE_TAG or MULTI_TAG")
		return r.err
	}
	return nil
}

// Encode writes the header.
func (h *CreateTopicRequestHeader) Encode() map[string]string { return encodeHeader(h) }

// DeleteTopicRequestHeader is the header of DELETE_TOPIC_IN_BROKER (215).
// Mirrors DeleteTopicRequestHeader.
type DeleteTopicRequestHeader struct {
	Topic string `ext:"topic"`
}

// Decode reads the header. Errors: ErrMissingField.
func (h *DeleteTopicRequestHeader) Decode(ext map[string]string) error { return decodeHeader(ext, h) }

// Encode writes the header.
func (h *DeleteTopicRequestHeader) Encode() map[string]string { return encodeHeader(h) }
