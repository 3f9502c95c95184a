package store

import (
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// retryTimesOver is how many final flush attempts a flush service makes at shutdown.
const retryTimesOver = 10

// FlushRealTimeService flushes the CommitLog for ASYNC_FLUSH: every flushIntervalCommitLog
// (or at once when a put wakes it, unless flushCommitLogTimed) it flushes if at least
// flushCommitLogLeastPages new pages were written, and at least every
// flushCommitLogThoroughInterval whatever is new. After a flush the checkpoint's
// physicMsgTimestamp becomes the store time of the last flushed message.
// Mirrors CommitLog.FlushRealTimeService.
type FlushRealTimeService struct {
	s                  *DefaultMessageStore
	svc                *service.ServiceThread
	lastThoroughMillis int64 // only the service goroutine uses it
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

// run is one pass of the service loop. Java: FlushRealTimeService#run.
func (f *FlushRealTimeService) run() {
	s := f.s
	leastPages := s.cfg.FlushCommitLogLeastPages
	now := time.Now().UnixMilli()
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
	now := time.Now().UnixMilli()
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
