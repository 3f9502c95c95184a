package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// stepAttrs returns the attributes of the last step with label.
func stepAttrs(t *testing.T, rec *trace.Recorder, label string) map[string]string {
	t.Helper()
	steps := rec.Steps()
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Label == label {
			return steps[i].Attrs
		}
	}
	t.Fatalf("no step %s in %v", label, rec.Labels())
	return nil
}

// TestRecoverAbnormallyRedispatches: after a crash that lost ConsumeQueue units and index
// entries (records written but never dispatched), the abort file makes Load recover
// abnormally: every valid record from the start file on is dispatched again, so ConsumeQueue,
// index and CommitLog agree before Start. Java: DefaultMessageStore#recover,
// CommitLog#recoverAbnormally.
func TestRecoverAbnormallyRedispatches(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 12; i++ { // ~2 CommitLog files
		put(t, s, keyedMsg("T", strings.Repeat("b", 300), "k", ""))
	}
	s.DoReput() // only the first half reaches the ConsumeQueue before the "crash"
	for i := 0; i < 3; i++ {
		put(t, s, keyedMsg("T", "late", "late", ""))
	}
	crashStore(s)
	_, err := os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err)

	rec := trace.NewRecorder()
	s2, err := newStore(cfg, nil, rec.Tracer("b"))
	require.NoError(t, err)
	require.NoError(t, s2.Load())
	t.Cleanup(s2.Shutdown)
	// before Start (no catch-up dispatch yet) the queue is whole
	require.Equal(t, QueueOffset(15), s2.GetMaxOffsetInQueue("T", 0))
	require.Len(t, s2.QueryMessage("T", "late", 32, 0, 1<<62).Messages, 3)
	a := stepAttrs(t, rec, "CommitLog#recoverAbnormally")
	require.Equal(t, "commitlog/00000000000000000000", a["startFile"], "no file is older than the checkpoint time: start at the first")
	require.Equal(t, "15", a["dispatched"])
	require.Equal(t, int64(s2.GetMaxPhyOffset()), mustAtoi(t, a["processOffset"]))
	require.NotContains(t, rec.Labels(), "CommitLog#recoverNormally")
	require.NoError(t, s2.Start())
	require.Equal(t, QueueOffset(15), put(t, s2, newMsg("T", 0, "next", "")).LogicsOffset)
}

// TestRecoverAbnormallyStartFile: recovery starts at the newest file whose first message was
// stored at or before the checkpoint's min(physic, logics) − 3 s. Java:
// CommitLog#isMappedFileMatchedRecover, StoreCheckpoint#getMinTimestamp.
func TestRecoverAbnormallyStartFile(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	clk := clock.NewManualMillis(exampleStore)
	cfg.Clock = clk
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 30; i++ { // 2 per second; 416-byte records, 9 per 4096-byte file
		clk.Advance(500 * time.Millisecond)
		put(t, s, newMsg("T", 0, strings.Repeat("b", 300), ""))
	}
	s.DoReput()
	for !s.FlushCommitLog(0) { // one file per pass
	}
	s.FlushConsumeQueue(0) // checkpoint: physic = logics = time of the last message
	require.Equal(t, clock.Millis(clk), s.Checkpoint().PhysicMsgTimestamp())
	crashStore(s)

	rec := trace.NewRecorder()
	s2 := openStore(t, cfg, nil, rec.Tracer("b"))
	// recovery time = last − 3 s: the fourth file starts with message 27 (1 s before the
	// last), the third with message 18 (6 s before): recovery starts at the third
	a := stepAttrs(t, rec, "CommitLog#recoverAbnormally")
	require.Equal(t, "commitlog/00000000000000008192", a["startFile"])
	require.Equal(t, "12", a["dispatched"])
	require.Equal(t, QueueOffset(30), s2.GetMaxOffsetInQueue("T", 0))
}

// TestRecoverAbnormallyTornTail: a crash that left a torn or corrupt record (here written into
// the files after the crash) is cut at the last whole record by abnormal recovery; ConsumeQueue
// units that pointed at the cut record go too, and puts continue there.
// Java: CommitLog#recoverAbnormally, DefaultMessageStore#truncateDirtyLogicFiles.
func TestRecoverAbnormallyTornTail(t *testing.T) {
	for _, tc := range tornTails([]byte{0, 0, 0, 99, 0xDA, 0xA3, 0x20, 0xA7, 1, 2, 3}) {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			rs := putThreeAndDamage(t, cfg, func() *msgT { return keyedMsg("T", "body", "key", "") }, crashStore, tc.damage)

			rec := trace.NewRecorder()
			s2 := openStore(t, cfg, nil, rec.Tracer("b"))
			end, _ := requireContinuesAfterCut(t, s2, rs, tc.keep)
			require.Equal(t, int64(end), mustAtoi(t, stepAttrs(t, rec, "CommitLog#recoverAbnormally")["processOffset"]))
		})
	}
}

