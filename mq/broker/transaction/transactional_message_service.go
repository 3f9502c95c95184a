package transaction

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TransactionalMessageService is what the broker's processors and the check service use of
// the transaction store; TransactionalMessageServiceImpl implements it.
// Mirrors org.apache.rocketmq.broker.transaction.TransactionalMessageService.
type TransactionalMessageService interface {
	// AsyncPrepareMessage stores msg as a half message.
	AsyncPrepareMessage(msg *primitive.MessageExtBrokerInner) <-chan store.PutMessageResult
	// CommitMessage and RollbackMessage find the half message at a CommitLog offset (bytes);
	// ErrHalfMessageNotFound when there is none.
	CommitMessage(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error)
	RollbackMessage(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error)
	// ClaimDecision makes the caller the one to decide the transaction of a found half message;
	// false when this broker decided it already (then nothing but its op message is written).
	// SettleDecision ends a true claim, stored or not.
	ClaimDecision(m *primitive.MessageExt) bool
	SettleDecision(m *primitive.MessageExt, stored bool)
	// DeletePrepareMessage records the half message as decided (an op message).
	DeletePrepareMessage(m *primitive.MessageExt) bool
	// Check runs one check pass over the half queue.
	Check(transactionTimeout time.Duration, transactionCheckMax int, listener CheckListener) CheckResult
}

var _ TransactionalMessageService = (*TransactionalMessageServiceImpl)(nil)
