package store

import (
	"fmt"
	"log/slog"
	"math"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// GetMessage reads up to maxMsgNums messages of a queue from queue offset offset, skipping
// those filter rejects. Statuses and nextBeginOffset follow Java (remoting-protocol.md §4.6);
// the batch stops at maxMsgNums or the in-memory/in-disk byte and count limits, but always
// holds at least one message if one matched; at most max(16000, maxMsgNums·20) bytes of
// ConsumeQueue are scanned. Records are copied (valid after their file is unmapped). Returns
// nil when the store is shut down. Java: DefaultMessageStore#getMessage.
// Deviation: an unknown queue is not created; it answers NO_MATCHED_LOGIC_QUEUE (Java creates
// an empty queue and answers NO_MESSAGE_IN_QUEUE; the broker maps both alike).
func (s *DefaultMessageStore) GetMessage(group, topic string, queueID int32, offset QueueOffset, maxMsgNums int32, filter MessageFilter) *GetMessageResult {
	if s.flags.shutdown.Load() {
		return nil
	}
	res := &GetMessageResult{}
	status := NoMessageInQueue
	next := offset
	var minOffset, maxOffset QueueOffset
	maxOffsetPy := s.commitLog.getMaxOffset()
	cq := s.queues.get(topic, queueID)
	if cq == nil {
		status = NoMatchedLogicQueue
		next = s.nextOffsetCorrection(offset, 0)
	} else {
		minOffset, maxOffset = cq.GetMinOffsetInQueue(), cq.GetMaxOffsetInQueue()
		switch {
		case maxOffset == 0:
			status, next = NoMessageInQueue, s.nextOffsetCorrection(offset, 0)
		case offset < minOffset:
			status, next = OffsetTooSmall, s.nextOffsetCorrection(offset, minOffset)
		case offset == maxOffset:
			status, next = OffsetOverflowOne, s.nextOffsetCorrection(offset, offset)
		case offset > maxOffset:
			status, next = OffsetOverflowBadly, s.nextOffsetCorrection(offset, maxOffset)
		default:
			status, next = s.readMessages(res, cq, offset, maxMsgNums, filter, maxOffsetPy)
		}
	}
	res.Status, res.NextBeginOffset, res.MinOffset, res.MaxOffset = status, next, minOffset, maxOffset
	if status == Found {
		s.stats.getMessageTransferedMsgCount.Add(int64(res.MessageCount))
	}
	if tr := s.env.tracer; tr.Enabled() {
		tr.Step("DefaultMessageStore#getMessage", slog.String("group", group), slog.String("topic", topic),
			slog.Int("queueId", int(queueID)), slog.Int64("offset", int64(offset)), slog.String("status", status.String()),
			slog.Int("messageCount", res.MessageCount), slog.Int64("nextBeginOffset", int64(next)),
			slog.Int64("minOffset", int64(minOffset)), slog.Int64("maxOffset", int64(maxOffset)))
	}
	return res
}

// readMessages walks the queue's units from offset (a ConsumeQueue iterator) and copies the
// records they point at out of the CommitLog.
func (s *DefaultMessageStore) readMessages(res *GetMessageResult, cq *ConsumeQueue, offset QueueOffset, maxMsgNums int32,
	filter MessageFilter, maxOffsetPy CommitLogOffset) (GetMessageStatus, QueueOffset) {
	it, ok := cq.iterateFrom(offset)
	if !ok {
		return OffsetFoundNull, s.nextOffsetCorrection(offset, cq.rollNextFile(offset))
	}
	defer it.Release()
	status := NoMatchedMessage
	clFilter, _ := filter.(CommitLogMessageFilter)
	nextPhyFileStart := CommitLogOffset(math.MinInt64)
	var maxPhyPulling CommitLogOffset
	maxFilter := max(16000, int(maxMsgNums)*ConsumeQueueUnitSize)
	memory := s.inMemoryBytes()
	var body []byte
	var ends []int
	next := offset
	for scanned := 0; scanned < maxFilter; scanned += ConsumeQueueUnitSize {
		u, ok := it.Next()
		if !ok {
			break
		}
		maxPhyPulling = u.CommitLogOffset
		if nextPhyFileStart != math.MinInt64 && u.CommitLogOffset < nextPhyFileStart {
			next = u.QueueOffset + 1
			continue
		}
		inDisk := int64(maxOffsetPy-u.CommitLogOffset) > memory
		if s.isTheBatchFull(int(u.Size), int(maxMsgNums), len(body), len(ends), inDisk) {
			break
		}
		next = u.QueueOffset + 1
		if filter != nil && !filter.IsMatchedByConsumeQueue(u.TagsCode) {
			if len(body) == 0 {
				status = NoMatchedMessage
			}
			continue
		}
		rec, ok := s.commitLog.getMessage(u.CommitLogOffset, int(u.Size))
		if !ok {
			if len(body) == 0 {
				status = MessageWasRemoving
			}
			nextPhyFileStart = s.commitLog.rollNextFile(u.CommitLogOffset)
			continue
		}
		if clFilter != nil && !clFilter.IsMatchedByCommitLog(rec.Data) {
			rec.Release()
			if len(body) == 0 {
				status = NoMatchedMessage
			}
			continue
		}
		if body == nil {
			body = make([]byte, 0, max(min(int(u.Size)*int(min(maxMsgNums, 32)), s.cfg.MaxTransferBytesOnMessageInMemory), int(u.Size)))
			ends = make([]int, 0, min(max(maxMsgNums, 1), 32))
			res.MessageQueueOffsets = make([]QueueOffset, 0, min(max(maxMsgNums, 1), 32))
		}
		body = append(body, rec.Data...)
		rec.Release()
		ends = append(ends, len(body))
		res.MessageQueueOffsets = append(res.MessageQueueOffsets, u.QueueOffset)
		status = Found
		nextPhyFileStart = math.MinInt64
	}
	if len(ends) > 0 {
		res.body = body
		res.Messages = make([][]byte, len(ends))
		start := 0
		for k, e := range ends {
			res.Messages[k] = body[start:e:e]
			start = e
		}
		res.MessageCount = len(ends)
		res.BufferTotalSize = len(body)
	}
	res.LagBytes, res.InMemoryBytes = int64(maxOffsetPy-maxPhyPulling), memory
	res.SuggestPullingFromSlave = res.LagBytes > memory
	return status, next
}

// inMemoryBytes is how much of the CommitLog's end counts as in memory:
// accessMessageInMemoryMaxRatio percent of Options.TotalPhysicalMemory (the machine's RAM
// unless set). Java: DefaultMessageStore#getMessage (memory).
func (s *DefaultMessageStore) inMemoryBytes() int64 {
	total := s.env.opts.TotalPhysicalMemory
	if total <= 0 {
		total = totalPhysicalMemory()
	}
	return total * int64(s.cfg.AccessMessageInMemoryMaxRatio) / 100
}

// isTheBatchFull: never while empty; else at maxMsgNums, or over the byte/count limits for
// in-memory or in-disk data. Java: DefaultMessageStore#isTheBatchFull.
func (s *DefaultMessageStore) isTheBatchFull(sizePy, maxMsgNums, bufferTotal, messageTotal int, inDisk bool) bool {
	if bufferTotal == 0 || messageTotal == 0 {
		return false
	}
	if maxMsgNums <= messageTotal {
		return true
	}
	if inDisk {
		return bufferTotal+sizePy > s.cfg.MaxTransferBytesOnMessageInDisk ||
			messageTotal > s.cfg.MaxTransferCountOnMessageInDisk-1
	}
	return bufferTotal+sizePy > s.cfg.MaxTransferBytesOnMessageInMemory ||
		messageTotal > s.cfg.MaxTransferCountOnMessageInMemory-1
}

// nextOffsetCorrection: a slave (without offsetCheckInSlave) keeps the requested offset.
// Java: DefaultMessageStore#nextOffsetCorrection.
func (s *DefaultMessageStore) nextOffsetCorrection(oldOffset, newOffset QueueOffset) QueueOffset {
	if s.cfg.BrokerRole != Slave || s.cfg.OffsetCheckInSlave {
		return newOffset
	}
	return oldOffset
}

// SelectOneMessageByOffset returns a copy of the record at commitLogOffset.
// Java: DefaultMessageStore#selectOneMessageByOffset.
func (s *DefaultMessageStore) SelectOneMessageByOffset(commitLogOffset CommitLogOffset) ([]byte, bool) {
	head, ok := s.commitLog.getMessage(commitLogOffset, 8)
	if !ok {
		return nil, false
	}
	size := int(int32(be32(head.Data)))
	magic := be32(head.Data[4:])
	head.Release()
	if magic != messageMagicCode || size < minRecordSize {
		return nil, false
	}
	r, ok := s.commitLog.getMessage(commitLogOffset, size)
	if !ok {
		return nil, false
	}
	defer r.Release()
	return append([]byte(nil), r.Data...), true
}

// LookMessageByOffset decodes the record at commitLogOffset.
// Java: DefaultMessageStore#lookMessageByOffset.
func (s *DefaultMessageStore) LookMessageByOffset(commitLogOffset CommitLogOffset) (*primitive.MessageExt, error) {
	rec, ok := s.SelectOneMessageByOffset(commitLogOffset)
	if !ok {
		return nil, fmt.Errorf("store: no message at commitlog offset %d", commitLogOffset)
	}
	m, _, err := primitive.DecodeMessage(rec)
	return m, err
}

// GetCommitLogData returns the written CommitLog bytes from offset to the end of its file,
// held: call Release when done (HA transfer). Java: DefaultMessageStore#getCommitLogData.
func (s *DefaultMessageStore) GetCommitLogData(offset CommitLogOffset) (SelectMappedBufferResult, bool) {
	if s.flags.shutdown.Load() {
		return SelectMappedBufferResult{}, false
	}
	return s.commitLog.getData(offset)
}
