package transaction

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// The system topics and group of transactions, written as literals (this package sits below
// mq/remoting/protocol, whose TopicValidator/MixAll constants hold the same names; a test pins
// that they agree). Java: TopicValidator, MixAll.CID_SYS_RMQ_TRANS, TransactionalMessageUtil.
const (
	// HalfTopic holds every half message, in queue 0. Java: RMQ_SYS_TRANS_HALF_TOPIC.
	HalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC"
	// OpHalfTopic records decisions: one op message per ended half message, in the op queue of
	// the same id as the half queue. Java: RMQ_SYS_TRANS_OP_HALF_TOPIC.
	OpHalfTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	// CheckMaxTimeTopic receives half messages checked transactionCheckMax times without a
	// decision. Java: TRANS_CHECK_MAX_TIME_TOPIC.
	CheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC"
	// SysGroup owns the half and op queue offsets (in consumerOffset.json). Java:
	// MixAll.CID_SYS_RMQ_TRANS = "CID_RMQ_SYS_TRANS".
	SysGroup = "CID_RMQ_SYS_TRANS"
	// RemoveTag is the TAGS of an op message: the half message at the body's queue offset is
	// decided (committed or rolled back). Java: TransactionalMessageUtil.REMOVETAG.
	RemoveTag = "d"
)

// Limits of one check pass. Java: TransactionalMessageServiceImpl's constants.
const (
	// maxProcessTimeLimit ends a pass over one half queue after 60 s (of the store's clock).
	maxProcessTimeLimit = 60 * time.Second
	// maxRetryCountWhenHalfNull: a pass stops after this many half offsets that read nothing.
	maxRetryCountWhenHalfNull = 1
	// opMsgPullNums is how many op messages fillOpRemoveMap reads at once.
	opMsgPullNums = 32
)

// MessageStore is the part of the store transactions use; *store.DefaultMessageStore
// implements it. Times are ms on the store's clock (Now).
type MessageStore interface {
	PutMessage(msg *primitive.MessageExtBrokerInner) store.PutMessageResult
	AsyncPutMessage(msg *primitive.MessageExtBrokerInner) <-chan store.PutMessageResult
	GetMessage(group, topic string, queueID int32, offset store.QueueOffset, maxMsgNums int32, filter store.MessageFilter) *store.GetMessageResult
	GetMinOffsetInQueue(topic string, queueID int32) store.QueueOffset
	LookMessageByOffset(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error)
	Now() int64
}

// OffsetStore keeps the SysGroup's offsets of the half and op queues; the broker's
// ConsumerOffsetManager implements it. QueryOffset answers -1 when none is stored.
type OffsetStore interface {
	QueryOffset(group, topic string, queueID int32) store.QueueOffset
	CommitOffset(clientHost, group, topic string, queueID int32, offset store.QueueOffset)
}
