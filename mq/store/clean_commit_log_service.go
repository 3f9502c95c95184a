package store

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// filePacer pauses between two deleted files unless the clean service is stopping. Under
// Options.ManualServices (skip) it does not pause: a chapter or test drives the clean by hand
// on a manual clock, and a wall-clock sleep would only stall it.
type filePacer struct {
	stop <-chan struct{}
	skip bool
}

// pause waits d unless the store is shutting down or the services are manual (the pacing
// between two deleted files, deleteCommitLogFilesInterval / deleteConsumeQueueFilesInterval).
// Java: Thread.sleep in MappedFileQueue#deleteExpiredFileByTime and ConsumeQueue's clean.
func (p filePacer) pause(d time.Duration) {
	if d <= 0 || p.skip {
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
