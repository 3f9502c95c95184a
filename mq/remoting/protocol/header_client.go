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

// UnregisterClientRequestHeader is the header of UNREGISTER_CLIENT (35), which Java clients
// send on shutdown (client-go never does). Mirrors UnregisterClientRequestHeader.
type UnregisterClientRequestHeader struct {
	// ClientID (key `clientID`) is required.
	ClientID      string `ext:"clientID"`
	ProducerGroup string `ext:"producerGroup,omitempty"`
	ConsumerGroup string `ext:"consumerGroup,omitempty"`
}
