package store

import (
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
	batchIDs []CommitLogOffset // offsets of the members, filled by doAppend
}

// CommitLog is the single append-only log of every message: a MappedFileQueue of
// mappedFileSizeCommitLog-byte files under commitlog/. One writer at a time appends under
// putMu; the reput service reads behind it to build ConsumeQueues. It is built from what it
// uses (the store env, the running flags, the checkpoint, the allocator and the pool) and owns
// its flush services, as Java's CommitLog does; a ReplicaService, when set, hears of every
// appended put. Mirrors org.apache.rocketmq.store.CommitLog.
type CommitLog struct {
	env        *storeEnv
	flags      *runningFlags    // shutdown refuses a put that got past the store's status check
	checkpoint *StoreCheckpoint // physicMsgTimestamp after a flush; where abnormal recovery starts
	mfq        *MappedFileQueue

	// The flush services (Java: CommitLog#flushCommitLogService, #commitLogService,
	// #flushDiskWatcher): GroupCommitService and FlushDiskWatcher for SYNC_FLUSH,
	// FlushRealTimeService for ASYNC_FLUSH, CommitRealTimeService with the TransientStorePool.
	groupCommit      *GroupCommitService
	flushDiskWatcher *FlushDiskWatcher
	flushRealTime    *FlushRealTimeService
	commitRealTime   *CommitRealTimeService
	// replica is told of every appended put (chapter 9's HA); nil: no replication.
	replica ReplicaService

	putMu sync.Mutex
	// topicQueueTable maps a queue to its next queue offset; guarded by putMu.
	topicQueueTable map[topicQueueKey]QueueOffset
	// beginTimeInLock is the time (ms) the current holder took putMu, 0 when free.
	beginTimeInLock atomic.Int64

	encoders sync.Pool // *messageExtEncoder
	callback defaultAppendMessageCallback

	delayLevels []int64 // ms per delay level (index 0 = level 1)

	// appendedRecordEnd is, on a slave, where the next record header of the master's byte
	// stream starts (CommitLog bytes), -1 until the first appendData; guarded by putMu.
	appendedRecordEnd CommitLogOffset
}

// newCommitLog builds the log over commitlog/ and its flush services. allocate (nil: files
// are created inline) and pool (nil: no write buffers) are the store's. Nothing touches the
// disk until load. Java: CommitLog(defaultMessageStore).
func newCommitLog(env *storeEnv, flags *runningFlags, checkpoint *StoreCheckpoint,
	allocate *AllocateMappedFileService, pool *TransientStorePool) *CommitLog {
	cfg := env.cfg
	c := &CommitLog{env: env, flags: flags, checkpoint: checkpoint, topicQueueTable: map[topicQueueKey]QueueOffset{},
		appendedRecordEnd: -1}
	c.mfq = newMappedFileQueue(cfg.CommitLogDir(), env.root.rel(cfg.CommitLogDir()), cfg.MappedFileSizeCommitLog, allocate, env.tracer)
	c.mfq.warm = cfg.WarmMappedFileEnable
	c.mfq.pool = pool
	c.mfq.hooks = env.events()
	c.callback = defaultAppendMessageCallback{c: c}
	maxBody := cfg.MaxMessageSize
	c.encoders.New = func() any { return &messageExtEncoder{maxBodySize: maxBody} }
	c.delayLevels, _ = ParseDelayLevel(cfg.MessageDelayLevel)
	c.groupCommit = newGroupCommitService(c)
	c.flushDiskWatcher = newFlushDiskWatcher(c)
	c.flushRealTime = newFlushRealTimeService(c)
	c.commitRealTime = newCommitRealTimeService(c)
	return c
}

// ReplicaService is where replication plugs into the put path (chapter 9's HAService
// implements it). For a SYNC_MASTER put whose producer waits (WAIT absent or true), CommitLog
// asks IsSlaveOK with the end of the put's record(s) (wroteOffset + wroteBytes, CommitLog
// bytes): false answers the put SLAVE_NOT_AVAILABLE at once; true hands a GroupCommitRequest
// for that offset to PutRequest, and the put answers when the service completes it
// (WakeupCustomer: PUT_OK once a slave acknowledged the offset, FLUSH_SLAVE_TIMEOUT after
// syncFlushTimeout). ASYNC_MASTER and SLAVE puts never call it.
// Java: CommitLog#submitReplicaRequest (4.9: CommitLog#handleHA), HAService#isSlaveOK,
// HAService#putRequest.
type ReplicaService interface {
	// IsSlaveOK: a slave is connected and acknowledged an offset within haSlaveFallbehindMax
	// bytes of masterPutWhere (a CommitLog offset).
	IsSlaveOK(masterPutWhere CommitLogOffset) bool
	// PutRequest queues req; the service must complete it exactly once (WakeupCustomer).
	PutRequest(req *GroupCommitRequest)
}

