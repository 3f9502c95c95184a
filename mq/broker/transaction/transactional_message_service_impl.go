package transaction

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// ErrHalfMessageNotFound: END_TRANSACTION named a CommitLog offset where no half message is
// (nothing there, or a message of another topic). The broker answers SYSTEM_ERROR.
var ErrHalfMessageNotFound = errors.New("find prepared transaction message failed")

// TransactionalMessageServiceImpl holds the two-phase commit on the store: prepare (put the
// half message), the end of a transaction (find the half message, record the decision in the op
// queue) and the check of half messages left undecided.
// Mirrors org.apache.rocketmq.broker.transaction.queue.TransactionalMessageServiceImpl.
//
// checkMu makes check passes take turns (the check service's loop and a direct Check).
type TransactionalMessageServiceImpl struct {
	bridge *TransactionalMessageBridge
	// fileReservedTime: a half message older than this is skipped (discarded) by the check.
	fileReservedTime time.Duration
	checkMu          sync.Mutex
	decided          *decidedTransactions
}

// NewTransactionalMessageServiceImpl returns the service over bridge; fileReservedTime is the
// store's (72 h): half messages born longer ago are no longer checked.
func NewTransactionalMessageServiceImpl(bridge *TransactionalMessageBridge, fileReservedTime time.Duration) *TransactionalMessageServiceImpl {
	return &TransactionalMessageServiceImpl{bridge: bridge, fileReservedTime: fileReservedTime,
		decided: newDecidedTransactions(decidedTransactionsMax)}
}

// ClaimDecision makes the caller the one to decide the transaction of the half message m
// (found by CommitMessage or RollbackMessage): true, and the caller must SettleDecision; false
// when this broker decided that transaction already — another copy of it, or this one — so the
// caller stores no second commit and only writes m's op message. A claim pending in another
// END_TRANSACTION worker is waited for. See decidedTransactions (a Deviation).
func (s *TransactionalMessageServiceImpl) ClaimDecision(m *primitive.MessageExt) bool {
	return s.decided.claim(m)
}

// SettleDecision ends a claim: stored, the transaction stays decided; not stored (the
// commit's put failed), it is forgotten, so a later END_TRANSACTION may decide it.
func (s *TransactionalMessageServiceImpl) SettleDecision(m *primitive.MessageExt, stored bool) {
	s.decided.settle(m, stored)
}

// Bridge returns the service's store bridge.
func (s *TransactionalMessageServiceImpl) Bridge() *TransactionalMessageBridge { return s.bridge }

// AsyncPrepareMessage stores msg as a half message (ParseHalfMessageInner) and answers with the
// store's put result. Java: TransactionalMessageServiceImpl#asyncPrepareMessage.
func (s *TransactionalMessageServiceImpl) AsyncPrepareMessage(msg *primitive.MessageExtBrokerInner) <-chan store.PutMessageResult {
	return s.bridge.d.Store.AsyncPutMessage(s.bridge.ParseHalfMessageInner(msg))
}

// CommitMessage and RollbackMessage find the half message at a CommitLog offset (bytes). The
// record must be in RMQ_SYS_TRANS_HALF_TOPIC: an offset pointing at any other message is
// ErrHalfMessageNotFound, as is one pointing at nothing.
// Java: TransactionalMessageServiceImpl#commitMessage / #rollbackMessage (getHalfMessageByOffset).
//
// Deviation: Java accepts whatever message lies at the offset; committing a normal message
// would then store a copy of it with an empty topic. We check the topic.
func (s *TransactionalMessageServiceImpl) CommitMessage(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error) {
	return s.getHalfMessageByOffset(commitLogOffset)
}

// RollbackMessage: see CommitMessage.
func (s *TransactionalMessageServiceImpl) RollbackMessage(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error) {
	return s.getHalfMessageByOffset(commitLogOffset)
}

func (s *TransactionalMessageServiceImpl) getHalfMessageByOffset(off store.CommitLogOffset) (*primitive.MessageExt, error) {
	m, err := s.bridge.LookMessageByOffset(off)
	if err != nil || m == nil {
		return nil, fmt.Errorf("%w: commitLogOffset %d", ErrHalfMessageNotFound, off)
	}
	if m.Topic != HalfTopic {
		return nil, fmt.Errorf("%w: commitLogOffset %d holds a message of topic %s", ErrHalfMessageNotFound, off, m.Topic)
	}
	return m, nil
}

// DeletePrepareMessage records that the half message m is decided (an op message with tag
// "d"); it reports whether the op message was stored. Java: TransactionalMessageServiceImpl#deletePrepareMessage.
func (s *TransactionalMessageServiceImpl) DeletePrepareMessage(m *primitive.MessageExt) bool {
	if tr := s.bridge.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageServiceImpl#deletePrepareMessage", slog.Int64("commitLogOffset", m.CommitLogOffset),
			slog.Int64("queueOffset", m.QueueOffset))
	}
	return s.bridge.PutOpMessage(m, RemoveTag)
}

// CheckListener is what Check hands half messages to: those to ask their producer about, and
// those to give up on. AbstractTransactionalMessageCheckListener implements it.
type CheckListener interface {
	ResolveHalfMsg(m *primitive.MessageExt)
	ResolveDiscardMsg(m *primitive.MessageExt)
}

// CheckResult counts what one check pass did, for tests and the chapter.
type CheckResult struct {
	// Checked half messages were put back and their producer asked (resolveHalfMsg).
	Checked int
	// Discarded half messages went to TRANS_CHECK_MAX_TIME_TOPIC (or were too old).
	Discarded int
}

