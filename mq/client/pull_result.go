package client

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// PullStatus is the client's reading of a pull response.
// Mirrors org.apache.rocketmq.client.consumer.PullStatus.
type PullStatus int

const (
	// PullFound: messages came back (SUCCESS, 0).
	PullFound PullStatus = iota
	// PullNoNewMsg: nothing at or after the offset (PULL_NOT_FOUND, 19).
	PullNoNewMsg
	// PullNoMatchedMsg: messages there, none passed the broker's filter (PULL_RETRY_IMMEDIATELY, 20).
	PullNoMatchedMsg
	// PullOffsetIllegal: the offset is outside the queue (PULL_OFFSET_MOVED, 21).
	PullOffsetIllegal
)

// pullStatusOf reads a PULL_MESSAGE answer's code; false for any other code. A switch, not a
// map: it runs on every pull answer. Java: MQClientAPIImpl#processPullResponse.
func pullStatusOf(code int32) (PullStatus, bool) {
	switch code {
	case protocol.Success:
		return PullFound, true
	case protocol.PullNotFound:
		return PullNoNewMsg, true
	case protocol.PullRetryImmediately:
		return PullNoMatchedMsg, true
	case protocol.PullOffsetMoved:
		return PullOffsetIllegal, true
	}
	return 0, false
}

var pullStatusNames = [...]string{PullFound: "FOUND", PullNoNewMsg: "NO_NEW_MSG", PullNoMatchedMsg: "NO_MATCHED_MSG",
	PullOffsetIllegal: "OFFSET_ILLEGAL"}

// String returns Java's name.
func (s PullStatus) String() string {
	if s >= 0 && int(s) < len(pullStatusNames) {
		return pullStatusNames[s]
	}
	return "UNKNOWN"
}

// PullResult is one pull's outcome. Offsets are ConsumeQueue indexes (units, not bytes).
// Mirrors org.apache.rocketmq.client.consumer.PullResult (and PullResultExt, whose raw body
// and suggested broker id are kept here until PullAPIWrapper#processPullResult decodes them).
type PullResult struct {
	PullStatus      PullStatus
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	// MsgFoundList holds the decoded messages that passed the client-side tag filter.
	MsgFoundList []*primitive.MessageExt
	// SuggestWhichBrokerID is the broker id the next pull of the queue should go to.
	SuggestWhichBrokerID int64
	// MessageBinary is the raw body of a FOUND answer (cleared once decoded).
	MessageBinary []byte
}
