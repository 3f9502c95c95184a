package store

import "math"

// The services, for chapters and tests that drive them by hand (Options.ManualServices).

// DoReput runs one pass of the reput loop: dispatch every written, not yet dispatched record.
// Java: ReputMessageService#doReput.
func (s *DefaultMessageStore) DoReput() { s.reput.doReput() }

// ReputMessageService returns the dispatch service (RunOnce drives one pass of its loop).
func (s *DefaultMessageStore) ReputMessageService() *ReputMessageService { return s.reput }

// GroupCommitService returns the SYNC_FLUSH flush service (RunOnce, DoCommit drive it).
func (s *DefaultMessageStore) GroupCommitService() *GroupCommitService {
	return s.commitLog.groupCommit
}

// FlushDiskWatcher returns the SYNC_FLUSH timeout watcher (RunOnce drives it).
func (s *DefaultMessageStore) FlushDiskWatcher() *FlushDiskWatcher {
	return s.commitLog.flushDiskWatcher
}

// FlushRealTimeService returns the ASYNC_FLUSH flush service (RunOnce drives it).
func (s *DefaultMessageStore) FlushRealTimeService() *FlushRealTimeService {
	return s.commitLog.flushRealTime
}

// CommitRealTimeService returns the TransientStorePool commit service (RunOnce drives it).
func (s *DefaultMessageStore) CommitRealTimeService() *CommitRealTimeService {
	return s.commitLog.commitRealTime
}

// IndexService returns the index service (its files, for tests and chapters).
func (s *DefaultMessageStore) IndexService() *IndexService { return s.indexService }

// TransientStorePool returns the pool of write buffers, nil unless transientStorePoolEnable
// (with ASYNC_FLUSH on a master).
func (s *DefaultMessageStore) TransientStorePool() *TransientStorePool { return s.transientStorePool }

// RemainTransientStoreBufferNumbs is the number of free pool buffers, math.MaxInt32 without
// the pool. Java: DefaultMessageStore#remainTransientStoreBufferNumbs.
func (s *DefaultMessageStore) RemainTransientStoreBufferNumbs() int {
	if s.transientStorePool == nil {
		return math.MaxInt32
	}
	return s.transientStorePool.AvailableBufferNums()
}

// IsTransientStorePoolDeficient: the pool is on and has no free buffer (the broker then
// refuses sends at the door). Java: DefaultMessageStore#isTransientStorePoolDeficient.
func (s *DefaultMessageStore) IsTransientStorePoolDeficient() bool {
	return s.RemainTransientStoreBufferNumbs() == 0
}

// CommitCommitLog commits the write buffer of the file at the commit point if at least
// leastPages new pages were written (0: any new byte): one CommitRealTimeService commit
// without its timing. True when nothing was committed.
func (s *DefaultMessageStore) CommitCommitLog(leastPages int) bool {
	return s.commitLog.commit(leastPages)
}

// FlushCommitLog flushes the CommitLog if at least leastPages new pages are readable (0: any
// new byte) and updates the checkpoint's physicMsgTimestamp. One FlushRealTimeService pass
// without the timing; true when nothing was left to flush in the file at the flush point.
func (s *DefaultMessageStore) FlushCommitLog(leastPages int) bool {
	return s.commitLog.flush(leastPages)
}

// FlushConsumeQueue flushes every ConsumeQueue with at least leastPages new pages (0: all)
// and, with leastPages 0, the checkpoint. One FlushConsumeQueueService pass.
func (s *DefaultMessageStore) FlushConsumeQueue(leastPages int) { s.flushCQ.flushOnce(leastPages) }
