package producer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// LocalTransactionState is a producer's answer about a transaction: commit the half message,
// roll it back, or not known yet (the broker asks again later). Java: LocalTransactionState.
type LocalTransactionState int

// The three states; String gives Java's names.
const (
	CommitMessage LocalTransactionState = iota + 1
	RollbackMessage
	Unknown
)

// String is Java's enum name: COMMIT_MESSAGE, ROLLBACK_MESSAGE, UNKNOW (sic).
func (s LocalTransactionState) String() string {
	switch s {
	case CommitMessage:
		return "COMMIT_MESSAGE"
	case RollbackMessage:
		return "ROLLBACK_MESSAGE"
	case Unknown:
		return "UNKNOW"
	}
	return fmt.Sprintf("LocalTransactionState(%d)", int(s))
}

// commitOrRollback is the END_TRANSACTION header value of s: 8, 12, or 0 (unknown).
func (s LocalTransactionState) commitOrRollback() int32 {
	switch s {
	case CommitMessage:
		return primitive.TransactionCommitType
	case RollbackMessage:
		return primitive.TransactionRollbackType
	}
	return primitive.TransactionNotType
}

// TransactionListener runs a transaction's local part and answers the broker's check-back.
// A panic in either counts as Unknown. Java: TransactionListener.
type TransactionListener interface {
	// ExecuteLocalTransaction runs after the half message is stored (SEND_OK); arg is
	// SendMessageInTransaction's.
	ExecuteLocalTransaction(msg *primitive.Message, arg any) LocalTransactionState
	// CheckLocalTransaction answers a check-back about msg (its real topic and queue, its
	// TransactionID set to its UNIQ_KEY).
	CheckLocalTransaction(msg *primitive.MessageExt) LocalTransactionState
}

// TransactionSendResult is a send result plus the local transaction's state.
// Java: TransactionSendResult.
type TransactionSendResult struct {
	*SendResult
	LocalTransactionState LocalTransactionState
}

// ErrNoTransactionListener: SendMessageInTransaction needs a listener.
var ErrNoTransactionListener = errors.New("producer: TransactionListener is null")

// Check executor bounds (Java: TransactionMQProducer checkThreadPoolMinSize = max = 1,
// checkRequestHoldMax = 2000).
const (
	checkThreadPoolSize  = 1
	checkRequestHoldMax  = 2000
	endTransactionRemark = "executeLocalTransactionBranch exception: "
)

// TransactionMQProducer sends transactional messages: a half message, the local transaction,
// then END_TRANSACTION with the outcome; it answers the broker's CHECK_TRANSACTION_STATE on
// its check executor. Mirrors org.apache.rocketmq.client.producer.TransactionMQProducer and
// the transaction part of DefaultMQProducerImpl.
//
// Goroutines: the check executor, one worker draining up to 2000 queued checks (a check
// arriving when it is full is dropped and logged: the broker asks again), started by Start and
// stopped by Shutdown after the queued checks ran.
type TransactionMQProducer struct {
	*DefaultMQProducer
	listener TransactionListener

	checkMu      sync.Mutex
	checkQueue   chan func() // nil until Start, closed by Shutdown
	checkWorkers sync.WaitGroup
}

// NewTransactionMQProducer returns a transaction producer for cfg whose listener runs the
// local transactions and answers check-backs.
func NewTransactionMQProducer(cfg Config, listener TransactionListener) *TransactionMQProducer {
	t := &TransactionMQProducer{DefaultMQProducer: NewDefaultMQProducer(cfg), listener: listener}
	t.registrant = t
	return t
}

// Start starts the check executor, then the producer (DefaultMQProducer.Start); when the
// producer does not start, the executor is stopped again and the error returned.
// Java: TransactionMQProducer#start → DefaultMQProducerImpl#initTransactionEnv, #start.
func (t *TransactionMQProducer) Start() error {
	t.checkMu.Lock()
	if t.checkQueue == nil {
		q := make(chan func(), checkRequestHoldMax)
		t.checkQueue = q
		for range checkThreadPoolSize {
			t.checkWorkers.Go(func() {
				for task := range q {
					task()
				}
			})
		}
	}
	t.checkMu.Unlock()
	if err := t.DefaultMQProducer.Start(); err != nil {
		t.stopCheckExecutor()
		return err
	}
	return nil
}

// Shutdown stops the producer, then the check executor (after the checks it queued).
// Java: DefaultMQProducerImpl#destroyTransactionEnv.
func (t *TransactionMQProducer) Shutdown() {
	t.DefaultMQProducer.Shutdown()
	t.stopCheckExecutor()
}

// stopCheckExecutor closes the check queue and waits for its worker to run what was queued.
func (t *TransactionMQProducer) stopCheckExecutor() {
	t.checkMu.Lock()
	q := t.checkQueue
	t.checkQueue = nil
	t.checkMu.Unlock()
	if q != nil {
		close(q)
		t.checkWorkers.Wait()
	}
}

