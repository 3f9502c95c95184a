package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
)

// Flush disk types (MessageStoreConfig.FlushDiskType). Java: org.apache.rocketmq.store.config.FlushDiskType.
const (
	AsyncFlush = "ASYNC_FLUSH"
	SyncFlush  = "SYNC_FLUSH"
)

// Broker roles (MessageStoreConfig.BrokerRole). Java: org.apache.rocketmq.store.config.BrokerRole.
const (
	AsyncMaster = "ASYNC_MASTER"
	SyncMaster  = "SYNC_MASTER"
	Slave       = "SLAVE"
)

// MessageStoreConfig holds the store's settings. Each field's prop tag is its RocketMQ
// properties key; a time.Duration field is written in milliseconds in properties files (the
// unit of the Java field). It holds only RocketMQ's keys: what tests and chapters choose
// besides (clock, manual services, event listeners) is in Options.
// Mirrors org.apache.rocketmq.store.config.MessageStoreConfig (4.9.x).
type MessageStoreConfig struct {
	// StorePathRootDir is the store root (default $HOME/store).
	StorePathRootDir string `prop:"storePathRootDir"`
	// StorePathCommitLog is the CommitLog directory; empty means <root>/commitlog.
	StorePathCommitLog string `prop:"storePathCommitLog"`
	// MappedFileSizeCommitLog is the size of one CommitLog file in bytes (1 GiB).
	MappedFileSizeCommitLog int `prop:"mappedFileSizeCommitLog"`
	// MappedFileSizeConsumeQueue is the size of one ConsumeQueue file in bytes (300000 × 20);
	// rounded up to a multiple of 20 (see ConsumeQueueFileSize).
	MappedFileSizeConsumeQueue int `prop:"mappedFileSizeConsumeQueue"`
	// FlushIntervalCommitLog is the async CommitLog flush period (500 ms).
	FlushIntervalCommitLog time.Duration `prop:"flushIntervalCommitLog"`
	// FlushCommitLogTimed: true = sleep the interval; false = wait, woken by each put.
	FlushCommitLogTimed bool `prop:"flushCommitLogTimed"`
	// FlushCommitLogLeastPages is the number of new 4 KiB pages needed for an async flush (4).
	FlushCommitLogLeastPages int `prop:"flushCommitLogLeastPages"`
	// FlushCommitLogThoroughInterval: at least this often flush whatever is new (10 s).
	FlushCommitLogThoroughInterval time.Duration `prop:"flushCommitLogThoroughInterval"`
	// FlushIntervalConsumeQueue is the ConsumeQueue flush period (1 s).
	FlushIntervalConsumeQueue time.Duration `prop:"flushIntervalConsumeQueue"`
	// FlushConsumeQueueLeastPages is the number of new pages needed for a CQ flush (2).
	FlushConsumeQueueLeastPages int `prop:"flushConsumeQueueLeastPages"`
	// FlushConsumeQueueThoroughInterval: at least this often flush all CQs and the checkpoint (60 s).
	FlushConsumeQueueThoroughInterval time.Duration `prop:"flushConsumeQueueThoroughInterval"`
	// FlushDiskType is ASYNC_FLUSH (FlushRealTimeService flushes behind the puts) or
	// SYNC_FLUSH (GroupCommitService: a put waits until its record is on disk).
	FlushDiskType string `prop:"flushDiskType"`
	// SyncFlushTimeout bounds a SYNC_FLUSH wait (5 s); a put still not flushed then is answered
	// FLUSH_DISK_TIMEOUT (the message is stored, its durability unknown).
	SyncFlushTimeout time.Duration `prop:"syncFlushTimeout"`
	// TransientStorePoolEnable makes new CommitLog files take a write buffer from the
	// TransientStorePool: puts append to the buffer, CommitRealTimeService commits it to the
	// file, FlushRealTimeService flushes. Only with ASYNC_FLUSH on a master (false).
	TransientStorePoolEnable bool `prop:"transientStorePoolEnable"`
	// TransientStorePoolSize is the number of buffers (5), each mappedFileSizeCommitLog bytes.
	TransientStorePoolSize int `prop:"transientStorePoolSize"`
	// CommitIntervalCommitLog is the CommitRealTimeService period (200 ms).
	CommitIntervalCommitLog time.Duration `prop:"commitIntervalCommitLog"`
	// CommitCommitLogLeastPages is the number of new 4 KiB pages needed for a commit (4).
	CommitCommitLogLeastPages int `prop:"commitCommitLogLeastPages"`
	// CommitCommitLogThoroughInterval: at least this often commit whatever is new (200 ms).
	CommitCommitLogThoroughInterval time.Duration `prop:"commitCommitLogThoroughInterval"`
	// MaxMessageSize is the body limit in bytes (4 MiB); a whole record may be 64 KiB larger.
	MaxMessageSize int `prop:"maxMessageSize"`
	// CheckCRCOnRecover checks body CRCs during CommitLog recovery (true).
	CheckCRCOnRecover bool `prop:"checkCRCOnRecover"`
	// BrokerRole is ASYNC_MASTER, SYNC_MASTER or SLAVE.
	BrokerRole string `prop:"brokerRole"`
	// WarmMapedFileEnable touches every page of a new CommitLog file before use (false).
	WarmMappedFileEnable bool `prop:"warmMapedFileEnable"`
	// OsPageCacheBusyTimeOutMills: a put lock held longer than this (1000 ms) makes new puts
	// OS_PAGECACHE_BUSY.
	OSPageCacheBusyTimeout time.Duration `prop:"osPageCacheBusyTimeOutMills"`
	// MessageDelayLevel lists the delay levels (units s, m, h, d); see ParseDelayLevel.
	MessageDelayLevel string `prop:"messageDelayLevel"`
	// FlushDelayOffsetInterval is how often the schedule service writes
	// config/delayOffset.json (10 s).
	FlushDelayOffsetInterval time.Duration `prop:"flushDelayOffsetInterval"`

	// Read path limits (store-formats.md §13).
	MaxTransferBytesOnMessageInMemory int  `prop:"maxTransferBytesOnMessageInMemory"` // bytes (256 KiB)
	MaxTransferCountOnMessageInMemory int  `prop:"maxTransferCountOnMessageInMemory"` // messages (32)
	MaxTransferBytesOnMessageInDisk   int  `prop:"maxTransferBytesOnMessageInDisk"`   // bytes (64 KiB)
	MaxTransferCountOnMessageInDisk   int  `prop:"maxTransferCountOnMessageInDisk"`   // messages (8)
	AccessMessageInMemoryMaxRatio     int  `prop:"accessMessageInMemoryMaxRatio"`     // percent of RAM (40)
	OffsetCheckInSlave                bool `prop:"offsetCheckInSlave"`                // false
	DefaultQueryMaxNum                int  `prop:"defaultQueryMaxNum"`                // 32

	// Cleanup (store-formats.md §10); read by the clean services (clean_commit_log_service.go, clean_consume_queue_service.go).
	FileReservedTime        int           `prop:"fileReservedTime"`        // hours (72)
	DeleteWhen              string        `prop:"deleteWhen"`              // hours of day, ';'-separated, "04"
	DiskMaxUsedSpaceRatio   int           `prop:"diskMaxUsedSpaceRatio"`   // percent (75; used clamped to [10, 95])
	CleanResourceInterval   time.Duration `prop:"cleanResourceInterval"`   // 10 s
	CleanFileForciblyEnable bool          `prop:"cleanFileForciblyEnable"` // true
	// DeleteCommitLogFilesInterval and DeleteConsumeQueueFilesInterval are the pauses between
	// two deleted files (100 ms each), so a cleanup pass does not flood the disk with unlinks.
	DeleteCommitLogFilesInterval    time.Duration `prop:"deleteCommitLogFilesInterval"`
	DeleteConsumeQueueFilesInterval time.Duration `prop:"deleteConsumeQueueFilesInterval"`
	// DestroyMapedFileIntervalForcibly and RedeleteHangedFileInterval (120 s each) are read
	// but not used: Java force-unmaps a file still in use after the first and retries "hanged"
	// deletions after the second; here a deleted file is unlinked at once and unmapped when its
	// last reader releases it, so no deletion hangs (see MappedFile.destroy).
	DestroyMappedFileIntervalForcibly time.Duration `prop:"destroyMapedFileIntervalForcibly"`
	RedeleteHangedFileInterval        time.Duration `prop:"redeleteHangedFileInterval"`

	// Index (store-formats.md §4); read by the index service.
	MessageIndexEnable bool `prop:"messageIndexEnable"` // true
	MessageIndexSafe   bool `prop:"messageIndexSafe"`   // false
	MaxHashSlotNum     int  `prop:"maxHashSlotNum"`     // 5,000,000
	MaxIndexNum        int  `prop:"maxIndexNum"`        // 20,000,000
	MaxMsgsNumBatch    int  `prop:"maxMsgsNumBatch"`    // cap of one index query (64)

	// HA (read by store/ha).
	HaListenPort            int           `prop:"haListenPort"`            // 10912
	HaSendHeartbeatInterval time.Duration `prop:"haSendHeartbeatInterval"` // 5 s
	HaHousekeepingInterval  time.Duration `prop:"haHousekeepingInterval"`  // 20 s
	HaTransferBatchSize     int           `prop:"haTransferBatchSize"`     // bytes (32 KiB)
	HaMasterAddress         string        `prop:"haMasterAddress"`         // "host:port", empty
	HaSlaveFallbehindMax    int64         `prop:"haSlaveFallbehindMax"`    // bytes (256 MiB)
}

