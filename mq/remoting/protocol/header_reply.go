package protocol

// ReplyMessageRequestHeader is the header of PUSH_REPLY_MESSAGE_TO_CLIENT (326): the broker
// hands a reply (sent with SEND_REPLY_MESSAGE, 324/325) to the client that sent the request,
// on that client's own connection. The body is the reply's body, as sent.
// Mirrors ReplyMessageRequestHeader.
type ReplyMessageRequestHeader struct {
	ProducerGroup         string `ext:"producerGroup"`
	Topic                 string `ext:"topic"`
	DefaultTopic          string `ext:"defaultTopic"`
	DefaultTopicQueueNums int32  `ext:"defaultTopicQueueNums"`
	QueueID               int32  `ext:"queueId"`
	SysFlag               int32  `ext:"sysFlag"`
	BornTimestamp         int64  `ext:"bornTimestamp"` // ms, the replier's clock
	Flag                  int32  `ext:"flag"`
	// Properties is the reply's encoded properties string (primitive.MarshalProperties),
	// CORRELATION_ID and PUSH_REPLY_TIME (the broker's ms) among them.
	Properties     string `ext:"properties,optional"`
	ReconsumeTimes int32  `ext:"reconsumeTimes,optional"`
	UnitMode       bool   `ext:"unitMode,optional"`
	BornHost       string `ext:"bornHost"`       // the replier's address as the broker sees it
	StoreHost      string `ext:"storeHost"`      // the broker's address
	StoreTimestamp int64  `ext:"storeTimestamp"` // ms, the broker's clock at the push
}
