package store

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// topicQueueKey names a queue in the CommitLog's next-offset table. Java keys that table by the
// string "topic-queueId"; a struct key is the same name without building a string per put.
type topicQueueKey struct {
	topic   string
	queueID int32
}

// msgToAppend is one encoded message on its way into the log.
type msgToAppend struct {
	inner     *primitive.MessageExtBrokerInner
	encoded   []byte // whole record; QUEUEOFFSET, PHYSICALOFFSET, STORETIMESTAMP patched in doAppend
	key       topicQueueKey
	storeHost hostAddr
	// batch: the encoded members back to back (see putMessages)
	batch    bool
	batchIDs []int64 // physical offsets of the members, filled by doAppend
}

// CommitLog is the single append-only log of every message: a MappedFileQueue of
// mappedFileSizeCommitLog-byte files under commitlog/. One writer at a time appends under
// putMu; the reput service reads behind it to build ConsumeQueues.
// Mirrors org.apache.rocketmq.store.CommitLog.
type CommitLog struct {
	store *DefaultMessageStore
	mfq   *MappedFileQueue

	putMu sync.Mutex
	// topicQueueTable maps a queue to its next queue offset (ConsumeQueue units); guarded by putMu.
	topicQueueTable map[topicQueueKey]int64
	// beginTimeInLock is the time (ms) the current holder took putMu, 0 when free.
	beginTimeInLock atomic.Int64

	encoders sync.Pool // *messageExtEncoder
	callback defaultAppendMessageCallback

	delayLevels []int64 // ms per delay level (index 0 = level 1)
}

func newCommitLog(s *DefaultMessageStore) *CommitLog {
	c := &CommitLog{store: s, topicQueueTable: map[topicQueueKey]int64{}}
	c.mfq = newMappedFileQueue(s.cfg.CommitLogDir(), s.rel(s.cfg.CommitLogDir()), s.cfg.MappedFileSizeCommitLog, s.allocate, s.tracer)
	c.mfq.warm = s.cfg.WarmMappedFileEnable
	c.mfq.pool = s.transientStorePool
	c.mfq.hooks = s.hooks
	c.callback = defaultAppendMessageCallback{c: c}
	maxBody := s.cfg.MaxMessageSize
	c.encoders.New = func() any { return &messageExtEncoder{maxBodySize: maxBody} }
	c.delayLevels, _ = ParseDelayLevel(s.cfg.MessageDelayLevel)
	return c
}

// load maps the existing files. Java: CommitLog#load.
func (c *CommitLog) load() error { return c.mfq.load() }

// getMinOffset is the first file's start (bytes), or -1 without files. Java: CommitLog#getMinOffset.
func (c *CommitLog) getMinOffset() int64 {
	f := c.mfq.FirstMappedFile()
	if f == nil {
		return -1
	}
	if f.available.Load() {
		return f.fileFromOffset
	}
	return c.rollNextFile(f.fileFromOffset)
}

// getMaxOffset is the end of the written log (bytes). Java: CommitLog#getMaxOffset.
func (c *CommitLog) getMaxOffset() int64 { return c.mfq.getMaxOffset() }

// rollNextFile is the start of the file after the one holding offset. Java: CommitLog#rollNextFile.
func (c *CommitLog) rollNextFile(offset int64) int64 {
	size := int64(c.store.cfg.MappedFileSizeCommitLog)
	return offset + size - offset%size
}

// getData returns the written bytes from offset to the end of its file, held.
// Java: CommitLog#getData.
func (c *CommitLog) getData(offset int64) (SelectMappedBufferResult, bool) {
	mf := c.mfq.findMappedFileByOffset(offset, offset == 0)
	if mf == nil {
		return SelectMappedBufferResult{}, false
	}
	return mf.selectMappedBufferFrom(int(offset % int64(c.store.cfg.MappedFileSizeCommitLog)))
}

