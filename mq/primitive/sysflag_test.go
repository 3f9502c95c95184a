package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSysFlagValues pins MessageSysFlag's bit values (remoting-protocol.md §6.6).
func TestSysFlagValues(t *testing.T) {
	require.Equal(t, int32(0x1), CompressedFlag)
	require.Equal(t, int32(0x2), MultiTagsFlag)
	require.Equal(t, int32(0x0), TransactionNotType)
	require.Equal(t, int32(0x4), TransactionPreparedType)
	require.Equal(t, int32(0x8), TransactionCommitType)
	require.Equal(t, int32(0xC), TransactionRollbackType)
	require.Equal(t, int32(0x10), BornHostV6Flag)
	require.Equal(t, int32(0x20), StoreHostAddressV6Flag)
	require.Equal(t, int32(0x40), NeedUnwrapFlag)
	require.Equal(t, int32(0x80), InnerBatchFlag)
}

// TestTransactionValue pins MessageSysFlag#getTransactionValue / #resetTransactionValue: only
// bits 2–3 change.
func TestTransactionValue(t *testing.T) {
	flag := CompressedFlag | TransactionPreparedType | BornHostV6Flag
	require.Equal(t, TransactionPreparedType, GetTransactionValue(flag))
	reset := ResetTransactionValue(flag, TransactionCommitType)
	require.Equal(t, TransactionCommitType, GetTransactionValue(reset))
	require.Equal(t, CompressedFlag|TransactionCommitType|BornHostV6Flag, reset)
	require.Equal(t, CompressedFlag|BornHostV6Flag, ResetTransactionValue(flag, TransactionNotType))
	require.Equal(t, TransactionRollbackType, GetTransactionValue(ResetTransactionValue(0, TransactionRollbackType)))
	require.Equal(t, TransactionPreparedType, ClearCompressedFlag(CompressedFlag|TransactionPreparedType))
}