// SetReplicaService sets the replication point (nil: none). Call before the store starts.
func (c *CommitLog) SetReplicaService(r ReplicaService) { c.replica = r }

// start runs the flush services for the flush type (and the commit service with the pool).
// Java: CommitLog#start.
func (c *CommitLog) start() {
	if c.env.cfg.FlushDiskType == SyncFlush {
		c.groupCommit.start()
		c.flushDiskWatcher.start()
	} else {
		c.flushRealTime.start()
	}
	if c.mfq.pool != nil {
		c.commitRealTime.start()
	}
}

// shutdownServices commits the write buffers, answers SYNC_FLUSH puts still waiting and
// flushes what is left; with manual services (never started) it does their final passes.
// Java: CommitLog#shutdown.
func (c *CommitLog) shutdownServices(manual bool) {
	if manual {
		if c.mfq.pool != nil {
			finalPasses(c.mfq.commit)
		}
	} else {
		c.commitRealTime.shutdown()
		c.flushRealTime.shutdown()
	}
	c.groupCommit.shutdown()
	c.flushRealTime.finalFlush()
	c.flushDiskWatcher.shutdown()
}

// waitForAppend waits for an append in progress; later ones see the shutdown flag under putMu.
func (c *CommitLog) waitForAppend() {
	c.putMu.Lock()
	c.putMu.Unlock() //nolint:staticcheck // an empty critical section is the point
}

// lockTimeMills is how long (ms) the current put has held the put lock, 0 if free.
// Java: CommitLog#lockTimeMills.
func (c *CommitLog) lockTimeMills() int64 {
	begin := c.beginTimeInLock.Load()
	if begin == 0 {
		return 0
	}
	return c.env.clock.now() - begin
}

// flush flushes if at least leastPages new pages are readable (0: any new byte) and updates
// the checkpoint's physicMsgTimestamp; true when nothing was left to flush in the file at the
// flush point.
func (c *CommitLog) flush(leastPages int) bool {
	done, err := c.mfq.flush(leastPages)
	if err != nil {
		c.env.log.error("flush commitlog", err)
	}
	c.updatePhysicTimestamp()
	return done
}

// commit commits the write buffer at the commit point if at least leastPages new pages were
// written; true when nothing was committed.
func (c *CommitLog) commit(leastPages int) bool {
	done, err := c.mfq.commit(leastPages)
	if err != nil {
		c.env.log.error("commit commitlog", err)
	}
	return done
}

// updatePhysicTimestamp: the checkpoint's physicMsgTimestamp becomes the store time of the
// last flushed message.
func (c *CommitLog) updatePhysicTimestamp() {
	if ts := c.mfq.storeTimestamp.Load(); ts > 0 {
		c.checkpoint.setPhysicMsgTimestamp(ts)
	}
}

// flushedWhere is the offset up to which the log is known to be on disk.
func (c *CommitLog) flushedWhere() CommitLogOffset { return CommitLogOffset(c.mfq.flushedWhere.Load()) }

// load maps the existing files. Java: CommitLog#load.
func (c *CommitLog) load() error { return c.mfq.load() }

// getMinOffset is the first file's start (bytes), or -1 without files. Java: CommitLog#getMinOffset.
func (c *CommitLog) getMinOffset() CommitLogOffset {
	f := c.mfq.FirstMappedFile()
	if f == nil {
		return -1
	}
	if f.available.Load() {
		return CommitLogOffset(f.fileFromOffset)
	}
	return c.rollNextFile(CommitLogOffset(f.fileFromOffset))
}

// getMaxOffset is the end of the written log (bytes). Java: CommitLog#getMaxOffset.
func (c *CommitLog) getMaxOffset() CommitLogOffset { return CommitLogOffset(c.mfq.getMaxOffset()) }

// rollNextFile is the start of the file after the one holding offset. Java: CommitLog#rollNextFile.
func (c *CommitLog) rollNextFile(offset CommitLogOffset) CommitLogOffset {
	size := CommitLogOffset(c.env.cfg.MappedFileSizeCommitLog)
	return offset + size - offset%size
}

// getData returns the written bytes from offset to the end of its file, held.
// Java: CommitLog#getData.
func (c *CommitLog) getData(offset CommitLogOffset) (SelectMappedBufferResult, bool) {
	mf := c.mfq.findMappedFileByOffset(int64(offset), offset == 0)
	if mf == nil {
		return SelectMappedBufferResult{}, false
	}
	return mf.selectMappedBufferFrom(int(int64(offset) % int64(c.env.cfg.MappedFileSizeCommitLog)))
}

