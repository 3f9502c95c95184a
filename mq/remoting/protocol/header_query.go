package protocol

// QueryMessageRequestHeader is the header of QUERY_MESSAGE (12): the messages of a key through
// the index, stored between BeginTimestamp and EndTimestamp (ms), at most MaxNum of them. All
// fields are required. Mirrors QueryMessageRequestHeader (remoting-protocol.md §4.16).
type QueryMessageRequestHeader struct {
	Topic          string `ext:"topic"`
	Key            string `ext:"key"`
	MaxNum         int32  `ext:"maxNum"`
	BeginTimestamp int64  `ext:"beginTimestamp"`
	EndTimestamp   int64  `ext:"endTimestamp"`
}

// ViewMessageRequestHeader is the header of VIEW_MESSAGE_BY_ID (33): the record at Offset, a
// CommitLog offset (bytes; the one an offsetMsgId carries). Required.
// Mirrors ViewMessageRequestHeader (remoting-protocol.md §4.16).
type ViewMessageRequestHeader struct {
	Offset int64 `ext:"offset"`
}
