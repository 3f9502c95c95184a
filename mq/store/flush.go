package store

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// retryTimesOver is how many final flush attempts a flush service makes at shutdown.
const retryTimesOver = 10

// FlushRealTimeService flushes the CommitLog for ASYNC_FLUSH: every flushIntervalCommitLog
// (or at once when a put — or, with the TransientStorePool, a commit — wakes it, unless
// flushCommitLogTimed) it flushes if at least flushCommitLogLeastPages new pages are readable,
// and at least every flushCommitLogThoroughInterval whatever is new. After a flush the
// checkpoint's physicMsgTimestamp becomes the store time of the last flushed message. The
// intervals are measured on the store clock. Mirrors CommitLog.FlushRealTimeService.
type FlushRealTimeService struct {
	s                  *DefaultMessageStore
	svc                *service.ServiceThread
	passMu             sync.Mutex // one pass at a time (the service and RunOnce)
	lastThoroughMillis int64      // guarded by passMu
}

func newFlushRealTimeService(s *DefaultMessageStore) *FlushRealTimeService {
	return &FlushRealTimeService{s: s, svc: service.New("FlushRealTimeService")}
}

func (f *FlushRealTimeService) start() {
	cfg := &f.s.cfg
	f.svc.Start(func() {
		for {
			if cfg.FlushCommitLogTimed {
				select {
				case <-f.svc.StopChan():
				case <-time.After(cfg.FlushIntervalCommitLog):
				}
				if f.svc.Stopped() {
					break
				}
			} else if !f.svc.WaitForRunning(cfg.FlushIntervalCommitLog) {
				break
			}
			f.run()
		}
		f.finalFlush()
	})
}

// RunOnce is one pass of the service's loop without the wait. Chapters call it with
// ManualServices.
func (f *FlushRealTimeService) RunOnce() { f.run() }

// run is one pass of the service loop; its step is logged only when it flushes.
// Java: FlushRealTimeService#run.
func (f *FlushRealTimeService) run() {
	f.passMu.Lock()
	defer f.passMu.Unlock()
	s := f.s
	leastPages := s.cfg.FlushCommitLogLeastPages
	now := s.now()
	if now >= f.lastThoroughMillis+s.cfg.FlushCommitLogThoroughInterval.Milliseconds() {
		f.lastThoroughMillis = now
		leastPages = 0
	}
	if !s.commitLog.mfq.isAbleToFlush(leastPages) {
		return
	}
	if s.tracer.Enabled() {
		s.tracer.Step("FlushRealTimeService#run", slog.Int("flushLeastPages", leastPages))
	}
	s.FlushCommitLog(leastPages)
}

func (f *FlushRealTimeService) finalFlush() {
	for i := 0; i < retryTimesOver; i++ {
		if done, err := f.s.commitLog.mfq.flush(0); done || err != nil {
			break
		}
	}
	f.s.updatePhysicTimestamp()
}

func (f *FlushRealTimeService) shutdown() { f.svc.Shutdown() }

// CommitRealTimeService commits the write buffers of the TransientStorePool into the
// CommitLog files (pwrite): every commitIntervalCommitLog, or at once when a put wakes it, if
// at least commitCommitLogLeastPages new pages were written, and at least every
// commitCommitLogThoroughInterval whatever is new. After a commit that moved data it wakes
// FlushRealTimeService. Only committed bytes are readable (reput, pulls), so the commit
// interval is also the delay before consumers see a message. The intervals are measured on
// the store clock. Mirrors CommitLog.CommitRealTimeService.
type CommitRealTimeService struct {
	s                   *DefaultMessageStore
	svc                 *service.ServiceThread
	passMu              sync.Mutex // one pass at a time (the service and RunOnce)
	lastCommitTimestamp int64      // guarded by passMu
}

func newCommitRealTimeService(s *DefaultMessageStore) *CommitRealTimeService {
	return &CommitRealTimeService{s: s, svc: service.New("CommitRealTimeService")}
}

func (c *CommitRealTimeService) start() {
	c.svc.Start(func() {
		for {
			c.run()
			if !c.svc.WaitForRunning(c.s.cfg.CommitIntervalCommitLog) {
				break
			}
		}
		for i := 0; i < retryTimesOver; i++ {
			if done, err := c.s.commitLog.mfq.commit(0); done || err != nil {
				break
			}
		}
	})
}

// RunOnce is one pass of the service's loop without the wait. Chapters call it with
// ManualServices.
func (c *CommitRealTimeService) RunOnce() { c.run() }

// run is one pass: commit, and wake the flush when something was committed. Its step is
// logged only when there is enough to commit. Java: CommitRealTimeService#run.
func (c *CommitRealTimeService) run() {
	c.passMu.Lock()
	defer c.passMu.Unlock()
	s := c.s
	leastPages := s.cfg.CommitCommitLogLeastPages
	now := s.now()
	if now >= c.lastCommitTimestamp+s.cfg.CommitCommitLogThoroughInterval.Milliseconds() {
		c.lastCommitTimestamp = now
		leastPages = 0
	}
	if s.tracer.Enabled() && s.commitLog.mfq.isAbleToCommit(leastPages) {
		s.tracer.Step("CommitRealTimeService#run", slog.Int("commitLeastPages", leastPages))
	}
	done, err := s.commitLog.mfq.commit(leastPages)
	if err != nil {
		s.logError("commit commitlog", err)
	}
	if !done {
		c.lastCommitTimestamp = now
		s.flushCommitLog.svc.Wakeup()
	}
}

func (c *CommitRealTimeService) shutdown() { c.svc.Shutdown() }

// FlushConsumeQueueService flushes every ConsumeQueue every flushIntervalConsumeQueue when at
// least flushConsumeQueueLeastPages pages are new, and everything plus the checkpoint every
// flushConsumeQueueThoroughInterval. Mirrors DefaultMessageStore.FlushConsumeQueueService.
type FlushConsumeQueueService struct {
	s                  *DefaultMessageStore
	svc                *service.ServiceThread
	lastThoroughMillis int64
}

func newFlushConsumeQueueService(s *DefaultMessageStore) *FlushConsumeQueueService {
	return &FlushConsumeQueueService{s: s, svc: service.New("FlushConsumeQueueService")}
}

func (f *FlushConsumeQueueService) start() {
	f.svc.Start(func() {
		for f.svc.WaitForRunning(f.s.cfg.FlushIntervalConsumeQueue) {
			f.doFlush(false)
		}
		f.doFlush(true)
	})
}

// doFlush flushes the queues; final (shutdown) or a due thorough pass flushes all new data
// and the checkpoint. Java: FlushConsumeQueueService#doFlush.
func (f *FlushConsumeQueueService) doFlush(final bool) {
	s := f.s
	leastPages := s.cfg.FlushConsumeQueueLeastPages
	now := s.now()
	thorough := final
	if now >= f.lastThoroughMillis+s.cfg.FlushConsumeQueueThoroughInterval.Milliseconds() {
		f.lastThoroughMillis = now
		thorough = true
	}
	if thorough {
		leastPages = 0
	}
	s.flushConsumeQueues(leastPages, thorough)
}

func (f *FlushConsumeQueueService) shutdown() { f.svc.Shutdown() }

// isAbleToFlush reports whether the file at the flush point has enough new data.
func (q *MappedFileQueue) isAbleToFlush(leastPages int) bool {
	where := q.flushedWhere.Load()
	mf := q.findMappedFileByOffset(where, where == 0)
	return mf != nil && mf.isAbleToFlush(leastPages)
}
