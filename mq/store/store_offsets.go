package store

import (
	"os"
	"path/filepath"
)

// ConsumeQueue returns the queue if it exists, else nil (it is not created).
func (s *DefaultMessageStore) ConsumeQueue(topic string, queueID int32) *ConsumeQueue {
	return s.queues.get(topic, queueID)
}

// GetMaxOffsetInQueue is the queue's next offset; 0 for an unknown queue.
// Java: DefaultMessageStore#getMaxOffsetInQueue.
func (s *DefaultMessageStore) GetMaxOffsetInQueue(topic string, queueID int32) QueueOffset {
	if cq := s.queues.get(topic, queueID); cq != nil {
		return cq.GetMaxOffsetInQueue()
	}
	return 0
}

// GetMinOffsetInQueue is the queue's first valid offset; 0 for an unknown queue.
// Java: DefaultMessageStore#getMinOffsetInQueue.
func (s *DefaultMessageStore) GetMinOffsetInQueue(topic string, queueID int32) QueueOffset {
	if cq := s.queues.get(topic, queueID); cq != nil {
		return cq.GetMinOffsetInQueue()
	}
	return 0
}

// GetCommitLogOffsetInQueue is the CommitLog offset of the message at consumeQueueOffset, 0 if
// unknown. Java: DefaultMessageStore#getCommitLogOffsetInQueue.
func (s *DefaultMessageStore) GetCommitLogOffsetInQueue(topic string, queueID int32, consumeQueueOffset QueueOffset) CommitLogOffset {
	u, ok := s.ReadConsumeQueueUnit(topic, queueID, consumeQueueOffset)
	if !ok {
		return 0
	}
	return u.CommitLogOffset
}

// ReadConsumeQueueUnit reads the unit at queue offset index of the queue (topic, queueID): the
// record's CommitLog offset, its TOTALSIZE (bytes) and its tagsCode — the tag hash, or for
// SCHEDULE_TOPIC_XXXX the deliver time (ms, store clock: the record's store time + its level's
// delay). ok is false for an unknown queue and for an index below the queue's min offset or
// not written yet. Java: ConsumeQueue#getIndexBuffer, then one 20-byte unit read as
// ScheduleMessageService's DeliverDelayedMessageTimerTask does.
func (s *DefaultMessageStore) ReadConsumeQueueUnit(topic string, queueID int32, index QueueOffset) (CqUnit, bool) {
	cq := s.queues.get(topic, queueID)
	if cq == nil {
		return CqUnit{}, false
	}
	return cq.getUnit(index)
}

// GetMessageStoreTimeStamp is the store time (ms) of the message at consumeQueueOffset, -1 if
// unknown. Java: DefaultMessageStore#getMessageStoreTimeStamp.
func (s *DefaultMessageStore) GetMessageStoreTimeStamp(topic string, queueID int32, consumeQueueOffset QueueOffset) int64 {
	u, ok := s.ReadConsumeQueueUnit(topic, queueID, consumeQueueOffset)
	if !ok {
		return -1
	}
	return s.commitLog.pickupStoreTimestamp(u.CommitLogOffset, int(u.Size))
}

// GetOffsetInQueueByTime is the queue offset of the message stored closest to timestampMs
// (binary search over store times; on a tie of distance the earlier one); 0 for an unknown or
// empty queue. Java: ConsumeQueue#getOffsetInQueueByTime.
// Deviation: Java first picks one file by modification time and searches inside it; we search
// the whole queue from its min to its max offset.
func (s *DefaultMessageStore) GetOffsetInQueueByTime(topic string, queueID int32, timestampMs int64) QueueOffset {
	cq := s.queues.get(topic, queueID)
	if cq == nil {
		return 0
	}
	lo, end := cq.GetMinOffsetInQueue(), cq.GetMaxOffsetInQueue()
	minPhy := s.commitLog.getMinOffset()
	storeTime := func(i QueueOffset) int64 {
		u, ok := cq.getUnit(i)
		if !ok || u.CommitLogOffset < minPhy {
			return -1
		}
		return s.commitLog.pickupStoreTimestamp(u.CommitLogOffset, int(u.Size))
	}
	// Units whose messages the CommitLog's clean removed (before the ConsumeQueue's clean
	// moves the queue's min offset past them) are a prefix: the CommitLog offsets grow along
	// the queue. Java's search moves right past them; this one finds their end first.
	lo = searchUnits(lo, end, func(i QueueOffset) bool {
		u, ok := cq.getUnit(i)
		return !ok || u.CommitLogOffset < minPhy
	})
	if lo == end || storeTime(lo) < 0 {
		return 0
	}
	// first unit with storeTime >= timestamp (the last one if every message is older)
	left := searchUnits(lo, end-1, func(i QueueOffset) bool { return storeTime(i) < timestampMs })
	t := storeTime(left)
	if t == timestampMs || left == lo {
		return left
	}
	if t < timestampMs { // every message is older
		return left
	}
	prev := storeTime(left - 1)
	if timestampMs-prev <= t-timestampMs {
		return left - 1
	}
	return left
}

