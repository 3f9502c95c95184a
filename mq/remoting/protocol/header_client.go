package protocol

// GroupRequestHeader carries only `consumerGroup` (required): the header of
// GET_CONSUMER_LIST_BY_GROUP (38) and NOTIFY_CONSUMER_IDS_CHANGED (40).
// Mirrors GetConsumerListByGroupRequestHeader and NotifyConsumerIdsChangedRequestHeader.
type GroupRequestHeader struct {
	ConsumerGroup string `ext:"consumerGroup"`
}

// The per-code names of GroupRequestHeader, as in Java.
type (
	GetConsumerListByGroupRequestHeader   = GroupRequestHeader
	NotifyConsumerIdsChangedRequestHeader = GroupRequestHeader
)

// Decode reads the header. Errors: ErrMissingField.
func (h *GroupRequestHeader) Decode(ext map[string]string) error { return decodeHeader(ext, h) }

// Encode writes the header.
func (h *GroupRequestHeader) Encode() map[string]string { return encodeHeader(h) }

// UnregisterClientRequestHeader is the header of UNREGISTER_CLIENT (35), which Java clients
// send on shutdown (client-go never does). Mirrors UnregisterClientRequestHeader.
type UnregisterClientRequestHeader struct {
	// ClientID (key `clientID`) is required.
	ClientID      string `ext:"clientID"`
	ProducerGroup string `ext:"producerGroup,omitempty"`
	ConsumerGroup string `ext:"consumerGroup,omitempty"`
}

// Decode reads the header. Errors: ErrMissingField.
func (h *UnregisterClientRequestHeader) Decode(ext map[string]string) error {
	return decodeHeader(ext, h)
}

// Encode writes the header.
func (h *UnregisterClientRequestHeader) Encode() map[string]string { return encodeHeader(h) }
