package broker

import (
	"errors"
	"log/slog"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// EndTransactionProcessor ends a transaction: END_TRANSACTION (37, one way from the producer,
// after its local transaction or a check-back). Commit puts a copy of the half message into its
// real topic and queue with sysFlag TRANSACTION_COMMIT_TYPE, then deletes the prepare (an op
// message); rollback only deletes the prepare; UNKNOWN (NOT_TYPE) does nothing and leaves the
// half message to the check. Mirrors org.apache.rocketmq.broker.processor.EndTransactionProcessor.
//
// The half message is checked first (checkPrepareMessage): it must be found at the header's
// CommitLog offset, in the half topic, with the header's producer group, queue offset and
// CommitLog offset; otherwise SYSTEM_ERROR names what was wrong and nothing is written. A
// transaction this broker has decided already (by any copy of its half message) is not decided
// again: only the op message is written (Deviation, see alreadyDecided).
type EndTransactionProcessor struct {
	b *BrokerController
}

// NewEndTransactionProcessor returns the processor of b.
func NewEndTransactionProcessor(b *BrokerController) *EndTransactionProcessor {
	return &EndTransactionProcessor{b: b}
}

// transactionTypeName names a commitOrRollback value as the producer's LocalTransactionState.
func transactionTypeName(t int32) string {
	switch t {
	case primitive.TransactionCommitType:
		return "COMMIT_MESSAGE"
	case primitive.TransactionRollbackType:
		return "ROLLBACK_MESSAGE"
	}
	return "UNKNOW"
}

// ProcessRequest handles END_TRANSACTION. A slave refuses (SLAVE_NOT_AVAILABLE); a header that
// does not decode is SYSTEM_ERROR; UNKNOWN answers nothing. The answer (if the request was not
// one way) is SUCCESS once the decision is stored. Java: EndTransactionProcessor#processRequest.
func (p *EndTransactionProcessor) ProcessRequest(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	b := p.b
	var h protocol.EndTransactionRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("end transaction", err), nil
	}
	if tr := b.tr; tr.Enabled() {
		tr.Step("EndTransactionProcessor#processRequest", slog.String("producerGroup", h.ProducerGroup),
			slog.String("commitOrRollback", transactionTypeName(h.CommitOrRollback)),
			slog.Bool("fromTransactionCheck", h.FromTransactionCheck),
			slog.Int64("tranStateTableOffset", h.TranStateTableOffset), slog.Int64("commitLogOffset", h.CommitLogOffset))
	}
	if b.storeCfg.BrokerRole == store.Slave {
		return remoting.NewResponse(protocol.SlaveNotAvailable, "Message store is slave mode, so end transaction is forbidden. "), nil
	}
	svc := b.transactionalMessageService
	switch h.CommitOrRollback {
	case primitive.TransactionNotType:
		b.log.Warn("end transaction with UNKNOWN state: the half message waits for the check",
			"producerGroup", h.ProducerGroup, "fromTransactionCheck", h.FromTransactionCheck, "msgId", h.MsgID)
		return nil, nil
	case primitive.TransactionCommitType:
		half, done := p.claim(svc.CommitMessage, &h)
		if done != nil {
			return done, nil
		}
		stored := false
		defer func() { svc.SettleDecision(half, stored) }() // even on a panic: a waiting duplicate goes on
		inner := endMessageTransaction(half)
		inner.SysFlag = primitive.ResetTransactionValue(inner.SysFlag, h.CommitOrRollback)
		inner.QueueOffset = h.TranStateTableOffset
		inner.PreparedTransactionOffset = h.CommitLogOffset
		inner.StoreTimestamp = half.StoreTimestamp
		delete(inner.Properties, primitive.PropertyTransactionPrepared)
		resp := p.sendFinalMessage(inner)
		if resp.Code == protocol.Success {
			svc.DeletePrepareMessage(half)
			stored = true
		}
		return resp, nil
	default: // TransactionRollbackType (checkFields allows no other value)
		half, done := p.claim(svc.RollbackMessage, &h)
		if done != nil {
			return done, nil
		}
		defer svc.SettleDecision(half, true)
		svc.DeletePrepareMessage(half)
		return remoting.NewResponse(protocol.Success, ""), nil
	}
}

// claim looks the half message END_TRANSACTION names up (lookup: the service's CommitMessage
// or RollbackMessage), checks it against h (checkPrepareMessage) and claims the decision of its
// transaction. A non-nil answer ends the request there: the check's verdict, or SUCCESS for a
// transaction decided already (alreadyDecided). Otherwise the caller holds the claim and
// settles it.
func (p *EndTransactionProcessor) claim(lookup func(store.CommitLogOffset) (*primitive.MessageExt, error),
	h *protocol.EndTransactionRequestHeader) (*primitive.MessageExt, *remoting.RemotingCommand) {
	half, err := lookup(store.CommitLogOffset(h.CommitLogOffset))
	if v := checkPrepareMessage(half, err, h); !v.ok() {
		return nil, v.answer(remoting.NewResponse(protocol.Success, ""))
	}
	if !p.b.transactionalMessageService.ClaimDecision(half) {
		p.alreadyDecided(half, h)
		return nil, remoting.NewResponse(protocol.Success, "")
	}
	return half, nil
}

