package store

import (
	"encoding/binary"
	"log/slog"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// PutMessages stores a batch: batch.Body is the client's batch encoding (remoting-protocol.md
// §6.2: per member TOTALSIZE, MAGIC, BODYCRC, FLAG, BODYLEN, BODY, PROPLEN, PROPS), while
// Topic, QueueID, SysFlag, born/store host and timestamps, ReconsumeTimes and PropertiesString
// (the envelope's, e.g. CLUSTER) apply to every member. The members get consecutive queue
// offsets and are written together in one file (a batch that does not fit moves whole to the
// next file). AppendMessageResult.MsgID lists the members' offsetMsgIds joined by ','.
// Transaction and delayed batches are MESSAGE_ILLEGAL.
// Java: DefaultMessageStore#putMessages (MessageExtBatch) → CommitLog#asyncPutMessages.
func (s *DefaultMessageStore) PutMessages(batch *primitive.MessageExtBrokerInner) PutMessageResult {
	return waitPut(s.putMessages(batch))
}

// AsyncPutMessages is PutMessages delivering its result on a channel: filled at once, or
// under SYNC_FLUSH (WAIT not false) once the batch is flushed or its flush timed out.
// Java: DefaultMessageStore#asyncPutMessages.
func (s *DefaultMessageStore) AsyncPutMessages(batch *primitive.MessageExtBrokerInner) <-chan PutMessageResult {
	return putChan(s.putMessages(batch))
}

// PutMessagesOrWait is PutMessageOrWait for a batch: wait is nil and r final when the batch is
// done at once, else wait delivers r once the batch is flushed or its flush timed out.
func (s *DefaultMessageStore) PutMessagesOrWait(batch *primitive.MessageExtBrokerInner) (r PutMessageResult, wait <-chan PutMessageResult) {
	return readyOrWait(s.putMessages(batch))
}

func (s *DefaultMessageStore) putMessages(batch *primitive.MessageExtBrokerInner) (PutMessageResult, *GroupCommitRequest) {
	tracing := s.env.tracer.Enabled()
	if tracing {
		s.env.tracer.Step("DefaultMessageStore#asyncPutMessages", slog.String("topic", batch.Topic),
			slog.Int("queueId", int(batch.QueueID)), slog.Int("bodyLength", len(batch.Body)))
	}
	if st := s.checkStoreStatus(); st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	if utf16Len(batch.Topic) > maxTopicLength || len(batch.Body) > s.cfg.MaxMessageSize {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	r, req := s.commitLog.asyncPutMessages(batch, tracing)
	s.stats.countPut(r)
	return r, req
}

// asyncPutMessages: Java CommitLog#asyncPutMessages.
func (c *CommitLog) asyncPutMessages(batch *primitive.MessageExtBrokerInner, tracing bool) (PutMessageResult, *GroupCommitRequest) {
	env := c.env
	batch.StoreTimestamp = env.clock.now()
	if primitive.GetTransactionValue(batch.SysFlag) != tranNotType {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	if v, ok := batch.Properties[propertyDelay]; ok && v != "" && v != "0" {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	if v, ok := lookupProperty([]byte(batch.PropertiesString), propertyDelay); ok && string(v) != "0" {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	born, storeHost, ok := messageHosts(batch)
	if !ok {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	enc := c.encoders.Get().(*messageExtEncoder)
	defer c.encoders.Put(enc)
	n, st := enc.encodeBatch(batch, born.bytes(), storeHost.bytes())
	if tracing {
		env.tracer.Step("MessageExtEncoder#encode", slog.Int("msgLen", len(enc.buf)), slog.Int("batchSize", n),
			slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	m := msgToAppend{inner: batch, encoded: enc.buf, key: topicQueueKey{batch.Topic, batch.QueueID},
		storeHost: storeHost, batch: true, batchIDs: make([]CommitLogOffset, 0, n)}
	return c.appendLocked(&m, tracing)
}

// encodeBatch re-encodes each member of batch.Body as a full record (QUEUEOFFSET,
// PHYSICALOFFSET and STORETIMESTAMP patched at append). A member's properties get the
// envelope's appended, with a 0x02 between them only if the member's part does not already
// end in one. Java: MessageExtEncoder#encode(MessageExtBatch).
func (e *messageExtEncoder) encodeBatch(batch *primitive.MessageExtBrokerInner, born, storeHost []byte) (int, PutMessageStatus) {
	in := batch.Body
	if len(in) > e.maxBodySize {
		return 0, MessageIllegal
	}
	envelope := batch.PropertiesString
	if len(envelope) > maxPropertiesLength {
		return 0, PropertiesSizeExceeded
	}
	topicLen := len(batch.Topic)
	if topicLen > maxTopicLength {
		return 0, MessageIllegal
	}
	b := e.buf[:0]
	be := binary.BigEndian
	count := 0
	for p := 0; p < len(in); {
		if p+20 > len(in) {
			return 0, MessageIllegal
		}
		flag := be.Uint32(in[p+12:])
		bodyLen := int(int32(be.Uint32(in[p+16:])))
		p += 20
		if bodyLen < 0 || p+bodyLen+2 > len(in) {
			return 0, MessageIllegal
		}
		body := in[p : p+bodyLen]
		p += bodyLen
		propLen := int(int16(be.Uint16(in[p:])))
		p += 2
		if propLen < 0 || p+propLen > len(in) {
			return 0, MessageIllegal
		}
		props := in[p : p+propLen]
		p += propLen
		sep := propLen > 0 && len(envelope) > 0 && props[propLen-1] != 0x02
		total := propLen + len(envelope)
		if sep {
			total++
		}
		if total > maxPropertiesLength {
			return 0, PropertiesSizeExceeded
		}
		msgLen := calMsgLength(batch.SysFlag, bodyLen, topicLen, total)
		b = be.AppendUint32(b, uint32(msgLen))
		b = be.AppendUint32(b, messageMagicCode)
		b = be.AppendUint32(b, uint32(bodyCRC(body)))
		b = be.AppendUint32(b, uint32(batch.QueueID))
		b = be.AppendUint32(b, flag)
		b = be.AppendUint64(b, 0)
		b = be.AppendUint64(b, 0)
		b = be.AppendUint32(b, uint32(batch.SysFlag))
		b = be.AppendUint64(b, uint64(batch.BornTimestamp))
		b = append(b, born...)
		b = be.AppendUint64(b, uint64(batch.StoreTimestamp))
		b = append(b, storeHost...)
		b = be.AppendUint32(b, uint32(batch.ReconsumeTimes))
		b = be.AppendUint64(b, 0) // a batch carries no transaction
		b = be.AppendUint32(b, uint32(bodyLen))
		b = append(b, body...)
		b = append(b, byte(topicLen))
		b = append(b, batch.Topic...)
		b = be.AppendUint16(b, uint16(total))
		b = append(b, props...)
		if sep {
			b = append(b, 0x02)
		}
		b = append(b, envelope...)
		count++
	}
	if count == 0 {
		return 0, MessageIllegal
	}
	e.buf = b
	return count, PutOK
}

// doAppendBatch writes all members of an encoded batch, or the blank END_OF_FILE record if
// they do not all fit. Java: DefaultAppendMessageCallback#doAppend(MessageExtBatch).
func (cb *defaultAppendMessageCallback) doAppendBatch(fileFromOffset int64, buf []byte, ctx appendContext, wroteOffset CommitLogOffset, queueOffset QueueOffset) AppendMessageResult {
	c := cb.c
	m := ctx.msg
	maxBlank := len(buf)
	enc := m.encoded
	be := binary.BigEndian
	if len(enc)+EndFileMinBlankLength > maxBlank {
		be.PutUint32(buf[0:], uint32(maxBlank))
		be.PutUint32(buf[4:], blankMagicCode)
		if ctx.tracing {
			c.env.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.String("result", "END_OF_FILE"),
				slog.Int64("wroteOffset", int64(wroteOffset)), slog.Int("blankBytes", maxBlank), slog.Int("msgSize", len(enc)))
		}
		return AppendMessageResult{Status: EndOfFile, WroteOffset: wroteOffset, WroteBytes: int32(maxBlank),
			StoreTimestamp: m.inner.StoreTimestamp, LogicsOffset: queueOffset}
	}
	begin := queueOffset
	tsPos := storeTimestampPos(m.inner.SysFlag)
	m.batchIDs = m.batchIDs[:0]
	for p := 0; p < len(enc); {
		n := int(be.Uint32(enc[p:]))
		be.PutUint64(enc[p+posQueueOffset:], uint64(queueOffset))
		be.PutUint64(enc[p+posPhysicalOffset:], uint64(wroteOffset+CommitLogOffset(p)))
		be.PutUint64(enc[p+tsPos:], uint64(m.inner.StoreTimestamp))
		m.batchIDs = append(m.batchIDs, wroteOffset+CommitLogOffset(p))
		queueOffset++
		p += n
	}
	copy(buf, enc)
	c.topicQueueTable[m.key] = queueOffset
	if ctx.tracing {
		c.env.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.Int64("wroteOffset", int64(wroteOffset)),
			slog.Int("queueId", int(m.key.queueID)), slog.Int64("queueOffset", int64(begin)), slog.Int("msgSize", len(enc)),
			slog.Int("msgNum", len(m.batchIDs)), slog.String("file", c.env.root.rel(c.mfq.storePath)+"/"+offset2FileName(fileFromOffset)))
	}
	return AppendMessageResult{Status: AppendPutOK, WroteOffset: wroteOffset, WroteBytes: int32(len(enc)),
		StoreTimestamp: m.inner.StoreTimestamp, LogicsOffset: begin, MsgNum: int32(len(m.batchIDs))}
}

// batchMsgIDs joins the members' offsetMsgIds with ','.
func (c *CommitLog) batchMsgIDs(m *msgToAppend) string {
	var b strings.Builder
	for i, off := range m.batchIDs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(primitive.CreateOffsetMsgID(m.storeHost.bytes(), int64(off)))
	}
	return b.String()
}
