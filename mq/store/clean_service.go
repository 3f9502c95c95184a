package store

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// cleanFirstDelay is the wait before the first cleanup pass. Java: scheduleAtFixedRate(
// cleanFilesPeriodically, 1000 * 60, cleanResourceInterval).
const cleanFirstDelay = 60 * time.Second

// diskCheckInterval is the period of the disk-full check (first after 1 s). Java:
// diskCheckScheduledExecutorService, isSpaceFull every 10 s.
const diskCheckInterval = 10 * time.Second

// maxManualDeleteFileTimes is how many cleanup passes delete expired files regardless of the
// hour after a manual request. Java: CleanCommitLogService#MAX_MANUAL_DELETE_FILE_TIMES.
const maxManualDeleteFileTimes = 20

// CleanFilesPeriodically runs one cleanup pass: expired CommitLog files first, then the
// ConsumeQueue and index files that only point below the CommitLog's new min offset. The
// store runs it every cleanResourceInterval (first after 60 s) unless Options.ManualServices.
// Java: DefaultMessageStore#cleanFilesPeriodically.
func (s *DefaultMessageStore) CleanFilesPeriodically() {
	if tr := s.env.tracer; tr.Enabled() {
		tr.Step("DefaultMessageStore#cleanFilesPeriodically",
			slog.Int64("commitLogMinOffset", int64(s.commitLog.getMinOffset())),
			slog.Int64("commitLogMaxOffset", int64(s.commitLog.getMaxOffset())))
	}
	s.cleanCommitLog.run()
	s.cleanConsumeQueue.run()
}

// ExecuteDeleteFilesManually makes the next 20 cleanup passes delete expired CommitLog files
// whatever the hour and disk usage (mqadmin deleteExpiredCommitLog).
// Java: DefaultMessageStore#executeDeleteFilesManually.
func (s *DefaultMessageStore) ExecuteDeleteFilesManually() {
	s.cleanCommitLog.manualDeleteFileSeveralTimes.Store(maxManualDeleteFileTimes)
}

// IsSpaceFull measures the CommitLog partition: above diskSpaceWarningLevelRatio (90 %) the
// store is marked disk-full and refuses puts (SERVICE_NOT_AVAILABLE) until a later check finds
// the disk below it. The store runs it every 10 s unless Options.ManualServices.
// Java: CleanCommitLogService#isSpaceFull.
func (s *DefaultMessageStore) IsSpaceFull() bool { return s.cleanCommitLog.isSpaceFull() }

// filePacer pauses between two deleted files unless the clean service is stopping.
type filePacer struct{ stop <-chan struct{} }

// pause waits d unless the store is shutting down (the pacing between two deleted files).
func (p filePacer) pause(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.stop:
	}
}

// CleanCommitLogService deletes CommitLog files older than fileReservedTime (by modification
// time), oldest first and never the active one, when one of these holds: the hour is in
// deleteWhen; the CommitLog or ConsumeQueue partition is fuller than diskMaxUsedSpaceRatio;
// a manual deletion was requested. Above diskSpaceCleanForciblyRatio (85 %) it deletes files
// whether expired or not (cleanFileForciblyEnable); above diskSpaceWarningLevelRatio (90 %)
// it also marks the disk full, which refuses puts. Fields other than the atomic are used by
// one pass at a time (the clean service, or a direct call).
// Mirrors DefaultMessageStore.CleanCommitLogService.
type CleanCommitLogService struct {
	env                          *storeEnv
	commitLog                    *CommitLog    // its files are deleted
	flags                        *runningFlags // diskFull
	pacer                        filePacer
	manualDeleteFileSeveralTimes atomic.Int32
	cleanImmediately             bool
}

func newCleanCommitLogService(env *storeEnv, commitLog *CommitLog, flags *runningFlags, pacer filePacer) *CleanCommitLogService {
	return &CleanCommitLogService{env: env, commitLog: commitLog, flags: flags, pacer: pacer}
}

func (c *CleanCommitLogService) run() { c.deleteExpiredFiles() }

// deleteExpiredFiles is one pass. Java: CleanCommitLogService#deleteExpiredFiles.
//
// Java follows it with redeleteHangedFile, which retries a first file whose deletion hung
// on readers; here deletion never hangs (MappedFile.destroy unlinks at once), so it is absent.
func (c *CleanCommitLogService) deleteExpiredFiles() int {
	cfg := c.env.cfg
	timeup := c.isTimeToDelete()
	spacefull := c.isSpaceToDelete()
	manual := c.manualDeleteFileSeveralTimes.Load() > 0
	if !timeup && !spacefull && !manual {
		return 0
	}
	if manual {
		c.manualDeleteFileSeveralTimes.Add(-1)
	}
	cleanAtOnce := cfg.CleanFileForciblyEnable && c.cleanImmediately
	reserved := int64(cfg.FileReservedTime) * 60 * 60 * 1000
	deleted := c.commitLog.mfq.deleteExpiredFileByTime(reserved, c.env.clock.now(), cleanAtOnce,
		func() { c.pacer.pause(cfg.DeleteCommitLogFilesInterval) })
	if tr := c.env.tracer; tr.Enabled() {
		tr.Step("CleanCommitLogService#deleteExpiredFiles", slog.Bool("timeup", timeup),
			slog.Bool("spacefull", spacefull), slog.Bool("manual", manual), slog.Bool("cleanAtOnce", cleanAtOnce),
			slog.Int("fileReservedTimeHours", cfg.FileReservedTime), slog.Int("deleted", deleted),
			slog.Int64("commitLogMinOffset", int64(c.commitLog.getMinOffset())))
	}
	if deleted == 0 && spacefull {
		c.env.log.warn("disk space will be full soon, but delete file failed")
	}
	return deleted
}

