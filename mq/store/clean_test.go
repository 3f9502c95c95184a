package store

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// cleanT is a store with a hand-driven clock, 4 KiB CommitLog files, 5-unit ConsumeQueue
// files, tiny index files, UTC hours and an injected disk usage.
type cleanT struct {
	s     *DefaultMessageStore
	dir   string
	clk   clock.Manual
	usage atomic.Value // float64
	rec   *trace.Recorder
}

// t0 is 2024-01-01 03:00 UTC: 73 hours later it is 04:00, the default deleteWhen.
var t0 = time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC)

func newCleanT(t *testing.T) *cleanT {
	c := &cleanT{dir: t.TempDir(), rec: trace.NewRecorder()}
	c.clk.Set(t0)
	c.usage.Store(0.5)
	cfg := smallConfig(c.dir)
	cfg.MappedFileSizeConsumeQueue = 5 * ConsumeQueueUnitSize
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 8, 6
	cfg.Location = time.UTC
	cfg.Clock = &c.clk
	cfg.DiskUsage = func(string) float64 { return c.usage.Load().(float64) }
	c.s = openStore(t, cfg, nil, c.rec.Tracer("b"))
	return c
}

// fill puts n 300-byte messages (9 per CommitLog file) with a key and dispatches them.
func (c *cleanT) fill(t *testing.T, n int) {
	for i := 0; i < n; i++ {
		put(t, c.s, keyedMsg("T", strings.Repeat("b", 300), "k", ""))
	}
	c.s.DoReput()
}

// stamp sets every CommitLog file's modification time to the store clock (the store compares
// file times with its own clock, which the test moves by hand).
func (c *cleanT) stamp(t *testing.T) {
	for _, f := range c.s.commitLog.mfq.MappedFiles() {
		ts := c.clk.Now()
		require.NoError(t, os.Chtimes(f.path, ts, ts))
	}
}

func (c *cleanT) files() int { return len(c.s.commitLog.mfq.MappedFiles()) }

