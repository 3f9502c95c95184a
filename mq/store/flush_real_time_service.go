package store

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// retryTimesOver is how many final passes a flush or commit service makes at shutdown.
// Java: FlushCommitLogService.RETRY_TIMES_OVER.
const retryTimesOver = 10

// flushCommitLogService is what FlushRealTimeService and CommitRealTimeService share (in Java
// both extend CommitLog.FlushCommitLogService): their owner, the service thread, one pass at a
// time, and the store time of the last thorough pass.
type flushCommitLogService struct {
	c            *CommitLog // its owner (Java: an inner class of CommitLog)
	svc          *service.ServiceThread
	passMu       sync.Mutex // one pass at a time (the service and RunOnce)
	lastThorough int64      // store clock, ms; guarded by passMu
}

func newFlushCommitLogService(c *CommitLog, name string) flushCommitLogService {
	return flushCommitLogService{c: c, svc: service.New(name)}
}

func (f *flushCommitLogService) shutdown() { f.svc.Shutdown() }

// finalPasses runs pass (a flush or commit of the MappedFileQueue) with leastPages 0 until it
// reports nothing left or fails, at most retryTimesOver times: a service's last work at
// shutdown. Java: the retry loop at the end of FlushRealTimeService#run, CommitRealTimeService#run.
func finalPasses(pass func(leastPages int) (bool, error)) {
	for i := 0; i < retryTimesOver; i++ {
		if done, err := pass(0); done || err != nil {
			break
		}
	}
}

// FlushRealTimeService flushes the CommitLog for ASYNC_FLUSH: every flushIntervalCommitLog
// (or at once when a put — or, with the TransientStorePool, a commit — wakes it, unless
// flushCommitLogTimed) it flushes if at least flushCommitLogLeastPages new pages are readable,
// and at least every flushCommitLogThoroughInterval whatever is new. After a flush the
// checkpoint's physicMsgTimestamp becomes the store time of the last flushed message. The
// intervals are measured on the store clock. Mirrors CommitLog.FlushRealTimeService.
type FlushRealTimeService struct{ flushCommitLogService }

func newFlushRealTimeService(c *CommitLog) *FlushRealTimeService {
	return &FlushRealTimeService{newFlushCommitLogService(c, "FlushRealTimeService")}
}

func (f *FlushRealTimeService) start() {
	cfg := f.c.env.cfg
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
	c, env := f.c, f.c.env
	leastPages := env.cfg.FlushCommitLogLeastPages
	if thoroughDue(&f.lastThorough, env.cfg.FlushCommitLogThoroughInterval, env.clock.now()) {
		leastPages = 0
	}
	if !c.mfq.isAbleToFlush(leastPages) {
		return
	}
	if env.tracer.Enabled() {
		env.tracer.Step("FlushRealTimeService#run", slog.Int("flushLeastPages", leastPages))
	}
	c.flush(leastPages)
}

// finalFlush flushes what is left at shutdown and stamps the checkpoint.
func (f *FlushRealTimeService) finalFlush() {
	finalPasses(f.c.mfq.flush)
	f.c.updatePhysicTimestamp()
}

// thoroughDue reports whether the thorough interval has passed since *last (store clock, ms),
// and then moves *last to now: the flush and commit services' "at least every
// ...ThoroughInterval whatever is new" (a pass with leastPages 0).
func thoroughDue(last *int64, thorough time.Duration, now int64) bool {
	if now >= *last+thorough.Milliseconds() {
		*last = now
		return true
	}
	return false
}

// isAbleToFlush reports whether the file at the flush point has enough new data.
func (q *MappedFileQueue) isAbleToFlush(leastPages int) bool {
	_, mf := q.fileAt(&q.flushedWhere)
	return mf != nil && mf.isAbleToFlush(leastPages)
}
