package protocol

// GroupRequestHeader carries only `consumerGroup` (required): the header of
// GET_CONSUMER_LIST_BY_GROUP (38) and NOTIFY_CONSUMER_IDS_CHANGED (40).
// Mirrors GetConsumerListByGroupRequestHeader and NotifyConsumerIdsChangedRequestHeader.
type GroupRequestHeader struct {
	ConsumerGroup string
}

// The per-code names of GroupRequestHeader, as in Java.
type (
	GetConsumerListByGroupRequestHeader   = GroupRequestHeader
	NotifyConsumerIdsChangedRequestHeader = GroupRequestHeader
)

// Decode reads the header. Errors: ErrMissingField.
func (h *GroupRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	h.ConsumerGroup = r.str("consumerGroup")
	return r.err
}

// Encode writes the header.
func (h *GroupRequestHeader) Encode() map[string]string {
	return map[string]string{"consumerGroup": h.ConsumerGroup}
}

// UnregisterClientRequestHeader is the header of UNREGISTER_CLIENT (35), which Java clients
// send on shutdown (client-go never does). Mirrors UnregisterClientRequestHeader.
type UnregisterClientRequestHeader struct {
	// ClientID (key `clientID`) is required.
	ClientID      string
	ProducerGroup string // optional
	ConsumerGroup string // optional
}

// Decode reads the header. Errors: ErrMissingField.
func (h *UnregisterClientRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = UnregisterClientRequestHeader{
		ClientID:      r.str("clientID"),
		ProducerGroup: r.optStr("producerGroup"),
		ConsumerGroup: r.optStr("consumerGroup"),
	}
	return r.err
}

// Encode writes the header.
func (h *UnregisterClientRequestHeader) Encode() map[string]string {
	ext := map[string]string{"clientID": h.ClientID}
	putOpt(ext, "producerGroup", h.ProducerGroup)
	putOpt(ext, "consumerGroup", h.ConsumerGroup)
	return ext
}
