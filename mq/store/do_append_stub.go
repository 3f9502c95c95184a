//go:build ex_ch03

package store

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// doAppend runs under putMu. It takes the queue offset from the topicQueueTable (0 and not
// advanced for PREPARED/ROLLBACK), and either writes the blank END_OF_FILE record (8 bytes:
// TOTALSIZE = bytes left, MAGIC 0xCBD43194) when record + 8 > bytes left, or patches
// QUEUEOFFSET, PHYSICALOFFSET, STORETIMESTAMP into the record and copies it in.
// Java: DefaultAppendMessageCallback#doAppend.
func (cb *defaultAppendMessageCallback) doAppend(fileFromOffset int64, buf []byte, ctx appendContext) AppendMessageResult {
	// Hint: buf is the rest of the mapped file from the write position; the record to write is
	// ctx.msg.encoded, already encoded with zeros where the store fills in. Compute wroteOffset =
	// fileFromOffset + (file size - len(buf)) and take queueOffset from cb.c.topicQueueTable (0 for
	// PREPARED and ROLLBACK transaction types). Batches go to cb.doAppendBatch. A record that
	// does not leave 8 bytes free writes the blank END_OF_FILE record (TOTALSIZE = len(buf),
	// MAGIC blankMagicCode) and returns EndOfFile; otherwise patch QUEUEOFFSET, PHYSICALOFFSET and
	// STORETIMESTAMP (big endian), copy the record into buf, advance the table for plain and
	// COMMIT messages, log the step "DefaultAppendMessageCallback#doAppend", and return
	// AppendPutOK with WroteBytes = the record's size and MsgNum 1.
	exercise.NotImplemented("ch03", "tutorial/ch03-store.md §DefaultAppendMessageCallback#doAppend",
		"write defaultAppendMessageCallback.doAppend (mq/store/do_append_stub.go): patch the offsets into the record and copy it into the file, or write the END_OF_FILE blank")
	return AppendMessageResult{Status: AppendUnknownError} // the put answers UNKNOWN_ERROR
}