// TestCleanExpiredFiles: at the deleteWhen hour, CommitLog files older than fileReservedTime
// are deleted oldest first — never the active one — the CommitLog min offset moves to the
// first kept file, ConsumeQueue files whose units all point below it are deleted, the queue's
// min offset moves to its first unit at or above it, and a pull below it answers
// OFFSET_TOO_SMALL with nextBeginOffset = the new min. Index files ending below it go too.
// Java: CleanCommitLogService#deleteExpiredFiles, MappedFileQueue#deleteExpiredFileByTime,
// CleanConsumeQueueService#deleteExpiredFiles, ConsumeQueue#deleteExpiredFile, #correctMinOffset.
func TestCleanExpiredFiles(t *testing.T) {
	c := newCleanT(t)
	c.fill(t, 40) // 5 CommitLog files, 8 ConsumeQueue files, 8 index files
	c.stamp(t)
	require.Equal(t, 5, c.files())

	// not yet expired, and 71 hours later not the hour either: nothing happens
	c.clk.Advance(71 * time.Hour)
	c.s.CleanFilesPeriodically()
	require.Equal(t, 5, c.files())
	require.NotContains(t, c.rec.Labels(), "CleanCommitLogService#deleteExpiredFiles")

	// 73 hours: 04:00, the deleteWhen hour, and every file is expired
	c.clk.Advance(2 * time.Hour)
	c.s.CleanFilesPeriodically()
	require.Equal(t, 1, c.files(), "every file but the active one")
	minPhy := c.s.GetMinPhyOffset()
	require.Equal(t, CommitLogOffset(4*4096), minPhy)
	a := stepAttrs(t, c.rec, "CleanCommitLogService#deleteExpiredFiles")
	require.Equal(t, map[string]string{"timeup": "true", "spacefull": "false", "manual": "false", "cleanAtOnce": "false",
		"fileReservedTimeHours": "72", "deleted": "4", "commitLogMinOffset": "16384"}, a)
	for _, name := range []string{"00000000000000000000", "00000000000000012288"} {
		_, err := os.Stat(filepath.Join(c.dir, "commitlog", name))
		require.ErrorIs(t, err, os.ErrNotExist)
	}

	// 36 records lived in the deleted files: the queue's first kept unit is number 36
	cq := c.s.ConsumeQueue("T", 0)
	require.Equal(t, QueueOffset(36), cq.GetMinOffsetInQueue())
	require.Equal(t, QueueOffset(40), cq.GetMaxOffsetInQueue())
	require.Len(t, cq.mfq.MappedFiles(), 1, "7 of 8 ConsumeQueue files only pointed below the min offset")
	g := c.s.GetMessage("g", "T", 0, 3, 32, nil)
	require.Equal(t, OffsetTooSmall, g.Status)
	require.Equal(t, QueueOffset(36), g.NextBeginOffset)
	g = c.s.GetMessage("g", "T", 0, 36, 32, nil)
	require.Equal(t, Found, g.Status)
	require.Equal(t, 4, g.MessageCount)

	a = stepAttrs(t, c.rec, "CleanConsumeQueueService#deleteExpiredFiles")
	require.Equal(t, "16384", a["commitLogMinOffset"])
	require.Equal(t, "7", a["consumeQueueFilesDeleted"])
	for _, f := range c.s.IndexService().IndexFiles() {
		require.GreaterOrEqual(t, f.EndPhyOffset(), minPhy, "index files ending below the min offset are gone")
	}
	require.Len(t, c.s.QueryMessage("T", "k", 32, 0, 1<<62).Messages, 4)

	// the next pass with an unchanged min offset leaves the queues alone
	before := len(c.rec.Labels())
	c.s.CleanFilesPeriodically()
	for _, l := range c.rec.Labels()[before:] {
		require.NotEqual(t, "CleanConsumeQueueService#deleteExpiredFiles", l)
	}
}

// TestCleanStopsAtFirstUnexpired: deletion never leaves a hole — it stops at the first file
// that is not expired, even if later ones are. Java: MappedFileQueue#deleteExpiredFileByTime.
func TestCleanStopsAtFirstUnexpired(t *testing.T) {
	c := newCleanT(t)
	c.fill(t, 30) // 4 files
	c.stamp(t)
	fs := c.s.commitLog.mfq.MappedFiles()
	young := c.clk.Now().Add(10 * time.Hour)
	require.NoError(t, os.Chtimes(fs[1].path, young, young))
	c.clk.Advance(73 * time.Hour)
	c.s.CleanFilesPeriodically()
	require.Equal(t, 3, c.files(), "only the first: the second is young")
	require.Equal(t, CommitLogOffset(4096), c.s.GetMinPhyOffset())
}

// TestCleanWhenDiskFull: outside deleteWhen, a partition above diskMaxUsedSpaceRatio (75 %)
// deletes expired files; above diskSpaceCleanForciblyRatio (85 %) unexpired ones too; above
// diskSpaceWarningLevelRatio (90 %) the disk is also marked full and puts are refused with
// SERVICE_NOT_AVAILABLE until the usage drops. Java: CleanCommitLogService#isSpaceToDelete,
// #isSpaceFull, DefaultMessageStore#checkStoreStatus.
func TestCleanWhenDiskFull(t *testing.T) {
	c := newCleanT(t)
	c.fill(t, 40)
	c.stamp(t)
	c.clk.Advance(time.Hour) // 04:00, but files are young: move to 05:00
	c.clk.Advance(time.Hour)

	c.usage.Store(0.80) // > 75 %: delete expired — none is
	c.s.CleanFilesPeriodically()
	require.Equal(t, 5, c.files())
	a := stepAttrs(t, c.rec, "CleanCommitLogService#deleteExpiredFiles")
	require.Equal(t, "true", a["spacefull"])
	require.Equal(t, "false", a["timeup"])
	require.Equal(t, "0", a["deleted"])

	c.usage.Store(0.87) // > 85 %: delete whether expired or not
	c.s.CleanFilesPeriodically()
	require.Equal(t, 1, c.files())
	require.Equal(t, "true", stepAttrs(t, c.rec, "CleanCommitLogService#deleteExpiredFiles")["cleanAtOnce"])
	require.Equal(t, PutOK, c.s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)

	c.usage.Store(0.95) // > 90 %: the disk is full
	require.True(t, c.s.IsSpaceFull())
	require.True(t, c.s.IsDiskFull())
	require.Equal(t, ServiceNotAvailable, c.s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)

	c.usage.Store(0.50)
	require.False(t, c.s.IsSpaceFull())
	require.Equal(t, PutOK, c.s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)
}