// immunityTime is CHECK_IMMUNITY_TIME_IN_SECONDS in ms, or timeout (ms) when it does not parse
// or is -1 (Java's getLong answers -1 for both, and -1 means "use transactionTimeOut").
// Java: TransactionalMessageServiceImpl#getImmunityTime.
func immunityTime(v string, timeout int64) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n == -1 {
		return timeout
	}
	return n * 1000
}

// needDiscard counts a check: TRANSACTION_CHECK_TIMES + 1 (1 when absent) is set on m, or m is
// to be discarded when the count already reached transactionCheckMax.
// Java: TransactionalMessageServiceImpl#needDiscard.
func (s *TransactionalMessageServiceImpl) needDiscard(m *primitive.MessageExt, transactionCheckMax int) bool {
	times := 1
	if v := m.GetProperty(primitive.PropertyTransactionCheckTimes); v != "" {
		n, _ := strconv.Atoi(v)
		if n >= transactionCheckMax {
			return true
		}
		times = n + 1
	}
	m.PutProperty(primitive.PropertyTransactionCheckTimes, strconv.Itoa(times))
	return false
}

// needSkip: a half message born longer than fileReservedTime ago is not checked any more.
// Java: TransactionalMessageServiceImpl#needSkip.
func (s *TransactionalMessageServiceImpl) needSkip(m *primitive.MessageExt, now int64) bool {
	if age := now - m.BornTimestamp; s.fileReservedTime > 0 && age > s.fileReservedTime.Milliseconds() {
		s.bridge.d.Log.Info("half message exceed file reserved time, skipped", "msgId", m.MsgID, "bornTimestamp", m.BornTimestamp)
		return true
	}
	return false
}

// putBackHalfMsgQueue puts m again at the end of the half queue (with its updated check
// count), so the queue's offset can move on while the producer is asked; m then names its new
// copy (queue offset, CommitLog offset, msgId), the one the check request carries. It reports
// whether the store took it. Java: TransactionalMessageServiceImpl#putBackHalfMsgQueue.
func (s *TransactionalMessageServiceImpl) putBackHalfMsgQueue(m *primitive.MessageExt, offset store.QueueOffset) bool {
	r := s.bridge.PutMessageReturnResult(s.bridge.RenewHalfMessageInner(m))
	if r.PutMessageStatus != store.PutOK || r.AppendMessageResult == nil {
		s.bridge.d.Log.Error("put back half message failed", "offset", offset, "msgId", m.MsgID, "status", r.PutMessageStatus.String())
		return false
	}
	a := r.AppendMessageResult
	if tr := s.bridge.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageServiceImpl#putBackHalfMsgQueue", slog.Int64("halfOffset", int64(offset)),
			slog.Int64("newQueueOffset", int64(a.LogicsOffset)),
			slog.String("checkTimes", m.GetProperty(primitive.PropertyTransactionCheckTimes)))
	}
	m.QueueOffset = int64(a.LogicsOffset)
	m.CommitLogOffset = int64(a.WroteOffset)
	m.OffsetMsgID = a.MsgID
	if m.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx) == "" {
		m.MsgID = a.MsgID
	}
	return true
}

// checkPrepareQueueOffset handles a half message still inside its immunity time: when it was
// put back before (TRAN_PREPARED_QUEUE_OFFSET names its first offset) and that offset has an op
// message, it is decided (true); otherwise it is put back once more with
// TRAN_PREPARED_QUEUE_OFFSET set, and true when that put succeeded.
// Java: TransactionalMessageServiceImpl#checkPrepareQueueOffset.
func (s *TransactionalMessageServiceImpl) checkPrepareQueueOffset(removeMap map[store.QueueOffset]store.QueueOffset,
	doneOpOffset *[]store.QueueOffset, m *primitive.MessageExt) bool {
	v := m.GetProperty(primitive.PropertyTransactionPreparedQueueOffset)
	if v == "" {
		return s.putImmunityMsgBackToHalfQueue(m)
	}
	prepared, err := strconv.ParseInt(v, 10, 64)
	if err != nil || prepared == -1 {
		return false
	}
	if opOff, ok := removeMap[store.QueueOffset(prepared)]; ok {
		delete(removeMap, store.QueueOffset(prepared))
		*doneOpOffset = append(*doneOpOffset, opOff)
		return true
	}
	return s.putImmunityMsgBackToHalfQueue(m)
}

// putImmunityMsgBackToHalfQueue puts m back with TRAN_PREPARED_QUEUE_OFFSET = its first queue
// offset. Java: TransactionalMessageServiceImpl#putImmunityMsgBackToHalfQueue.
func (s *TransactionalMessageServiceImpl) putImmunityMsgBackToHalfQueue(m *primitive.MessageExt) bool {
	inner := s.bridge.RenewHalfMessageInner(m)
	if inner.Properties[primitive.PropertyTransactionPreparedQueueOffset] == "" {
		inner.Properties[primitive.PropertyTransactionPreparedQueueOffset] = strconv.FormatInt(m.QueueOffset, 10)
		inner.PropertiesString = storedProperties(inner.Properties)
	}
	return s.bridge.PutMessageReturnResult(inner).PutMessageStatus == store.PutOK
}

// calculateOpOffset is the op queue's new offset: past the run of done op offsets that starts
// at old. Java: TransactionalMessageServiceImpl#calculateOpOffset.
func calculateOpOffset(done []store.QueueOffset, old store.QueueOffset) store.QueueOffset {
	slices.Sort(done)
	next := old
	for _, o := range done {
		if o != next {
			break
		}
		next++
	}
	return next
}
