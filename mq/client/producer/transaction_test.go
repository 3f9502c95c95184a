package producer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestLocalTransactionStateNames pins Java's enum names (UNKNOW is Java's spelling) and the
// END_TRANSACTION value each state sends: commit 8, rollback 12, unknown 0.
func TestLocalTransactionStateNames(t *testing.T) {
	for _, c := range []struct {
		s    LocalTransactionState
		name string
		code int32
	}{
		{CommitMessage, "COMMIT_MESSAGE", primitive.TransactionCommitType},
		{RollbackMessage, "ROLLBACK_MESSAGE", primitive.TransactionRollbackType},
		{Unknown, "UNKNOW", primitive.TransactionNotType},
	} {
		require.Equal(t, c.name, c.s.String())
		require.Equal(t, c.code, c.s.commitOrRollback())
	}
	require.Equal(t, int32(8), primitive.TransactionCommitType)
	require.Equal(t, int32(12), primitive.TransactionRollbackType)
}

// TestRunListenerRecoversPanic: a listener that panics counts as UNKNOW, with the panic as the
// error (Java catches Throwable around the local transaction).
func TestRunListenerRecoversPanic(t *testing.T) {
	s, err := runListener(func() LocalTransactionState { panic("db down") })
	require.Equal(t, Unknown, s)
	require.EqualError(t, err, "db down")
}

// TestSendMessageInTransactionNeedsListener: without a listener nothing is sent.
func TestSendMessageInTransactionNeedsListener(t *testing.T) {
	p := NewTransactionMQProducer(DefaultConfig("tx"), nil)
	_, err := p.SendMessageInTransaction(t.Context(), &primitive.Message{Topic: "T"}, nil)
	require.ErrorIs(t, err, ErrNoTransactionListener)
}

// TestTransactionProducerFailedStartStopsItsExecutor: a producer that cannot start (an illegal
// group) leaves no check worker behind, and a check arriving then is dropped, not run.
func TestTransactionProducerFailedStartStopsItsExecutor(t *testing.T) {
	p := NewTransactionMQProducer(DefaultConfig("bad group!"), nil)
	require.Error(t, p.Start())
	require.Nil(t, p.checkQueue)
	p.CheckTransactionState("127.0.0.1:1", &primitive.MessageExt{}, nil) // dropped: not running
	p.Shutdown()                                                         // safe after a failed Start
}