// alreadyDecided handles END_TRANSACTION for a transaction this broker decided already (a late
// first answer after a check-back's, or the same request twice): the first decision stands;
// only the op message of this copy is written, so the check does not ask about it again.
// Deviation: RocketMQ stores a second commit (see transaction.TransactionalMessageServiceImpl.ClaimDecision).
func (p *EndTransactionProcessor) alreadyDecided(half *primitive.MessageExt, h *protocol.EndTransactionRequestHeader) {
	p.b.log.Warn("end transaction: the transaction is decided already, only its op message is written",
		"producerGroup", h.ProducerGroup, "commitOrRollback", transactionTypeName(h.CommitOrRollback),
		"fromTransactionCheck", h.FromTransactionCheck, "msgId", h.MsgID, "tranStateTableOffset", h.TranStateTableOffset)
	p.b.transactionalMessageService.DeletePrepareMessage(half)
}

// checkPrepareMessage is the verdict on the half message END_TRANSACTION names: found, and
// with the header's producer group, queue offset and CommitLog offset.
// Java: EndTransactionProcessor#checkPrepareMessage.
func checkPrepareMessage(half *primitive.MessageExt, lookupErr error, h *protocol.EndTransactionRequestHeader) verdict {
	switch {
	case lookupErr != nil || half == nil:
		remark := "Find prepared transaction message failed"
		if lookupErr != nil && !errors.Is(lookupErr, transaction.ErrHalfMessageNotFound) {
			remark += ": " + lookupErr.Error()
		}
		return refuse(protocol.SystemError, remark)
	case half.GetProperty(primitive.PropertyProducerGroup) != h.ProducerGroup:
		return refuse(protocol.SystemError, "The producer group wrong")
	case half.QueueOffset != h.TranStateTableOffset:
		return refuse(protocol.SystemError, "The transaction state table offset wrong")
	case half.CommitLogOffset != h.CommitLogOffset:
		return refuse(protocol.SystemError, "The commit log offset wrong")
	}
	return passed
}

// endMessageTransaction builds the committed message from the half message: REAL_TOPIC and
// REAL_QID as topic and queue; body, flag, sysFlag, born time and hosts, reconsume times and the
// properties of the half message. The stored properties string is the half message's, taken
// before REAL_TOPIC and REAL_QID leave the map — so the committed record keeps REAL_TOPIC,
// REAL_QID, TRAN_MSG and PGROUP, as a Java broker's does (Java clears them from the map only
// after writing the string). WAIT is not set: as in Java (whose setWaitStoreMsgOK(false) is lost
// when the properties are replaced), the put waits for the flush under SYNC_FLUSH.
// Java: EndTransactionProcessor#endMessageTransaction.
func endMessageTransaction(half *primitive.MessageExt) *primitive.MessageExtBrokerInner {
	qid, _ := strconv.Atoi(half.GetProperty(primitive.PropertyRealQueueID))
	inner := half.CopyToInner(half.GetProperty(primitive.PropertyRealTopic), int32(qid))
	props := inner.Properties
	inner.TagsCode = primitive.TagsString2TagsCode(props[primitive.PropertyTags])
	inner.PropertiesString = primitive.MarshalProperties(props)
	delete(props, primitive.PropertyRealTopic)
	delete(props, primitive.PropertyRealQueueID)
	return inner
}

// sendFinalMessage puts the committed message and maps the store's status to the answer
// (SUCCESS for the four stored statuses). Java: EndTransactionProcessor#sendFinalMessage.
//
// Deviation: a refused put is answered with the send path's codes and remarks
// (handlePutMessageResult); Java words its remarks here a little differently. The producer
// sends END_TRANSACTION one way, so no client reads them.
func (p *EndTransactionProcessor) sendFinalMessage(inner *primitive.MessageExtBrokerInner) *remoting.RemotingCommand {
	r := p.b.messageStore.PutMessage(inner)
	if _, stored := storedCode(r.PutMessageStatus); stored {
		return remoting.NewResponse(protocol.Success, "")
	}
	return p.b.sendMessageProcessor.handlePutMessageResult(r, remoting.NewResponse(protocol.Success, ""), inner.QueueID)
}

// RejectRequest never refuses at the door. Java: EndTransactionProcessor#rejectRequest (false).
func (p *EndTransactionProcessor) RejectRequest() bool { return false }