// TestRecoverAbnormallyNoCommitLog: no CommitLog files at all ⇒ ConsumeQueues are deleted.
// Java: CommitLog#recoverAbnormally (else branch).
func TestRecoverAbnormallyNoCommitLog(t *testing.T) {
	dir := t.TempDir()
	cfg := storeWithOneMessage(t, dir, crashStore)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "commitlog")))
	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(0), s2.GetMaxOffsetInQueue("T", 0))
}

// TestDiskFullKeepsAbort: a store marked disk-full is not writable, so its shutdown keeps the
// abort file and the next start recovers abnormally. Java: DefaultMessageStore#shutdown.
func TestDiskFullKeepsAbort(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	cfg.DiskUsage = func(string) float64 { return 0.95 }
	s := openStore(t, cfg, nil, nil)
	require.True(t, s.IsSpaceFull())
	s.Shutdown()
	_, err := os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err)
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9', "not a number: %q", s)
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestRecoverConsumeQueueFileNeverWritten: a power cut while the ConsumeQueue flush lagged can
// leave a file before the last three all zero; recovery sees its last unit unwritten, ends the
// queue there and the abnormal CommitLog recovery dispatches the units again, so every unit
// points at its record. (Java checks only the last three files and would keep the zeros.)
func TestRecoverConsumeQueueFileNeverWritten(t *testing.T) {
	dir := t.TempDir()
	cfg, offs := storeWithQueue(t, dir, 100) // 5 ConsumeQueue files of 20 units
	require.NoError(t, zeroFrom(filepath.Join(dir, "consumequeue", "T", "0", offset2FileName(20*ConsumeQueueUnitSize)), 0, 20*ConsumeQueueUnitSize))
	markAborted(t, dir)

	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(100), s2.GetMaxOffsetInQueue("T", 0))
	for k, off := range offs {
		require.Equal(t, off, s2.GetCommitLogOffsetInQueue("T", 0, QueueOffset(k)), "unit %d", k)
	}
}

// TestRecoverTruncatesBehindEmptyConsumeQueueFile: a power cut right after the ConsumeQueue
// rolled to a new file leaves that file all zero, while the full file before it was flushed
// with units for records the CommitLog lost. Recovery must look past the empty file: it goes,
// and the units pointing past the recovered log end go with it. (The power-cut test found
// this: the empty last file used to stop the truncation, so the queue kept units for records
// that were gone.) Java: ConsumeQueue#truncateDirtyLogicFiles.
func TestRecoverTruncatesBehindEmptyConsumeQueueFile(t *testing.T) {
	dir := t.TempDir()
	cfg, offs := storeWithQueue(t, dir, 40) // two full ConsumeQueue files of 20 units
	queueDir := filepath.Join(dir, "consumequeue", "T", "0")
	require.NoError(t, os.WriteFile(filepath.Join(queueDir, offset2FileName(40*ConsumeQueueUnitSize)),
		make([]byte, 20*ConsumeQueueUnitSize), 0o644)) // the rolled-to file, never flushed
	logFile := filepath.Join(dir, "commitlog", offset2FileName(0))
	require.NoError(t, zeroFrom(logFile, int64(offs[35]), 64<<10)) // the log lost records 35..39
	markAborted(t, dir)

	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, offs[35], s2.GetMaxPhyOffset())
	require.Equal(t, QueueOffset(35), s2.GetMaxOffsetInQueue("T", 0), "no unit for a lost record")
	for k := 0; k < 35; k++ {
		require.Equal(t, offs[k], s2.GetCommitLogOffsetInQueue("T", 0, QueueOffset(k)), "unit %d", k)
	}
	r := put(t, s2, newMsg("T", 0, "after", ""))
	require.Equal(t, QueueOffset(35), r.LogicsOffset)
	require.Equal(t, offs[35], r.WroteOffset)
}

// storeWithQueue opens a store in dir with 64 KiB CommitLog files (room for every record in
// one), puts n messages to T-0, dispatches them and shuts the store down cleanly; it returns
// the setup and the records' CommitLog offsets, so a test can damage the files as a power cut
// would and open the store again.
func storeWithQueue(t *testing.T, dir string, n int) (storeSetup, []CommitLogOffset) {
	t.Helper()
	cfg := smallConfig(dir)
	cfg.MappedFileSizeCommitLog = 64 << 10
	s := openStore(t, cfg, nil, nil)
	offs := make([]CommitLogOffset, 0, n)
	for range n {
		offs = append(offs, put(t, s, newMsg("T", 0, "m", "")).WroteOffset)
	}
	s.DoReput()
	s.Shutdown()
	return cfg, offs
}

// markAborted writes the abort file a running store keeps, so the next open recovers as
// after a crash.
func markAborted(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "abort"), nil, 0o644))
}