// DefaultMessageStoreConfig returns RocketMQ 4.9's defaults with StorePathRootDir = $HOME/store.
func DefaultMessageStoreConfig() MessageStoreConfig {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return MessageStoreConfig{
		StorePathRootDir:                  filepath.Join(home, "store"),
		MappedFileSizeCommitLog:           1024 * 1024 * 1024,
		MappedFileSizeConsumeQueue:        300000 * ConsumeQueueUnitSize,
		FlushIntervalCommitLog:            500 * time.Millisecond,
		FlushCommitLogLeastPages:          4,
		FlushCommitLogThoroughInterval:    10 * time.Second,
		FlushIntervalConsumeQueue:         time.Second,
		FlushConsumeQueueLeastPages:       2,
		FlushConsumeQueueThoroughInterval: 60 * time.Second,
		FlushDiskType:                     AsyncFlush,
		SyncFlushTimeout:                  5 * time.Second,
		TransientStorePoolSize:            5,
		CommitIntervalCommitLog:           200 * time.Millisecond,
		CommitCommitLogLeastPages:         4,
		CommitCommitLogThoroughInterval:   200 * time.Millisecond,
		MaxMessageSize:                    4 * 1024 * 1024,
		CheckCRCOnRecover:                 true,
		BrokerRole:                        AsyncMaster,
		OSPageCacheBusyTimeout:            1000 * time.Millisecond,
		MessageDelayLevel:                 "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
		FlushDelayOffsetInterval:          10 * time.Second,
		MaxTransferBytesOnMessageInMemory: 256 * 1024,
		MaxTransferCountOnMessageInMemory: 32,
		MaxTransferBytesOnMessageInDisk:   64 * 1024,
		MaxTransferCountOnMessageInDisk:   8,
		AccessMessageInMemoryMaxRatio:     40,
		DefaultQueryMaxNum:                32,
		FileReservedTime:                  72,
		DeleteWhen:                        "04",
		DiskMaxUsedSpaceRatio:             75,
		CleanResourceInterval:             10 * time.Second,
		CleanFileForciblyEnable:           true,
		DeleteCommitLogFilesInterval:      100 * time.Millisecond,
		DeleteConsumeQueueFilesInterval:   100 * time.Millisecond,
		DestroyMappedFileIntervalForcibly: 120 * time.Second,
		RedeleteHangedFileInterval:        120 * time.Second,
		MessageIndexEnable:                true,
		MaxHashSlotNum:                    5000000,
		MaxIndexNum:                       5000000 * 4,
		MaxMsgsNumBatch:                   64,
		HaListenPort:                      10912,
		HaSendHeartbeatInterval:           5 * time.Second,
		HaHousekeepingInterval:            20 * time.Second,
		HaTransferBatchSize:               32 * 1024,
		HaSlaveFallbehindMax:              256 * 1024 * 1024,
	}
}

