package primitive

import (
	"bytes"
	"compress/zlib"
	"io"
)

// Message sysFlag bits (the record's SYSFLAG field and the send header's sysFlag).
// Mirrors org.apache.rocketmq.common.sysflag.MessageSysFlag; values pinned by TestSysFlagValues.
const (
	// CompressedFlag: the body is zlib-compressed.
	CompressedFlag int32 = 0x1
	// MultiTagsFlag: the topic's filter type is MULTI_TAG.
	MultiTagsFlag int32 = 0x2
	// Transaction type, bits 2–3.
	TransactionNotType      int32 = 0x0
	TransactionPreparedType int32 = 0x4
	TransactionCommitType   int32 = 0x8
	TransactionRollbackType int32 = 0xC
	// BornHostV6Flag: the BORNHOST field is 16+4 bytes.
	BornHostV6Flag int32 = 0x10
	// StoreHostAddressV6Flag: the STOREHOSTADDRESS field is 16+4 bytes.
	StoreHostAddressV6Flag int32 = 0x20
	// NeedUnwrapFlag and InnerBatchFlag exist in 4.9.8 but are not used by this project.
	NeedUnwrapFlag int32 = 0x40
	InnerBatchFlag int32 = 0x80

	transactionTypeMask int32 = 0xC
)

// GetTransactionValue returns the transaction type bits of flag (one of the Transaction*Type
// values).
// Java: MessageSysFlag#getTransactionValue.
func GetTransactionValue(flag int32) int32 { return flag & transactionTypeMask }

// ResetTransactionValue replaces the transaction type bits of flag with typ.
// Java: MessageSysFlag#resetTransactionValue.
func ResetTransactionValue(flag, typ int32) int32 {
	return flag&^transactionTypeMask | typ&transactionTypeMask
}

// ClearCompressedFlag clears the compressed bit.
// Java: MessageSysFlag#clearCompressedFlag.
func ClearCompressedFlag(flag int32) int32 { return flag &^ CompressedFlag }

// hostFieldLen returns the byte size of a host field: 8 for IPv4, 20 when the v6 bit is set.
func hostFieldLen(sysFlag, v6Bit int32) int {
	if sysFlag&v6Bit != 0 {
		return 20
	}
	return 8
}

// UncompressBody undoes the zlib compression of a body whose sysFlag has CompressedFlag; a
// body that is not zlib data is an error (the caller keeps the raw bytes, as Java's
// UtilAll#uncompress callers do). Java: UtilAll#uncompress.
func UncompressBody(b []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
