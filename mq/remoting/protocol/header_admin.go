package protocol

// CreateTopicRequestHeader is the header of UPDATE_AND_CREATE_TOPIC (17).
// Mirrors CreateTopicRequestHeader (remoting-protocol.md §4.15).
type CreateTopicRequestHeader struct {
	Topic          string // required
	DefaultTopic   string // required (client-go sends "defaultTopic")
	ReadQueueNums  int32  // required
	WriteQueueNums int32  // required
	Perm           int32  // required, Perm* bits
	// TopicFilterType must be SINGLE_TAG or MULTI_TAG (Java checkFields). Required.
	TopicFilterType TopicFilterType
	TopicSysFlag    int32 // optional
	Order           bool  // required
}

// Decode reads the header. Errors: ErrMissingField, ErrBadField (also for an unknown
// topicFilterType).
func (h *CreateTopicRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = CreateTopicRequestHeader{
		Topic:           r.str("topic"),
		DefaultTopic:    r.str("defaultTopic"),
		ReadQueueNums:   r.i32("readQueueNums"),
		WriteQueueNums:  r.i32("writeQueueNums"),
		Perm:            r.i32("perm"),
		TopicFilterType: TopicFilterType(r.str("topicFilterType")),
		Order:           r.boolean("order"),
	}
	h.TopicSysFlag, _ = r.optI32("topicSysFlag")
	if r.err == nil && h.TopicFilterType != SingleTag && h.TopicFilterType != MultiTag {
		r.bad("topicFilterType", string(h.TopicFilterType), "SINGLE_TAG or MULTI_TAG")
	}
	return r.err
}

// Encode writes the header.
func (h *CreateTopicRequestHeader) Encode() map[string]string {
	return map[string]string{
		"topic":           h.Topic,
		"defaultTopic":    h.DefaultTopic,
		"readQueueNums":   itoa32(h.ReadQueueNums),
		"writeQueueNums":  itoa32(h.WriteQueueNums),
		"perm":            itoa32(h.Perm),
		"topicFilterType": string(h.TopicFilterType),
		"topicSysFlag":    itoa32(h.TopicSysFlag),
		"order":           btoa(h.Order),
	}
}

// DeleteTopicRequestHeader is the header of DELETE_TOPIC_IN_BROKER (215).
// Mirrors DeleteTopicRequestHeader.
type DeleteTopicRequestHeader struct {
	Topic string // required
}

// Decode reads the header. Errors: ErrMissingField.
func (h *DeleteTopicRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	h.Topic = r.str("topic")
	return r.err
}

// Encode writes the header.
func (h *DeleteTopicRequestHeader) Encode() map[string]string {
	return map[string]string{"topic": h.Topic}
}