// ErrInvalidConfig wraps every Validate failure.
var ErrInvalidConfig = errors.New("store: invalid config")

// Validate rejects impossible combinations.
func (c *MessageStoreConfig) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, a...)...)
	}
	switch {
	case c.StorePathRootDir == "":
		return bad("storePathRootDir is empty")
	case c.MappedFileSizeCommitLog < 4096:
		return bad("mappedFileSizeCommitLog=%d: must be at least 4096 bytes", c.MappedFileSizeCommitLog)
	case c.MappedFileSizeCommitLog > math.MaxInt32 || c.MappedFileSizeConsumeQueue > math.MaxInt32-ConsumeQueueUnitSize:
		return bad("mapped file sizes must stay below 2 GiB (positions are int32)")
	case c.MappedFileSizeConsumeQueue < ConsumeQueueUnitSize:
		return bad("mappedFileSizeConsumeQueue=%d: must hold at least one 20-byte unit", c.MappedFileSizeConsumeQueue)
	case c.FlushDiskType != AsyncFlush && c.FlushDiskType != SyncFlush:
		return bad("flushDiskType=%q: want ASYNC_FLUSH or SYNC_FLUSH", c.FlushDiskType)
	case c.BrokerRole != AsyncMaster && c.BrokerRole != SyncMaster && c.BrokerRole != Slave:
		return bad("brokerRole=%q: want ASYNC_MASTER, SYNC_MASTER or SLAVE", c.BrokerRole)
	case c.MaxMessageSize <= 0:
		return bad("maxMessageSize=%d: must be positive", c.MaxMessageSize)
	case c.FlushIntervalCommitLog <= 0 || c.FlushIntervalConsumeQueue <= 0:
		return bad("flush intervals must be positive")
	case c.SyncFlushTimeout <= 0:
		return bad("syncFlushTimeout must be positive")
	case c.TransientStorePoolEnable && (c.TransientStorePoolSize <= 0 || c.CommitIntervalCommitLog <= 0):
		return bad("transientStorePoolEnable needs transientStorePoolSize and commitIntervalCommitLog above 0")
	case c.MaxTransferCountOnMessageInMemory <= 0 || c.MaxTransferCountOnMessageInDisk <= 0:
		return bad("maxTransferCount settings must be positive")
	case c.MaxHashSlotNum <= 0 || c.MaxIndexNum <= 1:
		return bad("maxHashSlotNum=%d, maxIndexNum=%d: an index file needs at least one slot and two entries (entry 0 is never used)",
			c.MaxHashSlotNum, c.MaxIndexNum)
	case int64(IndexHeaderSize)+int64(c.MaxHashSlotNum)*IndexHashSlotSize+int64(c.MaxIndexNum)*IndexEntrySize > math.MaxInt32:
		return bad("maxHashSlotNum=%d, maxIndexNum=%d: an index file must stay below 2 GiB", c.MaxHashSlotNum, c.MaxIndexNum)
	case c.FileReservedTime < 0:
		return bad("fileReservedTime=%d: hours, must not be negative (a negative time expires every CommitLog file at once)", c.FileReservedTime)
	case c.CleanResourceInterval <= 0:
		return bad("cleanResourceInterval must be positive")
	case c.HaTransferBatchSize <= 0 || c.HaTransferBatchSize > haMaxTransferBatchSize:
		return bad("haTransferBatchSize=%d: must be 1 to %d bytes (a slave reads frames of at most 4 MiB)",
			c.HaTransferBatchSize, haMaxTransferBatchSize)
	case c.HaSendHeartbeatInterval <= 0 || c.HaHousekeepingInterval <= c.HaSendHeartbeatInterval:
		return bad("haSendHeartbeatInterval=%s, haHousekeepingInterval=%s: need 0 < heartbeat < housekeeping "+
			"(a connection silent for the housekeeping interval is closed)", c.HaSendHeartbeatInterval, c.HaHousekeepingInterval)
	case c.HaListenPort < 0 || c.HaListenPort > 65535:
		return bad("haListenPort=%d: not a TCP port", c.HaListenPort)
	}
	if _, err := parseDeleteWhen(c.DeleteWhen); err != nil {
		return bad("deleteWhen=%q: %v", c.DeleteWhen, err)
	}
	if _, err := ParseDelayLevel(c.MessageDelayLevel); err != nil {
		return bad("messageDelayLevel: %v", err)
	}
	return nil
}