// TestCleanManual: a manual request deletes expired files at any hour, for 20 passes.
// Java: CleanCommitLogService#executeDeleteFilesManually.
func TestCleanManual(t *testing.T) {
	c := newCleanT(t)
	c.fill(t, 20)
	c.stamp(t)
	c.clk.Advance(80 * time.Hour) // 11:00
	c.s.CleanFilesPeriodically()
	require.Equal(t, 3, c.files())
	c.s.ExecuteDeleteFilesManually()
	c.s.CleanFilesPeriodically()
	require.Equal(t, 1, c.files())
	require.Equal(t, int32(maxManualDeleteFileTimes-1), c.s.cleanCommitLog.manualDeleteFileSeveralTimes.Load())
}

// TestCleanBatchMax: one pass deletes at most 10 files. Java: MappedFileQueue#DELETE_FILES_BATCH_MAX.
func TestCleanBatchMax(t *testing.T) {
	c := newCleanT(t)
	c.fill(t, 9*12+1) // 13 files
	c.stamp(t)
	c.clk.Advance(73 * time.Hour)
	c.s.CleanFilesPeriodically()
	require.Equal(t, 3, c.files())
	c.s.CleanFilesPeriodically()
	require.Equal(t, 1, c.files())
}

// TestCleanServiceRuns: with the services on, the disk check marks a full disk within a
// second or so and puts are refused. Java: diskCheckScheduledExecutorService (1 s, then 10 s).
func TestCleanServiceRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the first disk check (1 s)")
	}
	cfg := smallConfig(t.TempDir())
	cfg.ManualServices = false
	cfg.DiskUsage = func(string) float64 { return 0.99 }
	s := openStore(t, cfg, nil, nil)
	require.Eventually(t, s.IsDiskFull, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, ServiceNotAvailable, s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)
}

// TestDeleteWhenValidated: deleteWhen must be a ';'-separated list of hours.
func TestDeleteWhenValidated(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	for _, ok := range []string{"04", "04;16", "0;1;23"} {
		cfg.DeleteWhen = ok
		require.NoError(t, cfg.Validate(), ok)
	}
	for _, bad := range []string{"", "4am", "04;", " 04"} {
		cfg.DeleteWhen = bad
		require.ErrorIs(t, cfg.Validate(), ErrInvalidConfig, bad)
	}
}