// SendMessageInTransaction sends msg as a half message (TRAN_MSG=true, PGROUP = the group; a
// DELAY is dropped) synchronously; on SEND_OK it runs the listener's local transaction (other
// statuses roll back), then tells the broker the outcome with END_TRANSACTION. A failed send
// is returned as the error and no local transaction runs.
// Java: DefaultMQProducerImpl#sendMessageInTransaction.
func (t *TransactionMQProducer) SendMessageInTransaction(ctx context.Context, msg *primitive.Message, arg any) (*TransactionSendResult, error) {
	if t.listener == nil {
		return nil, ErrNoTransactionListener
	}
	if msg.DelayTimeLevel() != 0 {
		msg.RemoveProperty(primitive.PropertyDelayTimeLevel)
	}
	msg.PutProperty(primitive.PropertyTransactionPrepared, "true")
	msg.PutProperty(primitive.PropertyProducerGroup, t.cfg.ProducerGroup)
	if t.tr.Enabled() {
		t.tr.Step("DefaultMQProducerImpl#sendMessageInTransaction", slog.String("topic", msg.Topic),
			slog.String("producerGroup", t.cfg.ProducerGroup))
	}
	res, err := t.Send(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("send message in transaction: %w", err)
	}
	state := Unknown
	var localErr error
	switch res.SendStatus {
	case SendOK:
		if res.TransactionID != "" {
			msg.PutProperty(primitive.PropertyTransactionID, res.TransactionID)
		}
		if id := msg.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx); id != "" {
			msg.TransactionID = id
		}
		state, localErr = runListener(func() LocalTransactionState { return t.listener.ExecuteLocalTransaction(msg, arg) })
	default: // FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE
		state = RollbackMessage
	}
	if err := t.endTransaction(res, state, localErr); err != nil {
		t.log.Warn("local transaction execute "+state.String()+", but end broker transaction failed", "err", err)
	}
	return &TransactionSendResult{SendResult: res, LocalTransactionState: state}, nil
}

// runListener calls f; a panic is Unknown with the panic as the error.
func runListener(f func() LocalTransactionState) (state LocalTransactionState, err error) {
	defer func() {
		if r := recover(); r != nil {
			state, err = Unknown, fmt.Errorf("%v", r)
		}
	}()
	return f(), nil
}

// endTransaction sends END_TRANSACTION one way to the broker that stored the half message: its
// CommitLog offset (from the offsetMsgId), its half-queue offset, the decision.
// Java: DefaultMQProducerImpl#endTransaction.
func (t *TransactionMQProducer) endTransaction(res *SendResult, state LocalTransactionState, localErr error) error {
	id := res.OffsetMsgID
	if id == "" {
		id = res.MsgID
	}
	_, commitLogOffset, err := primitive.DecodeOffsetMsgID(id)
	if err != nil {
		return err
	}
	brokerName := res.MessageQueue.BrokerName
	addr := t.instance.FindBrokerAddressInPublish(brokerName)
	h := &protocol.EndTransactionRequestHeader{
		ProducerGroup:        t.cfg.ProducerGroup,
		TranStateTableOffset: res.QueueOffset,
		CommitLogOffset:      commitLogOffset,
		CommitOrRollback:     state.commitOrRollback(),
		MsgID:                res.MsgID,
		TransactionID:        res.TransactionID,
	}
	if t.tr.Enabled() {
		t.tr.Step("DefaultMQProducerImpl#endTransaction", slog.String("brokerName", brokerName),
			slog.String("state", state.String()), slog.Int64("tranStateTableOffset", h.TranStateTableOffset))
	}
	if addr == "" {
		return fmt.Errorf("%w: The broker[%s] not exist", client.ErrBrokerNotExist, brokerName)
	}
	remark := ""
	if localErr != nil {
		remark = endTransactionRemark + localErr.Error()
	}
	return t.instance.MQClientAPI().EndTransactionOneway(addr, h, remark)
}

// CheckTransactionState queues the broker's check-back about msg on the check executor, which
// asks the listener and answers END_TRANSACTION (fromTransactionCheck=true) to brokerAddr. It
// implements client.TransactionStateChecker. Java: DefaultMQProducerImpl#checkTransactionState.
func (t *TransactionMQProducer) CheckTransactionState(brokerAddr string, msg *primitive.MessageExt,
	h *protocol.CheckTransactionStateRequestHeader) {
	task := func() { t.checkAndAnswer(brokerAddr, msg, h) }
	t.checkMu.Lock()
	defer t.checkMu.Unlock()
	if t.checkQueue == nil {
		t.log.Warn("check transaction state: the producer is not running", "msgId", msg.MsgID)
		return
	}
	select {
	case t.checkQueue <- task:
	default:
		t.log.Warn("check transaction state: the check queue is full, dropped", "msgId", msg.MsgID)
	}
}

// checkAndAnswer is one check-back: the listener's answer, sent as END_TRANSACTION.
// Java: the Runnable of DefaultMQProducerImpl#checkTransactionState (processTransactionState).
func (t *TransactionMQProducer) checkAndAnswer(brokerAddr string, msg *primitive.MessageExt, h *protocol.CheckTransactionStateRequestHeader) {
	state, localErr := Unknown, error(nil)
	if t.listener != nil {
		state, localErr = runListener(func() LocalTransactionState { return t.listener.CheckLocalTransaction(msg) })
	}
	if t.tr.Enabled() {
		t.tr.Step("DefaultMQProducerImpl#checkTransactionState", slog.String("topic", msg.Topic),
			slog.String("state", state.String()), slog.Int64("tranStateTableOffset", h.TranStateTableOffset))
	}
	msgID := msg.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx)
	if msgID == "" {
		msgID = msg.MsgID
	}
	end := &protocol.EndTransactionRequestHeader{
		ProducerGroup:        t.cfg.ProducerGroup,
		TranStateTableOffset: h.TranStateTableOffset,
		CommitLogOffset:      h.CommitLogOffset,
		CommitOrRollback:     state.commitOrRollback(),
		FromTransactionCheck: true,
		MsgID:                msgID,
		TransactionID:        h.TransactionID,
	}
	remark := ""
	if localErr != nil {
		remark = "checkLocalTransactionState Exception: " + localErr.Error()
	}
	if err := t.instance.MQClientAPI().EndTransactionOneway(brokerAddr, end, remark); err != nil {
		t.log.Warn("end transaction after check failed", "brokerAddr", brokerAddr, "err", err)
	}
}