// haMaxTransferBatchSize is the largest haTransferBatchSize (bytes): a slave's HA read buffer,
// 4 MiB (Java: HAClient#READ_MAX_BUFFER_SIZE), less the 12-byte transfer header; a slave
// refuses a frame announcing a bigger body (mq/store/ha).
const haMaxTransferBatchSize = 4*1024*1024 - 12

// IsTransientStorePoolEnable: the pool is used only with ASYNC_FLUSH on a master (a SYNC_FLUSH
// put must reach the file at once; a slave appends what its master sent).
// Java: MessageStoreConfig#isTransientStorePoolEnable.
func (c *MessageStoreConfig) IsTransientStorePoolEnable() bool {
	return c.TransientStorePoolEnable && c.FlushDiskType == AsyncFlush && c.BrokerRole != Slave
}

// CommitLogDir is StorePathCommitLog or <root>/commitlog.
func (c *MessageStoreConfig) CommitLogDir() string {
	if c.StorePathCommitLog != "" {
		return c.StorePathCommitLog
	}
	return filepath.Join(c.StorePathRootDir, "commitlog")
}

// IndexDir is <root>/index. Java: StorePathConfigHelper#getStorePathIndex.
func (c *MessageStoreConfig) IndexDir() string {
	return filepath.Join(c.StorePathRootDir, "index")
}