// TestOffsetByTimeAfterCommitLogClean: after the CommitLog's clean deleted its first files and
// before the ConsumeQueue's clean ran, the queue still begins with units whose messages are
// gone; GetOffsetInQueueByTime searches past them to the first unit whose message lives, and
// finds the surviving messages by their store times. (That the search past them is a binary
// search, searchUnits, TestSearchUnitsProbes checks; this test would pass with a linear skip.)
// Java: ConsumeQueue#getOffsetInQueueByTime (phyOffset < minPhysicOffset moves the search right).
func TestOffsetByTimeAfterCommitLogClean(t *testing.T) {
	c := newCleanT(t)
	for i := 0; i < 40; i++ { // message i is stored at t0 + i s, 9 per CommitLog file
		c.clk.Set(t0.Add(time.Duration(i) * time.Second))
		put(t, c.s, keyedMsg("T", strings.Repeat("b", 300), "k", ""))
	}
	c.s.DoReput()
	c.stamp(t)
	c.clk.Set(t0.Add(73 * time.Hour)) // 04:00, the deleteWhen hour; every file is expired
	require.Equal(t, 4, c.s.cleanCommitLog.deleteExpiredFiles())
	require.Equal(t, CommitLogOffset(4*4096), c.s.GetMinPhyOffset())
	cq := c.s.ConsumeQueue("T", 0)
	require.Equal(t, QueueOffset(0), cq.GetMinOffsetInQueue(), "the ConsumeQueue's clean has not run")
	at := func(i int) int64 { return t0.Add(time.Duration(i) * time.Second).UnixMilli() }
	for _, tc := range []struct {
		ts   int64
		want QueueOffset
	}{
		{0, 36}, {at(0), 36}, {at(35), 36}, {at(36), 36}, {at(37), 37}, {at(38) + 400, 38}, {at(38) + 600, 39}, {at(39), 39}, {at(99), 39},
	} {
		require.Equal(t, tc.want, c.s.GetOffsetInQueueByTime("T", 0, tc.ts), "ts=%d", tc.ts)
	}
}

// TestSearchUnitsProbes: searchUnits finds the end of a prefix in O(log n) probes, over a
// million units as over one. Java: ConsumeQueue#getOffsetInQueueByTime's binary search.
func TestSearchUnitsProbes(t *testing.T) {
	for _, tc := range []struct{ lo, end, first QueueOffset }{
		{0, 1 << 20, 0}, {0, 1 << 20, 777_777}, {0, 1 << 20, 1 << 20}, {5, 6, 5}, {5, 6, 6}, {3, 3, 3},
	} {
		probes := 0
		got := searchUnits(tc.lo, tc.end, func(i QueueOffset) bool {
			probes++
			require.True(t, i >= tc.lo && i < tc.end, "probe %d outside [%d, %d)", i, tc.lo, tc.end)
			return i < tc.first
		})
		require.Equal(t, tc.first, got)
		require.LessOrEqual(t, probes, 21, "log2(2^20)+1 probes at most")
	}
}

// TestCleanPacingUnderManualServices: under ManualServices the pause between two deleted files
// (deleteCommitLogFilesInterval, deleteConsumeQueueFilesInterval) is skipped, not slept on the
// wall clock: with an hour between deletions a hand-driven clean of 4 CommitLog and 7
// ConsumeQueue files still returns at once. A store with its services running keeps its
// pacers on (only the setting is checked here, not a pause that waits).
func TestCleanPacingUnderManualServices(t *testing.T) {
	c := newCleanT(t)
	c.s.cfg.DeleteCommitLogFilesInterval, c.s.cfg.DeleteConsumeQueueFilesInterval = time.Hour, time.Hour
	c.fill(t, 40)
	c.stamp(t)
	c.clk.Advance(73 * time.Hour)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.s.CleanFilesPeriodically()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the clean slept on the wall clock between two files")
	}
	require.Equal(t, 1, c.files())
	require.Len(t, c.s.ConsumeQueue("T", 0).mfq.MappedFiles(), 1)

	running, err := NewDefaultMessageStore(smallConfig(t.TempDir()).MessageStoreConfig, Options{}, nil, nil)
	require.NoError(t, err)
	require.False(t, running.cleanCommitLog.pacer.skip, "running services pace their deletions")
	require.False(t, running.cleanConsumeQueue.pacer.skip)
	require.True(t, c.s.cleanCommitLog.pacer.skip)
}

// TestFilePacer: a pacing pause ends at once when skipped or when the clean service stops.
func TestFilePacer(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	for _, p := range []filePacer{{skip: true}, {stop: stop}} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.pause(time.Hour)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("pacer %+v slept", p)
		}
	}
}