// getMessage returns the size bytes at offset, held. Java: CommitLog#getMessage.
func (c *CommitLog) getMessage(offset CommitLogOffset, size int) (SelectMappedBufferResult, bool) {
	mf := c.mfq.findMappedFileByOffset(int64(offset), offset == 0)
	if mf == nil {
		return SelectMappedBufferResult{}, false
	}
	return mf.selectMappedBuffer(int(int64(offset)%int64(c.env.cfg.MappedFileSizeCommitLog)), size)
}

// asyncPutMessage appends one message: stamps the body CRC, redirects a delayed message to
// SCHEDULE_TOPIC_XXXX, encodes the record outside the lock, then under putMu takes the store
// time, appends (rolling to a new file on END_OF_FILE) and advances the queue offset; then it
// submits the flush. A non-nil request means the result is not final yet: it arrives on the
// request's channel once the record is flushed (SYNC_FLUSH).
// Java: CommitLog#asyncPutMessage.
func (c *CommitLog) asyncPutMessage(msg *primitive.MessageExtBrokerInner) (PutMessageResult, *GroupCommitRequest) {
	env := c.env
	tracing := env.tracer.Enabled()
	if tracing {
		env.tracer.Step("CommitLog#asyncPutMessage", slog.String("topic", msg.Topic), slog.Int("queueId", int(msg.QueueID)))
	}
	// Java also stamps the store time here; the one that counts is taken under the lock.
	msg.BodyCRC = bodyCRC(msg.Body)
	tranType := primitive.GetTransactionValue(msg.SysFlag)
	if tranType == tranNotType || tranType == tranCommitType {
		c.applyDelay(msg)
	}
	born, storeHost, ok := messageHosts(msg)
	if !ok {
		return PutMessageResult{PutMessageStatus: MessageIllegal}, nil
	}

	enc := c.encoders.Get().(*messageExtEncoder)
	defer c.encoders.Put(enc)
	st := enc.encode(msg, born.bytes(), storeHost.bytes())
	if tracing {
		env.tracer.Step("MessageExtEncoder#encode", slog.Int("msgLen", len(enc.buf)), slog.Int("bodyLength", len(msg.Body)),
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
	ctx := appendContext{msg: m, tracing: tracing}
	c.putMu.Lock()
	if c.flags.shutdown.Load() { // Shutdown passed while this put was on its way
		c.putMu.Unlock()
		return PutMessageResult{PutMessageStatus: ServiceNotAvailable}, nil
	}
	begin := c.env.clock.now()
	c.beginTimeInLock.Store(begin)
	m.inner.StoreTimestamp = begin
	c.env.events().putInLock()

	mf, err := c.mfq.getLastMappedFile(0, true)
	if err != nil || mf == nil {
		c.beginTimeInLock.Store(0)
		c.putMu.Unlock()
		c.env.log.error("create mapped file failed", err)
		return PutMessageResult{PutMessageStatus: CreateMappedFileFailed}, nil
	}
	r := mf.appendMessagesInner(&c.callback, ctx)
	if r.Status == EndOfFile {
		mf, err = c.mfq.getLastMappedFile(0, true)
		if err != nil || mf == nil {
			c.beginTimeInLock.Store(0)
			c.putMu.Unlock()
			c.env.log.error("create mapped file failed", err)
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
		r.MsgID = primitive.CreateOffsetMsgID(m.storeHost.bytes(), int64(r.WroteOffset))
	}
	res := PutMessageResult{PutMessageStatus: PutOK, AppendMessageResult: &r}
	return c.submitRequests(res, m.inner, tracing)
}

// submitRequests submits the appended put to the flush and to the replication and returns
// the request the put waits for (nil: res is final). With both a SYNC_FLUSH and a SYNC_MASTER
// wait, the two requests are joined: the put answers once both completed, with the
// replication's status when it is not PUT_OK, else the flush's (Java: thenCombine of the two
// futures in CommitLog#asyncPutMessage).
func (c *CommitLog) submitRequests(res PutMessageResult, msg *primitive.MessageExtBrokerInner, tracing bool) (PutMessageResult, *GroupCommitRequest) {
	var join *putJoin
	replica := c.waitsForReplica(msg)
	if replica && c.env.cfg.FlushDiskType == SyncFlush && isWaitStoreMsgOK(msg) {
		join = newPutJoin(res)
	}
	flushReq := c.submitFlushRequest(res, msg, tracing, join)
	if !replica {
		return res, flushReq
	}
	replicaReq, st := c.submitReplicaRequest(res, tracing, join)
	switch {
	case join != nil && replicaReq == nil: // SLAVE_NOT_AVAILABLE: the flush's answer completes the put
		join.done(true, st)
		return res, join.final
	case join != nil:
		return res, join.final
	case replicaReq == nil:
		res.PutMessageStatus = st
		return res, nil
	}
	return res, replicaReq
}

// waitsForReplica: the put must wait for a slave (SYNC_MASTER, a ReplicaService, WAIT absent
// or true).
func (c *CommitLog) waitsForReplica(msg *primitive.MessageExtBrokerInner) bool {
	return c.replica != nil && c.env.cfg.BrokerRole == SyncMaster && isWaitStoreMsgOK(msg)
}

// submitReplicaRequest asks the ReplicaService whether a slave is near enough (IsSlaveOK):
// if so it hands it a request for the end of the put's record(s) and returns it; if not it
// returns SLAVE_NOT_AVAILABLE. join, when set, joins the request with the put's flush request.
// Java: CommitLog#submitReplicaRequest.
func (c *CommitLog) submitReplicaRequest(res PutMessageResult, tracing bool, join *putJoin) (*GroupCommitRequest, PutMessageStatus) {
	env := c.env
	r := res.AppendMessageResult
	nextOffset := r.WroteOffset + CommitLogOffset(r.WroteBytes)
	ok := c.replica.IsSlaveOK(nextOffset)
	if tracing {
		env.tracer.Step("CommitLog#submitReplicaRequest", slog.String("brokerRole", SyncMaster),
			slog.Int64("nextOffset", int64(nextOffset)), slog.Bool("slaveOK", ok))
	}
	if !ok {
		return nil, SlaveNotAvailable
	}
	req := newGroupCommitRequest(nextOffset, env.clock.mono()+env.cfg.SyncFlushTimeout.Milliseconds(), res)
	if join != nil {
		req.join, req.replicaPart = join, true
	}
	c.replica.PutRequest(req)
	return req, PutOK
}

// submitFlushRequest hands the appended record to the flush. SYNC_FLUSH: a put that waits for
// the store (WAIT absent or true) gets a GroupCommitRequest for the end of its record, watched
// by the FlushDiskWatcher and queued for GroupCommitService; one that does not only wakes the
// service. ASYNC_FLUSH: it wakes CommitRealTimeService (TransientStorePool) or
// FlushRealTimeService (unless that runs on a fixed timer). The step is logged for SYNC_FLUSH
// and for the pool; the default case, a wake-up, is left out of the trace.
// Java: CommitLog#submitFlushRequest.
func (c *CommitLog) submitFlushRequest(res PutMessageResult, msg *primitive.MessageExtBrokerInner, tracing bool, join *putJoin) *GroupCommitRequest {
	env := c.env
	r := res.AppendMessageResult
	nextOffset := r.WroteOffset + CommitLogOffset(r.WroteBytes)
	if env.cfg.FlushDiskType == SyncFlush {
		wait := isWaitStoreMsgOK(msg)
		if tracing {
			env.tracer.Step("CommitLog#submitFlushRequest", slog.String("flushDiskType", SyncFlush),
				slog.Bool("waitStoreMsgOK", wait), slog.Int64("nextOffset", int64(nextOffset)))
		}
		if !wait {
			c.groupCommit.svc.Wakeup()
			return nil
		}
		req := newGroupCommitRequest(nextOffset, env.clock.mono()+env.cfg.SyncFlushTimeout.Milliseconds(), res)
		req.join = join
		c.flushDiskWatcher.add(req)
		c.groupCommit.putRequest(req)
		return req
	}
	if env.cfg.IsTransientStorePoolEnable() {
		if tracing {
			env.tracer.Step("CommitLog#submitFlushRequest", slog.String("flushDiskType", AsyncFlush),
				slog.Bool("transientStorePool", true), slog.Int64("nextOffset", int64(nextOffset)))
		}
		c.commitRealTime.svc.Wakeup()
		return nil
	}
	if !env.cfg.FlushCommitLogTimed {
		c.flushRealTime.svc.Wakeup()
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

// pickupStoreTimestamp reads a record's STORETIMESTAMP, -1 if unreadable.
// Java: CommitLog#pickupStoreTimestamp.
func (c *CommitLog) pickupStoreTimestamp(offset CommitLogOffset, size int) int64 {
	if offset < c.getMinOffset() || size < minRecordSize {
		return -1
	}
	r, ok := c.getMessage(offset, size)
	if !ok {
		return -1
	}
	defer r.Release()
	sysFlag := int32(be32(r.Data[posSysFlag:]))
	return int64(be64(r.Data[storeTimestampPos(sysFlag):]))
}
