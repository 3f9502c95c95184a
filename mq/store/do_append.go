//go:build !ex_ch03

package store

import (
	"encoding/binary"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// doAppend runs under putMu. It takes the queue offset from the topicQueueTable (0 and not
// advanced for PREPARED/ROLLBACK), and either writes the blank END_OF_FILE record (8 bytes:
// TOTALSIZE = bytes left, MAGIC 0xCBD43194) when record + 8 > bytes left, or patches
// QUEUEOFFSET, PHYSICALOFFSET, STORETIMESTAMP into the record and copies it in.
// Java: DefaultAppendMessageCallback#doAppend.
func (cb *defaultAppendMessageCallback) doAppend(fileFromOffset int64, buf []byte, ctx appendContext) AppendMessageResult {
	c := cb.c
	m := ctx.msg
	maxBlank := len(buf)
	wroteOffset := CommitLogOffset(fileFromOffset + int64(c.env.cfg.MappedFileSizeCommitLog-maxBlank))
	queueOffset := c.topicQueueTable[m.key]
	storeTs := m.inner.StoreTimestamp
	tranType := primitive.GetTransactionValue(m.inner.SysFlag)
	if tranType == tranPreparedType || tranType == tranRollbackType {
		queueOffset = 0
	}
	if m.batch {
		return cb.doAppendBatch(fileFromOffset, buf, ctx, wroteOffset, queueOffset)
	}
	msgLen := len(m.encoded)
	if msgLen+EndFileMinBlankLength > maxBlank {
		binary.BigEndian.PutUint32(buf[0:], uint32(maxBlank))
		binary.BigEndian.PutUint32(buf[4:], blankMagicCode)
		if ctx.tracing {
			c.env.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.String("result", "END_OF_FILE"),
				slog.Int64("wroteOffset", int64(wroteOffset)), slog.Int("blankBytes", maxBlank), slog.Int("msgSize", msgLen))
		}
		return AppendMessageResult{Status: EndOfFile, WroteOffset: wroteOffset, WroteBytes: int32(maxBlank),
			StoreTimestamp: storeTs, LogicsOffset: queueOffset}
	}
	enc := m.encoded
	be := binary.BigEndian
	be.PutUint64(enc[posQueueOffset:], uint64(queueOffset))
	be.PutUint64(enc[posPhysicalOffset:], uint64(wroteOffset))
	be.PutUint64(enc[storeTimestampPos(m.inner.SysFlag):], uint64(storeTs))
	copy(buf, enc)
	if ctx.tracing {
		c.env.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.Int64("wroteOffset", int64(wroteOffset)),
			slog.Int("queueId", int(m.key.queueID)), slog.Int64("queueOffset", int64(queueOffset)), slog.Int("msgSize", msgLen),
			slog.String("file", c.env.root.rel(c.mfq.storePath)+"/"+offset2FileName(fileFromOffset)))
	}
	if tranType == tranNotType || tranType == tranCommitType {
		c.topicQueueTable[m.key] = queueOffset + 1
	}
	return AppendMessageResult{Status: AppendPutOK, WroteOffset: wroteOffset, WroteBytes: int32(msgLen),
		StoreTimestamp: storeTs, LogicsOffset: queueOffset, MsgNum: 1}
}
