package store

import "log/slog"

// CommitRealTimeService commits the write buffers of the TransientStorePool into the
// CommitLog files (pwrite): every commitIntervalCommitLog, or at once when a put wakes it, if
// at least commitCommitLogLeastPages new pages were written, and at least every
// commitCommitLogThoroughInterval whatever is new. After a commit that moved data it wakes
// FlushRealTimeService. Only committed bytes are readable (reput, pulls), so the commit
// interval is also the delay before consumers see a message. The intervals are measured on
// the store clock. Its lastThorough (Java's lastCommitTimestamp) also moves with every commit
// that moved data. Mirrors CommitLog.CommitRealTimeService.
type CommitRealTimeService struct{ flushCommitLogService }

func newCommitRealTimeService(c *CommitLog) *CommitRealTimeService {
	return &CommitRealTimeService{newFlushCommitLogService(c, "CommitRealTimeService")}
}

func (c *CommitRealTimeService) start() {
	c.svc.Start(func() {
		for {
			c.run()
			if !c.svc.WaitForRunning(c.c.env.cfg.CommitIntervalCommitLog) {
				break
			}
		}
		finalPasses(c.c.mfq.commit)
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
	cl, env := c.c, c.c.env
	now := env.clock.now()
	leastPages := env.cfg.CommitCommitLogLeastPages
	if thoroughDue(&c.lastThorough, env.cfg.CommitCommitLogThoroughInterval, now) {
		leastPages = 0
	}
	if env.tracer.Enabled() && cl.mfq.isAbleToCommit(leastPages) {
		env.tracer.Step("CommitRealTimeService#run", slog.Int("commitLeastPages", leastPages))
	}
	if !cl.commit(leastPages) {
		c.lastThorough = now
		cl.flushRealTime.svc.Wakeup()
	}
}