// isTimeToDelete: the current hour (store clock, Location) is one of deleteWhen's.
// Java: CleanCommitLogService#isTimeToDelete → UtilAll#isItTimeToDo.
func (c *CleanCommitLogService) isTimeToDelete() bool {
	hours, _ := parseDeleteWhen(c.env.cfg.DeleteWhen) // validated
	now := time.UnixMilli(c.env.clock.now()).In(c.env.opts.Location).Hour()
	for _, h := range hours {
		if h == now {
			return true
		}
	}
	return false
}

// diskMaxUsedSpaceRatio is the setting clamped to [10, 95] percent, as a fraction.
// Java: MessageStoreConfig#getDiskMaxUsedSpaceRatio.
func (c *CleanCommitLogService) diskMaxUsedSpaceRatio() float64 {
	return float64(min(max(c.env.cfg.DiskMaxUsedSpaceRatio, 10), 95)) / 100
}

// isSpaceToDelete checks the CommitLog partition, then the ConsumeQueue partition: above the
// warning level the disk is marked full, above the forcible level (or the warning level) files
// are deleted at once, below both the disk-full mark is cleared; either partition above
// diskMaxUsedSpaceRatio (or unmeasurable) means "delete now".
// Java: CleanCommitLogService#isSpaceToDelete.
func (c *CleanCommitLogService) isSpaceToDelete() bool {
	cfg, opts, log := c.env.cfg, c.env.opts, c.env.log
	ratio := c.diskMaxUsedSpaceRatio()
	c.cleanImmediately = false
	for _, path := range []string{cfg.CommitLogDir(), cfg.ConsumeQueueDir()} {
		used := opts.DiskUsage(path)
		switch {
		case used > opts.DiskSpaceWarningLevelRatio:
			if !c.flags.diskFull.Swap(true) {
				log.errorMsg("disk maybe full soon, so mark disk full", "path", path, "used", used)
			}
			c.cleanImmediately = true
		case used > opts.DiskSpaceCleanForciblyRatio:
			c.cleanImmediately = true
		default:
			if c.flags.diskFull.Swap(false) {
				log.info("disk space OK, so mark disk ok", "path", path, "used", used)
			}
		}
		if used < 0 || used > ratio {
			return true
		}
	}
	return false
}

// isSpaceFull is the 10-second disk check of the CommitLog partition alone.
// Java: CleanCommitLogService#isSpaceFull.
func (c *CleanCommitLogService) isSpaceFull() bool {
	used := c.env.opts.DiskUsage(c.env.cfg.CommitLogDir())
	if used > c.env.opts.DiskSpaceWarningLevelRatio {
		if !c.flags.diskFull.Swap(true) {
			c.env.log.errorMsg("commitlog disk maybe full soon, so mark disk full", "used", used)
		}
		return true
	}
	if c.flags.diskFull.Swap(false) {
		c.env.log.info("commitlog disk space OK, so mark disk ok", "used", used)
	}
	return false
}

// CleanConsumeQueueService follows the CommitLog's min offset: when it moved, each
// ConsumeQueue deletes its files whose last unit points below it (never its last file) and
// corrects its min offset, and the index files ending below it are deleted.
// Mirrors DefaultMessageStore.CleanConsumeQueueService.
type CleanConsumeQueueService struct {
	env                   *storeEnv
	commitLog             *CommitLog // whose min offset it follows
	queues                *consumeQueueTable
	index                 *IndexService
	pacer                 filePacer
	lastPhysicalMinOffset CommitLogOffset
}

func newCleanConsumeQueueService(env *storeEnv, commitLog *CommitLog, queues *consumeQueueTable, index *IndexService,
	pacer filePacer) *CleanConsumeQueueService {
	return &CleanConsumeQueueService{env: env, commitLog: commitLog, queues: queues, index: index, pacer: pacer}
}

func (c *CleanConsumeQueueService) run() { c.deleteExpiredFiles() }

// deleteExpiredFiles is one pass. Java: CleanConsumeQueueService#deleteExpiredFiles.
func (c *CleanConsumeQueueService) deleteExpiredFiles() {
	minOffset := c.commitLog.getMinOffset()
	if minOffset <= c.lastPhysicalMinOffset {
		return
	}
	c.lastPhysicalMinOffset = minOffset
	queues, cqFiles := 0, 0
	c.queues.forEach(func(cq *ConsumeQueue) {
		n := cq.deleteExpiredFile(minOffset)
		if n > 0 {
			queues++
			cqFiles += n
			c.pacer.pause(c.env.cfg.DeleteConsumeQueueFilesInterval)
		}
	})
	indexFiles := c.index.deleteExpiredFile(minOffset)
	if tr := c.env.tracer; tr.Enabled() {
		tr.Step("CleanConsumeQueueService#deleteExpiredFiles", slog.Int64("commitLogMinOffset", int64(minOffset)),
			slog.Int("consumeQueuesTrimmed", queues), slog.Int("consumeQueueFilesDeleted", cqFiles),
			slog.Int("indexFilesDeleted", indexFiles))
	}
}

// deleteExpiredFile deletes the queue's files that only point below the CommitLog offset
// offset (bytes) and moves the min offset to the first unit at or above it.
// Java: ConsumeQueue#deleteExpiredFile.
func (cq *ConsumeQueue) deleteExpiredFile(offset CommitLogOffset) int {
	n := cq.mfq.deleteExpiredFileByOffset(int64(offset), ConsumeQueueUnitSize)
	cq.correctMinOffset(offset)
	return n
}
