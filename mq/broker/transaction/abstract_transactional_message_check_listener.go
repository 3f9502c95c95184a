package transaction

import (
	"log/slog"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// CheckTransactionStateHeader is the header of CHECK_TRANSACTION_STATE (39) as the check
// decides it; the broker copies it into protocol.CheckTransactionStateRequestHeader.
// Java: CheckTransactionStateRequestHeader.
type CheckTransactionStateHeader struct {
	// TranStateTableOffset is the half message's queue offset (units) in the half queue.
	TranStateTableOffset store.QueueOffset
	// CommitLogOffset is the half message's CommitLog offset (bytes).
	CommitLogOffset store.CommitLogOffset
	// MsgID is UNIQ_KEY, OffsetMsgID the half record's offsetMsgId, TransactionID = MsgID.
	MsgID, OffsetMsgID, TransactionID string
}

// Broker2Client is how the check reaches producers; the broker implements it over its
// ProducerManager and remoting channels. Java: ProducerManager#getAvailableChannel and
// Broker2Client#checkProducerTransactionState.
type Broker2Client interface {
	// GetAvailableChannel returns a live channel of a producer of group, or nil.
	GetAvailableChannel(group string) *remoting.Channel
	// CheckProducerTransactionState sends CHECK_TRANSACTION_STATE one way on ch, the message
	// (with its real topic and queue) as the body.
	CheckProducerTransactionState(group string, ch *remoting.Channel, h CheckTransactionStateHeader, m *primitive.MessageExt) error
}

// AbstractTransactionalMessageCheckListener asks a producer about a half message (ResolveHalfMsg)
// and parks one checked too often (ResolveDiscardMsg, Java's DefaultTransactionalMessageCheckListener).
// Mirrors org.apache.rocketmq.broker.transaction.AbstractTransactionalMessageCheckListener.
type AbstractTransactionalMessageCheckListener struct {
	bridge *TransactionalMessageBridge
	client Broker2Client
}

// NewAbstractTransactionalMessageCheckListener returns a listener that writes through bridge
// and reaches producers through client.
func NewAbstractTransactionalMessageCheckListener(bridge *TransactionalMessageBridge, client Broker2Client) *AbstractTransactionalMessageCheckListener {
	return &AbstractTransactionalMessageCheckListener{bridge: bridge, client: client}
}

// ResolveHalfMsg sends CHECK_TRANSACTION_STATE about m to a live channel of its producer group
// (PGROUP); with none, the check is logged and dropped (the next pass asks again). The header
// names m's current copy (queue and CommitLog offset after putBackHalfMsgQueue); the body is m
// with REAL_TOPIC / REAL_QID as topic and queue.
// Java: AbstractTransactionalMessageCheckListener#resolveHalfMsg → #sendCheckMessage.
//
// Deviation: Java sends from a thread pool; the request is one way, so we send on the check's
// goroutine (Check calls this once the pass is over).
func (l *AbstractTransactionalMessageCheckListener) ResolveHalfMsg(m *primitive.MessageExt) {
	h := CheckTransactionStateHeader{
		TranStateTableOffset: store.QueueOffset(m.QueueOffset),
		CommitLogOffset:      store.CommitLogOffset(m.CommitLogOffset),
		OffsetMsgID:          m.OffsetMsgID,
		MsgID:                m.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx),
	}
	h.TransactionID = h.MsgID
	out := *m
	out.Topic = m.GetProperty(primitive.PropertyRealTopic)
	if q, err := strconv.Atoi(m.GetProperty(primitive.PropertyRealQueueID)); err == nil {
		out.QueueID = int32(q)
	}
	group := m.GetProperty(primitive.PropertyProducerGroup)
	ch := l.client.GetAvailableChannel(group)
	if tr := l.bridge.d.Tracer; tr.Enabled() {
		tr.Step("AbstractTransactionalMessageCheckListener#resolveHalfMsg", slog.String("group", group),
			slog.Bool("channel", ch != nil), slog.Int64("tranStateTableOffset", int64(h.TranStateTableOffset)),
			slog.String("topic", out.Topic), slog.String("checkTimes", m.GetProperty(primitive.PropertyTransactionCheckTimes)))
	}
	if ch == nil {
		l.bridge.d.Log.Warn("check transaction failed, channel is null", "groupId", group)
		return
	}
	if err := l.client.CheckProducerTransactionState(group, ch, h, &out); err != nil {
		l.bridge.d.Log.Warn("check transaction failed", "groupId", group, "err", err)
	}
}

// ResolveDiscardMsg puts m into TRANS_CHECK_MAX_TIME_TOPIC queue 0 (creating that topic's
// config), where it stays for an operator; the half queue moves past it.
// Java: DefaultTransactionalMessageCheckListener#resolveDiscardMsg.
func (l *AbstractTransactionalMessageCheckListener) ResolveDiscardMsg(m *primitive.MessageExt) {
	b := l.bridge
	if b.d.CreateSystemTopic != nil {
		b.d.CreateSystemTopic(CheckMaxTimeTopic, 1)
	}
	r := b.PutMessageReturnResult(b.copyInner(m, CheckMaxTimeTopic, 0))
	if r.PutMessageStatus != store.PutOK {
		b.d.Log.Error("put checked-too-many-times half message to TRANS_CHECK_MAX_TIME_TOPIC failed",
			"msgId", m.MsgID, "status", r.PutMessageStatus.String())
		return
	}
	b.d.Log.Info("half message checked too many times, moved to TRANS_CHECK_MAX_TIME_TOPIC", "msgId", m.MsgID,
		"checkTimes", m.GetProperty(primitive.PropertyTransactionCheckTimes))
}