// searchUnits is the first queue offset in [lo, end) for which before is false, or end when
// it holds for all; before must hold on a prefix of the range only. It probes O(log n) units
// (sort.Search over queue offsets).
func searchUnits(lo, end QueueOffset, before func(QueueOffset) bool) QueueOffset {
	for lo < end {
		mid := lo + (end-lo)/2
		if before(mid) {
			lo = mid + 1
		} else {
			end = mid
		}
	}
	return lo
}

// GetMaxPhyOffset is the CommitLog's written end. Java: DefaultMessageStore#getMaxPhyOffset.
func (s *DefaultMessageStore) GetMaxPhyOffset() CommitLogOffset { return s.commitLog.getMaxOffset() }

// GetMinPhyOffset is the CommitLog's first offset, -1 when empty.
// Java: DefaultMessageStore#getMinPhyOffset.
func (s *DefaultMessageStore) GetMinPhyOffset() CommitLogOffset { return s.commitLog.getMinOffset() }

// CheckInDiskByConsumeOffset reports whether the message at consumeOffset lies beyond the
// in-memory window. Java: DefaultMessageStore#checkInDiskByConsumeOffset.
func (s *DefaultMessageStore) CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset QueueOffset) bool {
	u, ok := s.ReadConsumeQueueUnit(topic, queueID, consumeOffset)
	if !ok {
		return false
	}
	return int64(s.commitLog.getMaxOffset()-u.CommitLogOffset) > s.inMemoryBytes()
}

// FlushedWhere is the CommitLog offset up to which the log is known to be on disk.
// Java: CommitLog#getFlushedWhere.
func (s *DefaultMessageStore) FlushedWhere() CommitLogOffset { return s.commitLog.flushedWhere() }

// CommittedWhere is the CommitLog offset up to which write buffers were committed into the
// files (without the pool: as far as a commit pass last saw the written end).
func (s *DefaultMessageStore) CommittedWhere() CommitLogOffset {
	return CommitLogOffset(s.commitLog.mfq.committedWhere.Load())
}

// MaxWrotePosition is the CommitLog offset the appender reached: with the TransientStorePool
// it runs ahead of what readers see (GetMaxPhyOffset) until a commit.
// Java: MappedFileQueue#getMaxWrotePosition.
func (s *DefaultMessageStore) MaxWrotePosition() CommitLogOffset {
	return CommitLogOffset(s.commitLog.mfq.getMaxWrotePosition())
}

// RemainHowManyDataToCommit is how many written CommitLog bytes are not committed yet (0
// without the pool). Java: DefaultMessageStore#remainHowManyDataToCommit.
func (s *DefaultMessageStore) RemainHowManyDataToCommit() int64 {
	if s.transientStorePool == nil {
		return 0
	}
	return int64(s.MaxWrotePosition() - s.CommittedWhere())
}

// RemainHowManyDataToFlush is how many readable CommitLog bytes are not flushed yet.
// Java: DefaultMessageStore#remainHowManyDataToFlush.
func (s *DefaultMessageStore) RemainHowManyDataToFlush() int64 {
	return int64(s.commitLog.getMaxOffset() - s.FlushedWhere())
}

// DispatchBehindBytes is how many written CommitLog bytes are not dispatched yet.
// Java: DefaultMessageStore#dispatchBehindBytes.
func (s *DefaultMessageStore) DispatchBehindBytes() int64 { return s.reput.behind() }

// DeleteTopics removes the ConsumeQueues (files and directories) and queue offsets of topics,
// then writes consumequeue.list without them, so no later start rebuilds them from their
// records. Java: DefaultMessageStore#deleteTopics.
func (s *DefaultMessageStore) DeleteTopics(topics []string) {
	s.reput.mu.Lock() // no dispatch into a queue being deleted
	defer s.reput.mu.Unlock()
	for _, t := range topics {
		for id, cq := range s.queues.removeTopic(t) {
			if err := cq.destroy(); err != nil {
				s.env.log.error("delete topic "+t, err)
			}
			s.commitLog.removeQueueFromTopicQueueTable(t, id)
		}
		if err := os.RemoveAll(filepath.Join(s.cfg.ConsumeQueueDir(), t)); err != nil {
			s.env.log.error("delete topic "+t, err)
		}
	}
	// a list naming the topics would have a later start rebuild them from the CommitLog
	if err := s.queues.writeList(s.reput.ReputFromOffset()); err != nil {
		s.env.log.error("write consume queue list", err)
	}
}