// ConsumeQueueDir is <root>/consumequeue. Java: StorePathConfigHelper#getStorePathConsumeQueue.
func (c *MessageStoreConfig) ConsumeQueueDir() string {
	return filepath.Join(c.StorePathRootDir, "consumequeue")
}

// ConsumeQueueFileSize is MappedFileSizeConsumeQueue rounded up to a multiple of 20.
// Java: MessageStoreConfig#getMappedFileSizeConsumeQueue.
func (c *MessageStoreConfig) ConsumeQueueFileSize() int {
	n := (c.MappedFileSizeConsumeQueue + ConsumeQueueUnitSize - 1) / ConsumeQueueUnitSize
	return n * ConsumeQueueUnitSize
}

// String prints the config in properties syntax (key=value lines in declaration order,
// durations in ms). Java: MixAll#printObjectProperties.
func (c MessageStoreConfig) String() string {
	return conf.Format(&c)
}

// ParseDelayLevel parses messageDelayLevel ("1s 5s 1m 2h 1d": space-separated, each a
// non-negative integer and a unit s = 1000, m = 60 000, h = 3 600 000, d = 86 400 000 ms) into
// delays in ms, index 0 = level 1. Java: ScheduleMessageService#parseDelayLevel.
func ParseDelayLevel(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Fields(s) {
		if len(f) < 2 {
			return nil, fmt.Errorf("bad delay level %q", f)
		}
		var unit int64
		switch f[len(f)-1] {
		case 's':
			unit = 1000
		case 'm':
			unit = 60 * 1000
		case 'h':
			unit = 60 * 60 * 1000
		case 'd':
			unit = 24 * 60 * 60 * 1000
		default:
			return nil, fmt.Errorf("bad unit in delay level %q (want s, m, h or d)", f)
		}
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad number in delay level %q", f)
		}
		out = append(out, n*unit)
	}
	return out, nil
}

// parseDeleteWhen parses deleteWhen ("04", "04;16") into hours of the day. Java's
// UtilAll#isItTimeToDo parses each entry with Integer.parseInt when it runs (a bad entry then
// stops every cleanup pass); we refuse it at start instead.
func parseDeleteWhen(s string) ([]int, error) {
	var hours []int
	for _, w := range strings.Split(s, ";") {
		h, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("%q is not an hour", w)
		}
		hours = append(hours, h)
	}
	return hours, nil
}
