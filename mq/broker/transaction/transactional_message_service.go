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
	// DeletePrepareMessage records the half message as decided (an op message).
	DeletePrepareMessage(m *primitive.MessageExt) bool
	// Check runs one check pass over the half queue.
	Check(transactionTimeout time.Duration, transactionCheckMax int, listener CheckListener) CheckResult
}

var _ TransactionalMessageService = (*TransactionalMessageServiceImpl)(nil)
