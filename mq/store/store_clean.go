package store

import (
	"log/slog"
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

// CommitLogDiskRatio and ConsumeQueueDiskRatio are the used fractions (0..1) of the
// partitions holding the CommitLog and the ConsumeQueues, as the disk checks read them (-1:
// cannot be measured). Java: DefaultMessageStore#getRuntimeInfo (commitLogDiskRatio,
// consumeQueueDiskRatio).
func (s *DefaultMessageStore) CommitLogDiskRatio() float64 {
	return s.opts.DiskUsage(s.cfg.CommitLogDir())
}

func (s *DefaultMessageStore) ConsumeQueueDiskRatio() float64 {
	return s.opts.DiskUsage(s.cfg.ConsumeQueueDir())
}
