package store

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// Options are the store's settings that are not RocketMQ's: what tests, chapters and the
// embedded cluster choose next to MessageStoreConfig (which holds only RocketMQ's keys). The
// zero value is production behaviour: wall clock, background services, local time zone,
// statfs, Java's disk ratios, no event listeners.
type Options struct {
	// Clock is the store clock (store timestamps, flush and clean intervals, index file names,
	// SYNC_FLUSH deadlines); nil is clock.System. Tests and chapters give a clock.Manual so
	// record bytes are reproducible.
	Clock clock.Clock
	// ManualServices makes Start run no background goroutines (reput, flush, commit, clean,
	// disk check): the caller drives DoReput, the services' RunOnce, FlushCommitLog,
	// FlushConsumeQueue, CleanFilesPeriodically and IsSpaceFull step by step, so a chapter's
	// trace is deterministic.
	ManualServices bool
	// Location is the time zone of the hours in deleteWhen and of index file names
	// (yyyyMMddHHmmssSSS); nil is the local zone, as in Java.
	Location *time.Location
	// DiskUsage returns the used fraction (0..1) of the partition holding path, or -1 when
	// path does not exist; nil measures it with statfs. Tests inject it to play a full disk.
	// Java: UtilAll#getDiskPartitionSpaceUsedPercent.
	DiskUsage func(path string) float64
	// DiskSpaceWarningLevelRatio (0 means 0.90): above it the disk is marked full and puts are
	// refused (SERVICE_NOT_AVAILABLE). DiskSpaceCleanForciblyRatio (0 means 0.85): above it,
	// expired or not, CommitLog files are deleted. Java reads both from system properties
	// (rocketmq.broker.diskSpaceWarningLevelRatio, rocketmq.broker.diskSpaceCleanForciblyRatio).
	DiskSpaceWarningLevelRatio  float64
	DiskSpaceCleanForciblyRatio float64
	// TotalPhysicalMemory is the memory size in bytes the in-memory window of reads is a
	// share of (accessMessageInMemoryMaxRatio percent of it): a read further behind the
	// CommitLog's end than that counts as from disk, and its answer suggests pulling from a
	// slave (GetMessageResult.SuggestPullingFromSlave). 0 is the machine's RAM (Java:
	// StoreUtil.TOTAL_PHYSICAL_MEMORY_SIZE, not a config key); a test sets a few KiB so "the
	// consumer is slow" happens with small data.
	TotalPhysicalMemory int64
	// Events are the store's event listeners (each optional).
	Events EventListener
}

// Java's defaults of the two disk ratios (system properties in Java).
const (
	defaultDiskSpaceWarningLevelRatio  = 0.90
	defaultDiskSpaceCleanForciblyRatio = 0.85
)

// withDefaults fills the zero values that stand for a default.
func (o Options) withDefaults() Options {
	o.Clock = clock.Or(o.Clock)
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.DiskUsage == nil {
		o.DiskUsage = diskPartitionSpaceUsedPercent
	}
	if o.DiskSpaceWarningLevelRatio == 0 {
		o.DiskSpaceWarningLevelRatio = defaultDiskSpaceWarningLevelRatio
	}
	if o.DiskSpaceCleanForciblyRatio == 0 {
		o.DiskSpaceCleanForciblyRatio = defaultDiskSpaceCleanForciblyRatio
	}
	return o
}

// EventListener is the store's set of event hooks for tests and chapters (pebble's
// EventListener is the model): each field is optional, and none is a RocketMQ setting. They
// are called synchronously on the store goroutine that has the event, so a hook that blocks
// plays a slow page fault or a slow disk.
type EventListener struct {
	// PutInLock is called by every put inside the CommitLog put lock, after the lock time was
	// taken. Blocking in it plays a put stuck in a slow page fault: the page cache then looks
	// busy (OS_PAGECACHE_BUSY, broker fast failure).
	PutInLock func()
	// BeforeFlush is called before every flush system call (fdatasync or msync) of a store
	// file, with the file's path relative to the store root ("commitlog/0000…",
	// "consumequeue/T/0/0000…", "index/…", "checkpoint"). Blocking in it plays a slow disk.
	BeforeFlush func(file string)
	// Flushed is called after every successful flush system call with the file (as in
	// BeforeFlush) and the position (bytes) up to which the file is now known to be on disk
	// (the whole file for an index file, 24 for the checkpoint). Tests use it to play a power
	// cut: every byte past the last reported position may be lost.
	Flushed func(file string, position int)
}

// putInLock, beforeFlush and flushed call the hooks; a nil listener has none.
func (l *EventListener) putInLock() {
	if l != nil && l.PutInLock != nil {
		l.PutInLock()
	}
}

func (l *EventListener) beforeFlush(file string) {
	if l != nil && l.BeforeFlush != nil {
		l.BeforeFlush(file)
	}
}

func (l *EventListener) flushed(file string, position int) {
	if l != nil && l.Flushed != nil {
		l.Flushed(file, position)
	}
}