// getMessage returns the size bytes at offset, held. Java: CommitLog#getMessage.
func (c *CommitLog) getMessage(offset int64, size int) (SelectMappedBufferResult, bool) {
	mf := c.mfq.findMappedFileByOffset(offset, offset == 0)
	if mf == nil {
		return SelectMappedBufferResult{}, false
	}
	return mf.selectMappedBuffer(int(offset%int64(c.store.cfg.MappedFileSizeCommitLog)), size)
}

// asyncPutMessage appends one message: stamps the body CRC, redirects a delayed message to
// SCHEDULE_TOPIC_XXXX, encodes the record outside the lock, then under putMu takes the store
// time, appends (rolling to a new file on END_OF_FILE) and advances the queue offset; then it
// submits the flush. A non-nil request means the result is not final yet: it arrives on the
// request's channel once the record is flushed (SYNC_FLUSH).
// Java: CommitLog#asyncPutMessage.
func (c *CommitLog) asyncPutMessage(msg *primitive.MessageExtBrokerInner) (PutMessageResult, *GroupCommitRequest) {
	s := c.store
	tracing := s.tracer.Enabled()
	if tracing {
		s.tracer.Step("CommitLog#asyncPutMessage", slog.String("topic", msg.Topic), slog.Int("queueId", int(msg.QueueID)))
	}
	// Java also stamps the store time here; the one that counts is taken under the lock.
	msg.BodyCRC = bodyCRC(msg.Body)
	tranType := msg.SysFlag & sysFlagTransactionMask
	if tranType == tranNotType || tranType == tranCommitType {
		c.applyDelay(msg)
	}
	born, err := hostField(msg.BornHostBytes, msg.BornHost)
	if err != nil {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	storeHost, err := hostField(msg.StoreHostBytes, msg.StoreHost)
	if err != nil {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}
	if born.n == 20 {
		msg.SysFlag |= sysFlagBornHostV6
	}
	if storeHost.n == 20 {
		msg.SysFlag |= sysFlagStoreHostV6
	}

	enc := c.encoders.Get().(*messageExtEncoder)
	defer c.encoders.Put(enc)
	st := enc.encode(msg, born.bytes(), storeHost.bytes())
	if tracing {
		s.tracer.Step("MessageExtEncoder#encode", slog.Int("msgLen", len(enc.buf)), slog.Int("bodyLength", len(msg.Body)),
			slog.Int("topicLength", len(msg.Topic)), slog.Int("propertiesLength", len(msg.PropertiesString)), slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	m := msgToAppend{inner: msg, encoded: enc.buf, key: topicQueueKey{msg.Topic, msg.QueueID}, storeHost: storeHost}
	return c.appendLocked(&m, tracing)
}

// appendLocked is the part of a put that runs under putMu, followed by submitFlushRequest.
func (c *CommitLog) appendLocked(m *msgToAppend, tracing bool) (PutMessageResult, *GroupCommitRequest) {
	s := c.store
	ctx := appendContext{msg: m, tracing: tracing}
	c.putMu.Lock()
	if s.shutdown.Load() { // Shutdown passed while this put was on its way
		c.putMu.Unlock()
		return PutMessageResult{PutMessageStatus: ServiceNotAvailable}, nil
	}
	begin := s.now()
	c.beginTimeInLock.Store(begin)
	m.inner.StoreTimestamp = begin
	if hook := s.cfg.PutInLockHook; hook != nil {
		hook()
	}

	mf, err := c.mfq.getLastMappedFile(0, true)
	if err != nil || mf == nil {
		c.beginTimeInLock.Store(0)
		c.putMu.Unlock()
		s.logError("create mapped file failed", err)
		return PutMessageResult{PutMessageStatus: CreateMappedFileFailed}, nil
	}
	r := mf.appendMessagesInner(&c.callback, ctx)
	if r.Status == EndOfFile {
		mf, err = c.mfq.getLastMappedFile(0, true)
		if err != nil || mf == nil {
			c.beginTimeInLock.Store(0)
			c.putMu.Unlock()
			s.logError("create mapped file failed", err)
			return PutMessageResult{PutMessageStatus: CreateMappedFileFailed, AppendMessageResult: &r}, nil
		}
		r = mf.appendMessagesInner(&c.callback, ctx)
	}
	c.beginTimeInLock.Store(0)
	c.putMu.Unlock()

	switch r.Status {
	case AppendPutOK:
	case MessageSizeExceeded, AppendPropertiesSizeExceeded:
		return PutMessageResult{PutMessageStatus: MessageIllegal, AppendMessageResult: &r}, nil
	default:
		return PutMessageResult{PutMessageStatus: UnknownError, AppendMessageResult: &r}, nil
	}
	if m.batch {
		r.MsgID = c.batchMsgIDs(m)
	} else {
		r.MsgID = primitive.CreateOffsetMsgID(m.storeHost.bytes(), r.WroteOffset)
	}
	res := PutMessageResult{PutMessageStatus: PutOK, AppendMessageResult: &r}
	return res, c.submitFlushRequest(res, m.inner, tracing)
}

// submitFlushRequest hands the appended record to the flush. SYNC_FLUSH: a put that waits for
// the store (WAIT absent or true) gets a GroupCommitRequest for the end of its record, watched
// by the FlushDiskWatcher and queued for GroupCommitService; one that does not only wakes the
// service. ASYNC_FLUSH: it wakes CommitRealTimeService (TransientStorePool) or
// FlushRealTimeService (unless that runs on a fixed timer). The step is logged for SYNC_FLUSH
// and for the pool; the default case, a wake-up, is left out of the trace.
// Java: CommitLog#submitFlushRequest.
func (c *CommitLog) submitFlushRequest(res PutMessageResult, msg *primitive.MessageExtBrokerInner, tracing bool) *GroupCommitRequest {
	s := c.store
	r := res.AppendMessageResult
	nextOffset := r.WroteOffset + int64(r.WroteBytes)
	if s.cfg.FlushDiskType == SyncFlush {
		wait := isWaitStoreMsgOK(msg)
		if tracing {
			s.tracer.Step("CommitLog#submitFlushRequest", slog.String("flushDiskType", SyncFlush),
				slog.Bool("waitStoreMsgOK", wait), slog.Int64("nextOffset", nextOffset))
		}
		if !wait {
			s.groupCommit.svc.Wakeup()
			return nil
		}
		req := newGroupCommitRequest(nextOffset, s.monoNow()+s.cfg.SyncFlushTimeout.Milliseconds(), res)
		s.flushDiskWatcher.add(req)
		s.groupCommit.putRequest(req)
		return req
	}
	if s.cfg.IsTransientStorePoolEnable() {
		if tracing {
			s.tracer.Step("CommitLog#submitFlushRequest", slog.String("flushDiskType", AsyncFlush),
				slog.Bool("transientStorePool", true), slog.Int64("nextOffset", nextOffset))
		}
		s.commitRealTime.svc.Wakeup()
		return nil
	}
	if !s.cfg.FlushCommitLogTimed {
		s.flushCommitLog.svc.Wakeup()
	}
	return nil
}

// applyDelay redirects a message with DELAY = L > 0 to SCHEDULE_TOPIC_XXXX queue L-1, keeping
// the real topic and queue in REAL_TOPIC / REAL_QID. Java: CommitLog#asyncPutMessage.
func (c *CommitLog) applyDelay(msg *primitive.MessageExtBrokerInner) {
	var level int
	if v, ok := msg.Properties[propertyDelay]; ok {
		level, _ = strconv.Atoi(v)
	} else if msg.Properties == nil {
		if v, ok := lookupProperty([]byte(msg.PropertiesString), propertyDelay); ok {
			level, _ = strconv.Atoi(string(v))
		}
	}
	if level <= 0 {
		return
	}
	if level > len(c.delayLevels) {
		level = len(c.delayLevels)
		if msg.Properties != nil {
			msg.Properties[propertyDelay] = strconv.Itoa(level)
		}
		// Deviation: Java re-serializes the whole map; we leave the stored DELAY text as sent
		// (the dispatcher clamps it again when it computes the deliver time).
	}
	realQID := strconv.Itoa(int(msg.QueueID))
	if msg.Properties != nil {
		msg.Properties[propertyRealTopic] = msg.Topic
		msg.Properties[propertyRealQID] = realQID
	}
	// Java re-serializes the properties map, so a message delayed before (a retry going back
	// through SCHEDULE_TOPIC_XXXX) keeps one REAL_TOPIC / REAL_QID pair, the new one.
	msg.PropertiesString = putProperty(putProperty(msg.PropertiesString, propertyRealTopic, msg.Topic), propertyRealQID, realQID)
	msg.Topic = scheduleTopic
	msg.QueueID = int32(level - 1)
}

// defaultAppendMessageCallback writes encoded records into a CommitLog file.
// Mirrors CommitLog.DefaultAppendMessageCallback.
type defaultAppendMessageCallback struct {
	c *CommitLog
}

// doAppend runs under putMu. It takes the queue offset from the topicQueueTable (0 and not
// advanced for PREPARED/ROLLBACK), and either writes the blank END_OF_FILE record (8 bytes:
// TOTALSIZE = bytes left, MAGIC 0xCBD43194) when record + 8 > bytes left, or patches
// QUEUEOFFSET, PHYSICALOFFSET, STORETIMESTAMP into the record and copies it in.
// Java: DefaultAppendMessageCallback#doAppend.
func (cb *defaultAppendMessageCallback) doAppend(fileFromOffset int64, buf []byte, ctx appendContext) AppendMessageResult {
	c := cb.c
	m := ctx.msg
	maxBlank := len(buf)
	wroteOffset := fileFromOffset + int64(c.store.cfg.MappedFileSizeCommitLog-maxBlank)
	queueOffset := c.topicQueueTable[m.key]
	storeTs := m.inner.StoreTimestamp
	tranType := m.inner.SysFlag & sysFlagTransactionMask
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
			c.store.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.String("result", "END_OF_FILE"),
				slog.Int64("wroteOffset", wroteOffset), slog.Int("blankBytes", maxBlank), slog.Int("msgSize", msgLen))
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
		c.store.tracer.Step("DefaultAppendMessageCallback#doAppend", slog.Int64("wroteOffset", wroteOffset),
			slog.Int("queueId", int(m.key.queueID)), slog.Int64("queueOffset", queueOffset), slog.Int("msgSize", msgLen),
			slog.String("file", c.store.rel(c.mfq.storePath)+"/"+offset2FileName(fileFromOffset)))
	}
	if tranType == tranNotType || tranType == tranCommitType {
		c.topicQueueTable[m.key] = queueOffset + 1
	}
	return AppendMessageResult{Status: AppendPutOK, WroteOffset: wroteOffset, WroteBytes: int32(msgLen),
		StoreTimestamp: storeTs, LogicsOffset: queueOffset, MsgNum: 1}
}

// storeTimestampPos is the STORETIMESTAMP position: 48 + born host length.
func storeTimestampPos(sysFlag int32) int {
	if sysFlag&sysFlagBornHostV6 != 0 {
		return posBornHost + 20
	}
	return posBornHost + 8
}

// queueOffset reads the next queue offset (units) the table holds for a queue.
func (c *CommitLog) queueOffset(topic string, queueID int32) (int64, bool) {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	v, ok := c.topicQueueTable[topicQueueKey{topic, queueID}]
	return v, ok
}

// setTopicQueueTable replaces the next-offset table. Java: CommitLog#setTopicQueueTable.
func (c *CommitLog) setTopicQueueTable(t map[topicQueueKey]int64) {
	c.putMu.Lock()
	c.topicQueueTable = t
	c.putMu.Unlock()
}

func (c *CommitLog) removeQueueFromTopicQueueTable(topic string, queueID int32) {
	c.putMu.Lock()
	delete(c.topicQueueTable, topicQueueKey{topic, queueID})
	c.putMu.Unlock()
}

// ---- reading records ----

// DispatchRequest is what the reput service learns from one record and hands to each
// CommitLogDispatcher. Properties points into the mapped file and is valid only during the
// dispatch call. Mirrors org.apache.rocketmq.store.DispatchRequest.
type DispatchRequest struct {
	Topic                     string
	QueueID                   int32
	CommitLogOffset           int64 // physical offset of the record (bytes)
	MsgSize                   int32 // TOTALSIZE
	TagsCode                  int64
	StoreTimestamp            int64 // ms
	ConsumeQueueOffset        int64 // queue offset (ConsumeQueue units)
	SysFlag                   int32
	PreparedTransactionOffset int64
	Properties                []byte
	// Success is false for a record that cannot be read (bad magic, CRC, length); with
	// MsgSize 0 and Success true the record is the blank at the end of a file.
	Success bool
}

// Property looks a property up in the record (copying the value).
func (d *DispatchRequest) Property(name string) (string, bool) {
	v, ok := lookupProperty(d.Properties, name)
	return string(v), ok
}

// Keys is the KEYS property; UniqKey the UNIQ_KEY property.
func (d *DispatchRequest) Keys() string    { v, _ := d.Property(propertyKeys); return v }
func (d *DispatchRequest) UniqKey() string { v, _ := d.Property(propertyUniqKey); return v }

// recordReader turns record bytes into DispatchRequests; it interns topic strings so a
// steady stream of records does not allocate.
type recordReader struct {
	topics      map[string]string
	delayLevels []int64
}

func (r *recordReader) topic(b []byte) string {
	if s, ok := r.topics[string(b)]; ok {
		return s
	}
	if r.topics == nil || len(r.topics) > 4096 {
		r.topics = map[string]string{}
	}
	s := string(b)
	r.topics[s] = s
	return s
}

// checkMessageAndReturnSize reads the record at the start of b. A blank record gives
// {Success: true, MsgSize: 0}; an unreadable one Success false (MsgSize is the claimed size
// when only the length check failed, else -1). With checkCRC the body CRC must match; with
// expectOffset >= 0 the PHYSICALOFFSET field must equal it.
// Java: CommitLog#checkMessageAndReturnSize.
func (r *recordReader) checkMessageAndReturnSize(b []byte, checkCRC bool, expectOffset int64) DispatchRequest {
	bad := DispatchRequest{MsgSize: -1}
	be := binary.BigEndian
	if len(b) < 8 {
		return bad
	}
	totalSize := int32(be.Uint32(b[posTotalSize:]))
	switch be.Uint32(b[posMagic:]) {
	case messageMagicCode:
	case blankMagicCode:
		return DispatchRequest{Success: true}
	default:
		return bad
	}
	if totalSize < 91 || int(totalSize) > len(b) {
		return bad
	}
	rec := b[:totalSize]
	sysFlag := int32(be.Uint32(rec[posSysFlag:]))
	bornHostLen, storeHostLen := 8, 8
	if sysFlag&sysFlagBornHostV6 != 0 {
		bornHostLen = 20
	}
	if sysFlag&sysFlagStoreHostV6 != 0 {
		storeHostLen = 20
	}
	if int(totalSize) < calMsgLength(sysFlag, 0, 0, 0) {
		return bad
	}
	p := posBornHost + bornHostLen
	storeTs := int64(be.Uint64(rec[p:]))
	p += 8 + storeHostLen + 4 // store host, RECONSUMETIMES
	prepared := int64(be.Uint64(rec[p:]))
	p += 8
	if p+4 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	bodyLen := int(int32(be.Uint32(rec[p:])))
	p += 4
	if bodyLen < 0 || p+bodyLen+1 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	if checkCRC && bodyLen > 0 && bodyCRC(rec[p:p+bodyLen]) != int32(be.Uint32(rec[posBodyCRC:])) {
		return bad
	}
	p += bodyLen
	topicLen := int(rec[p])
	p++
	if topicLen > maxTopicLength || p+topicLen+2 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	topicBytes := rec[p : p+topicLen]
	p += topicLen
	propLen := int(int16(be.Uint16(rec[p:])))
	p += 2
	if propLen < 0 || p+propLen > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	props := rec[p : p+propLen]
	if calMsgLength(sysFlag, bodyLen, topicLen, propLen) != int(totalSize) {
		return DispatchRequest{MsgSize: totalSize}
	}
	physical := int64(be.Uint64(rec[posPhysicalOffset:]))
	if expectOffset >= 0 && physical != expectOffset {
		// Deviation: Java does not compare the stored offset with the position; we do, so
		// that stale bytes past a truncation point are never taken for a record.
		return bad
	}
	d := DispatchRequest{
		Topic:                     r.topic(topicBytes),
		QueueID:                   int32(be.Uint32(rec[posQueueID:])),
		CommitLogOffset:           physical,
		MsgSize:                   totalSize,
		StoreTimestamp:            storeTs,
		ConsumeQueueOffset:        int64(be.Uint64(rec[posQueueOffset:])),
		SysFlag:                   sysFlag,
		PreparedTransactionOffset: prepared,
		Properties:                props,
		Success:                   true,
	}
	if propLen > 0 {
		if tags, ok := lookupProperty(props, propertyTags); ok && len(tags) > 0 {
			d.TagsCode = tagsString2TagsCode(tags)
		}
		if d.Topic == scheduleTopic {
			if v, ok := lookupProperty(props, propertyDelay); ok {
				if level, err := strconv.Atoi(string(v)); err == nil && level > 0 && len(r.delayLevels) > 0 {
					level = min(level, len(r.delayLevels))
					d.TagsCode = storeTs + r.delayLevels[level-1]
				}
			}
		}
	}
	return d
}

// recoverNormally finds the end of the log after a clean shutdown: from the third-to-last file
// it checks records (CRC per checkCRCOnRecover) until the first invalid one, moving to the
// next file at a blank record; the stop point becomes the end of the log and everything
// after it is truncated. ConsumeQueues referring to data at or past that end are truncated.
// Java: CommitLog#recoverNormally.
func (c *CommitLog) recoverNormally(maxPhyOffsetOfConsumeQueue int64) error {
	s := c.store
	files := c.mfq.MappedFiles()
	if len(files) == 0 {
		c.mfq.setFlushedAndCommittedWhere(0)
		if s.tracer.Enabled() {
			s.tracer.Step("CommitLog#recoverNormally", slog.Int("files", 0), slog.Int64("processOffset", 0))
		}
		return s.destroyLogics()
	}
	index := max(len(files)-3, 0)
	mf := files[index]
	processOffset := mf.fileFromOffset
	var fileOffset int64
	var rr recordReader
	for {
		d := rr.checkMessageAndReturnSize(mf.data[fileOffset:], s.cfg.CheckCRCOnRecover, processOffset+fileOffset)
		if d.Success && d.MsgSize > 0 {
			fileOffset += int64(d.MsgSize)
			continue
		}
		if d.Success && d.MsgSize == 0 {
			index++
			if index >= len(files) {
				break
			}
			mf = files[index]
			processOffset, fileOffset = mf.fileFromOffset, 0
			continue
		}
		break
	}
	processOffset += fileOffset
	if s.tracer.Enabled() {
		s.tracer.Step("CommitLog#recoverNormally", slog.String("startFile", s.rel(files[max(len(files)-3, 0)].path)),
			slog.Int64("processOffset", processOffset), slog.Int64("maxPhyOffsetOfConsumeQueue", maxPhyOffsetOfConsumeQueue))
	}
	c.mfq.setFlushedAndCommittedWhere(processOffset)
	if err := c.mfq.truncateDirtyFiles(processOffset); err != nil {
		return fmt.Errorf("recover commitlog: %w", err)
	}
	if maxPhyOffsetOfConsumeQueue >= processOffset {
		// Java warns on >=; equality is the normal clean-shutdown case (the queues end exactly
		// where the log ends), so only a real overrun is a warning here.
		if s.log != nil && maxPhyOffsetOfConsumeQueue > processOffset {
			s.log.Warn("consume queues reach past the commitlog end; truncating them",
				"maxPhyOffsetOfConsumeQueue", maxPhyOffsetOfConsumeQueue, "processOffset", processOffset)
		}
		return s.truncateDirtyLogicFiles(processOffset)
	}
	return nil
}

// recoverAbnormally finds the end of the log after an unclean exit (the abort file was left
// behind). It starts from the newest file whose first record is a message stored at or
// before the checkpoint's recovery time (min(physic, logics) − 3 s; with messageIndexEnable
// and messageIndexSafe also the index time), or from the first file if none is. From there
// it checks every record with its CRC (per checkCRCOnRecover), dispatches each valid one
// again — ConsumeQueue units already present and index entries below the index's end are
// skipped — moves to the next file at a blank record, and stops at the first invalid record:
// a torn or corrupt tail is truncated there, and ConsumeQueue units reaching past it too.
// Java: CommitLog#recoverAbnormally.
func (c *CommitLog) recoverAbnormally(maxPhyOffsetOfConsumeQueue int64) error {
	s := c.store
	files := c.mfq.MappedFiles()
	if len(files) == 0 {
		if s.tracer.Enabled() {
			s.tracer.Step("CommitLog#recoverAbnormally", slog.Int("files", 0), slog.Int64("processOffset", 0))
		}
		s.logWarn("the commitlog files are deleted; deleting the consume queues")
		c.mfq.setFlushedAndCommittedWhere(0)
		return s.destroyLogics()
	}
	index := len(files) - 1
	for ; index >= 0; index-- {
		if c.isMappedFileMatchedRecover(files[index]) {
			break
		}
	}
	index = max(index, 0)
	start := files[index]
	mf := start
	processOffset := mf.fileFromOffset
	var fileOffset int64
	var rr recordReader
	rr.delayLevels = c.delayLevels
	dispatched := 0
	for {
		d := rr.checkMessageAndReturnSize(mf.data[fileOffset:], s.cfg.CheckCRCOnRecover, processOffset+fileOffset)
		if d.Success && d.MsgSize > 0 {
			s.doDispatch(&d)
			dispatched++
			fileOffset += int64(d.MsgSize)
			continue
		}
		if d.Success && d.MsgSize == 0 {
			index++
			if index >= len(files) {
				break
			}
			mf = files[index]
			processOffset, fileOffset = mf.fileFromOffset, 0
			continue
		}
		break
	}
	processOffset += fileOffset
	if s.tracer.Enabled() {
		s.tracer.Step("CommitLog#recoverAbnormally", slog.String("startFile", s.rel(start.path)),
			slog.Int("dispatched", dispatched), slog.Int64("processOffset", processOffset),
			slog.Int64("maxPhyOffsetOfConsumeQueue", maxPhyOffsetOfConsumeQueue))
	}
	c.mfq.setFlushedAndCommittedWhere(processOffset)
	if err := c.mfq.truncateDirtyFiles(processOffset); err != nil {
		return fmt.Errorf("recover commitlog: %w", err)
	}
	s.indexService.truncateEnd(processOffset)
	if maxPhyOffsetOfConsumeQueue >= processOffset {
		if maxPhyOffsetOfConsumeQueue > processOffset {
			s.logWarn("consume queues reach past the commitlog end; truncating them",
				"maxPhyOffsetOfConsumeQueue", maxPhyOffsetOfConsumeQueue, "processOffset", processOffset)
		}
		return s.truncateDirtyLogicFiles(processOffset)
	}
	return nil
}

// isMappedFileMatchedRecover: the file's first record is a message (magic) with a non-zero
// store time at or before the checkpoint's recovery time. Java: CommitLog#isMappedFileMatchedRecover.
func (c *CommitLog) isMappedFileMatchedRecover(mf *MappedFile) bool {
	s := c.store
	d := mf.data
	if be32(d[posMagic:]) != messageMagicCode {
		return false
	}
	storeTs := int64(be64(d[storeTimestampPos(int32(be32(d[posSysFlag:]))):]))
	if storeTs == 0 {
		return false
	}
	if s.cfg.MessageIndexEnable && s.cfg.MessageIndexSafe {
		return storeTs <= s.checkpoint.MinTimestampIndex()
	}
	return storeTs <= s.checkpoint.MinTimestamp()
}
