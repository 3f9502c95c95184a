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
// store runs it every cleanResourceInterval (first after 60 s) unless ManualServices.
// Java: DefaultMessageStore#cleanFilesPeriodically.
func (s *DefaultMessageStore) CleanFilesPeriodically() {
	if s.tracer.Enabled() {
		s.tracer.Step("DefaultMessageStore#cleanFilesPeriodically",
			slog.Int64("commitLogMinOffset", s.commitLog.getMinOffset()),
			slog.Int64("commitLogMaxOffset", s.commitLog.getMaxOffset()))
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
// the disk below it. The store runs it every 10 s unless ManualServices.
// Java: CleanCommitLogService#isSpaceFull.
func (s *DefaultMessageStore) IsSpaceFull() bool { return s.cleanCommitLog.isSpaceFull() }

// diskUsage is the used fraction of path's partition (the injected DiskUsage, else statfs).
func (s *DefaultMessageStore) diskUsage(path string) float64 {
	if s.cfg.DiskUsage != nil {
		return s.cfg.DiskUsage(path)
	}
	return diskPartitionSpaceUsedPercent(path)
}

// location is the time zone of deleteWhen hours and index file names.
func (s *DefaultMessageStore) location() *time.Location {
	if s.cfg.Location != nil {
		return s.cfg.Location
	}
	return time.Local
}

// pause waits d unless the store is shutting down (the pacing between two deleted files).
func (s *DefaultMessageStore) pause(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.cleanService.StopChan():
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
	s                            *DefaultMessageStore
	manualDeleteFileSeveralTimes atomic.Int32
	cleanImmediately             bool
}

func (c *CleanCommitLogService) run() { c.deleteExpiredFiles() }

// deleteExpiredFiles is one pass. Java: CleanCommitLogService#deleteExpiredFiles.
//
// Java follows it with redeleteHangedFile, which retries a first file whose deletion hung
// on readers; here deletion never hangs (MappedFile.destroy unlinks at once), so it is absent.
func (c *CleanCommitLogService) deleteExpiredFiles() int {
	s := c.s
	timeup := c.isTimeToDelete()
	spacefull := c.isSpaceToDelete()
	manual := c.manualDeleteFileSeveralTimes.Load() > 0
	if !timeup && !spacefull && !manual {
		return 0
	}
	if manual {
		c.manualDeleteFileSeveralTimes.Add(-1)
	}
	cleanAtOnce := s.cfg.CleanFileForciblyEnable && c.cleanImmediately
	reserved := int64(s.cfg.FileReservedTime) * 60 * 60 * 1000
	deleted := s.commitLog.mfq.deleteExpiredFileByTime(reserved, s.now(), cleanAtOnce,
		func() { s.pause(s.cfg.DeleteCommitLogFilesInterval) })
	if s.tracer.Enabled() {
		s.tracer.Step("CleanCommitLogService#deleteExpiredFiles", slog.Bool("timeup", timeup),
			slog.Bool("spacefull", spacefull), slog.Bool("manual", manual), slog.Bool("cleanAtOnce", cleanAtOnce),
			slog.Int("fileReservedTimeHours", s.cfg.FileReservedTime), slog.Int("deleted", deleted),
			slog.Int64("commitLogMinOffset", s.commitLog.getMinOffset()))
	}
	if deleted == 0 && spacefull {
		s.logWarn("disk space will be full soon, but delete file failed")
	}
	return deleted
}

// isTimeToDelete: the current hour (store clock, Location) is one of deleteWhen's.
// Java: CleanCommitLogService#isTimeToDelete → UtilAll#isItTimeToDo.
func (c *CleanCommitLogService) isTimeToDelete() bool {
	hours, _ := parseDeleteWhen(c.s.cfg.DeleteWhen) // validated
	now := time.UnixMilli(c.s.now()).In(c.s.location()).Hour()
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
	return float64(min(max(c.s.cfg.DiskMaxUsedSpaceRatio, 10), 95)) / 100
}

// isSpaceToDelete checks the CommitLog partition, then the ConsumeQueue partition: above the
// warning level the disk is marked full, above the forcible level (or the warning level) files
// are deleted at once, below both the disk-full mark is cleared; either partition above
// diskMaxUsedSpaceRatio (or unmeasurable) means "delete now".
// Java: CleanCommitLogService#isSpaceToDelete.
func (c *CleanCommitLogService) isSpaceToDelete() bool {
	s := c.s
	ratio := c.diskMaxUsedSpaceRatio()
	c.cleanImmediately = false
	for _, path := range []string{s.cfg.CommitLogDir(), s.cfg.ConsumeQueueDir()} {
		used := s.diskUsage(path)
		switch {
		case used > s.cfg.DiskSpaceWarningLevelRatio:
			if !s.diskFull.Swap(true) {
				s.logErrorMsg("disk maybe full soon, so mark disk full", "path", path, "used", used)
			}
			c.cleanImmediately = true
		case used > s.cfg.DiskSpaceCleanForciblyRatio:
			c.cleanImmediately = true
		default:
			if s.diskFull.Swap(false) {
				s.logInfo("disk space OK, so mark disk ok", "path", path, "used", used)
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
	s := c.s
	used := s.diskUsage(s.cfg.CommitLogDir())
	if used > s.cfg.DiskSpaceWarningLevelRatio {
		if !s.diskFull.Swap(true) {
			s.logErrorMsg("commitlog disk maybe full soon, so mark disk full", "used", used)
		}
		return true
	}
	if s.diskFull.Swap(false) {
		s.logInfo("commitlog disk space OK, so mark disk ok", "used", used)
	}
	return false
}

// CleanConsumeQueueService follows the CommitLog's min offset: when it moved, each
// ConsumeQueue deletes its files whose last unit points below it (never its last file) and
// corrects its min offset, and the index files ending below it are deleted.
// Mirrors DefaultMessageStore.CleanConsumeQueueService.
type CleanConsumeQueueService struct {
	s                     *DefaultMessageStore
	lastPhysicalMinOffset int64
}

func (c *CleanConsumeQueueService) run() { c.deleteExpiredFiles() }

// deleteExpiredFiles is one pass. Java: CleanConsumeQueueService#deleteExpiredFiles.
func (c *CleanConsumeQueueService) deleteExpiredFiles() {
	s := c.s
	minOffset := s.commitLog.getMinOffset()
	if minOffset <= c.lastPhysicalMinOffset {
		return
	}
	c.lastPhysicalMinOffset = minOffset
	queues, cqFiles := 0, 0
	s.forEachConsumeQueue(func(cq *ConsumeQueue) {
		n := cq.deleteExpiredFile(minOffset)
		if n > 0 {
			queues++
			cqFiles += n
			s.pause(s.cfg.DeleteConsumeQueueFilesInterval)
		}
	})
	indexFiles := s.indexService.deleteExpiredFile(minOffset)
	if s.tracer.Enabled() {
		s.tracer.Step("CleanConsumeQueueService#deleteExpiredFiles", slog.Int64("commitLogMinOffset", minOffset),
			slog.Int("consumeQueuesTrimmed", queues), slog.Int("consumeQueueFilesDeleted", cqFiles),
			slog.Int("indexFilesDeleted", indexFiles))
	}
}

// deleteExpiredFile deletes the queue's files that only point below the CommitLog offset
// offset (bytes) and moves the min offset to the first unit at or above it.
// Java: ConsumeQueue#deleteExpiredFile.
func (cq *ConsumeQueue) deleteExpiredFile(offset int64) int {
	n := cq.mfq.deleteExpiredFileByOffset(offset, ConsumeQueueUnitSize)
	cq.correctMinOffset(offset)
	return n
}
