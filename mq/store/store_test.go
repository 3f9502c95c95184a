package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/stretchr/testify/require"
)

// TestGetMessageStatuses pins DefaultMessageStore#getMessage's statuses and nextBeginOffset
// (remoting-protocol.md §4.6 table).
func TestGetMessageStatuses(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for i := 0; i < 3; i++ {
		put(t, s, newMsg("T", 0, fmt.Sprint("m", i), "TagA"))
	}
	s.DoReput()
	// an existing but empty queue: dispatch created T/1 only if a message went there; make one
	s.queues.find("Empty", 0)
	for _, tc := range []struct {
		name          string
		topic         string
		offset        QueueOffset
		max           int32
		status        GetMessageStatus
		next          QueueOffset
		count         int
		minOff, maxOf QueueOffset
	}{
		{"found all", "T", 0, 32, Found, 3, 3, 0, 3},
		{"found from 1", "T", 1, 32, Found, 3, 2, 0, 3},
		{"maxMsgNums caps", "T", 0, 2, Found, 2, 2, 0, 3},
		{"offset == max", "T", 3, 32, OffsetOverflowOne, 3, 0, 0, 3},
		{"offset > max", "T", 7, 32, OffsetOverflowBadly, 3, 0, 0, 3},
		{"empty queue", "Empty", 5, 32, NoMessageInQueue, 0, 0, 0, 0},
		{"unknown queue", "Nope", 5, 32, NoMatchedLogicQueue, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := s.GetMessage("g", tc.topic, 0, tc.offset, tc.max, nil)
			require.NotNil(t, g)
			require.Equal(t, tc.status, g.Status)
			require.Equal(t, tc.next, g.NextBeginOffset)
			require.Equal(t, int(tc.count), g.MessageCount)
			require.Len(t, g.Messages, int(tc.count))
			require.Equal(t, tc.minOff, g.MinOffset)
			require.Equal(t, tc.maxOf, g.MaxOffset)
		})
	}
	s.Shutdown()
	require.Nil(t, s.GetMessage("g", "T", 0, 0, 1, nil), "a shut-down store answers nil")
}

// TestGetMessageFilter: units the filter rejects are skipped but counted in nextBeginOffset;
// when nothing matches the status is NO_MATCHED_MESSAGE. Java: DefaultMessageStore#getMessage.
func TestGetMessageFilter(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for _, tag := range []string{"A", "B", "A", "C"} {
		put(t, s, newMsg("T", 0, "x", tag))
	}
	s.DoReput()
	codeA, codeB := tagsString2TagsCode([]byte("A")), tagsString2TagsCode([]byte("B"))

	g := s.GetMessage("g", "T", 0, 0, 32, tagFilter{codeB: true})
	require.Equal(t, Found, g.Status)
	require.Equal(t, 1, g.MessageCount)
	require.Equal(t, []QueueOffset{1}, g.MessageQueueOffsets)
	require.Equal(t, QueueOffset(4), g.NextBeginOffset)

	g = s.GetMessage("g", "T", 0, 0, 32, tagFilter{999: true})
	require.Equal(t, NoMatchedMessage, g.Status)
	require.Equal(t, QueueOffset(4), g.NextBeginOffset, "nextBeginOffset advances over filtered units")
	require.Zero(t, g.MessageCount)

	g = s.GetMessage("g", "T", 0, 1, 1, tagFilter{codeA: true})
	require.Equal(t, Found, g.Status)
	require.Equal(t, []QueueOffset{2}, g.MessageQueueOffsets)
	require.Equal(t, QueueOffset(3), g.NextBeginOffset, "stops after maxMsgNums")
}

// TestGetMessageBatchLimits: the in-memory byte limit ends a batch, but one message is always
// returned. Java: DefaultMessageStore#isTheBatchFull.
func TestGetMessageBatchLimits(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 64 * 1024
	cfg.MaxTransferBytesOnMessageInMemory = 2000
	cfg.MaxTransferCountOnMessageInMemory = 3
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 5; i++ {
		put(t, s, newMsg("T", 0, strings.Repeat("b", 800), "")) // 914-byte records
	}
	big := newMsg("T", 0, strings.Repeat("B", 3000), "")
	put(t, s, big)
	s.DoReput()
	g := s.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, 2, g.MessageCount, "2 × 914 bytes fit in 2000 bytes, a third does not")
	require.Equal(t, QueueOffset(2), g.NextBeginOffset)
	g = s.GetMessage("g", "T", 0, 5, 32, nil)
	require.Equal(t, 1, g.MessageCount, "one message over the byte limit still comes alone")
	g = s.GetMessage("g", "T", 0, 1, 32, nil)
	require.Equal(t, 2, g.MessageCount)
	cfg.MaxTransferBytesOnMessageInMemory = 1 << 20
	s.cfg.MaxTransferBytesOnMessageInMemory = 1 << 20
	g = s.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, 3, g.MessageCount, "then the count limit (3)")
}

// TestConsumeQueueFiles: 20-unit ConsumeQueue files roll at unit 20, named by byte offset.
// Java: ConsumeQueue#putMessagePositionInfo, MappedFileQueue#getLastMappedFile.
func TestConsumeQueueFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	cfg.MappedFileSizeCommitLog = 64 * 1024
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 45; i++ {
		put(t, s, newMsg("T", 2, "x", ""))
	}
	s.DoReput()
	entries, err := os.ReadDir(filepath.Join(dir, "consumequeue", "T", "2"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"00000000000000000000", "00000000000000000400", "00000000000000000800"}, names)
	require.Equal(t, QueueOffset(45), s.GetMaxOffsetInQueue("T", 2))
	// a pull stops at the end of a ConsumeQueue file
	g := s.GetMessage("g", "T", 2, 15, 32, nil)
	require.Equal(t, 5, g.MessageCount)
	require.Equal(t, QueueOffset(20), g.NextBeginOffset)
	g = s.GetMessage("g", "T", 2, 20, 32, nil)
	require.Equal(t, 20, g.MessageCount)
	// unit k points at message k
	size := int64(calMsgLength(0, 1, 1, len("CLUSTER\x01DefaultCluster")))
	require.Equal(t, CommitLogOffset(44*size), s.GetCommitLogOffsetInQueue("T", 2, 44))
}

// TestIdempotentDispatch: replaying records already indexed writes nothing twice.
// Java: ConsumeQueue#putMessagePositionInfo (offset + size ≤ maxPhysicOffset).
func TestIdempotentDispatch(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for i := 0; i < 3; i++ {
		put(t, s, newMsg("T", 0, "x", ""))
	}
	s.DoReput()
	s.reput.setReputFromOffset(0)
	s.DoReput()
	require.Equal(t, QueueOffset(3), s.GetMaxOffsetInQueue("T", 0))
}

// TestArrivingListener: after each dispatch the listener hears the new max offset
// (queueOffset + 1). Java: ReputMessageService#doReput → MessageArrivingListener#arriving.
func TestArrivingListener(t *testing.T) {
	var a arrivals
	s := openStore(t, smallConfig(t.TempDir()), &a, nil)
	put(t, s, newMsg("T", 1, "x", "TagA"))
	put(t, s, newMsg("T", 1, "y", ""))
	s.DoReput()
	require.Equal(t, []arrival{
		{"T", 1, 1, 2598919, exampleStore},
		{"T", 1, 2, 0, exampleStore},
	}, a.calls)
}

// TestReputService: with services running, puts are dispatched without calling DoReput.
func TestReputService(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.ManualServices = false
	var a arrivals
	s := openStore(t, cfg, &a, nil)
	for i := 0; i < 10; i++ {
		put(t, s, newMsg("T", 0, "x", ""))
	}
	require.Eventually(t, func() bool { return a.n.Load() == 10 }, 5e9, 1e6)
	require.Equal(t, QueueOffset(10), s.GetMaxOffsetInQueue("T", 0))
}

// TestRestart: Shutdown, reopen, Load: every message and queue offset is intact and the next
// put continues each queue. Java: DefaultMessageStore#load, recoverNormally,
// recoverTopicQueueTable.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	var last *AppendMessageResult
	for i := 0; i < 10; i++ {
		last = put(t, s, newMsg("T", int32(i%2), strings.Repeat("x", 300), "TagA"))
	}
	s.DoReput()
	maxPhy := s.GetMaxPhyOffset()
	require.Greater(t, maxPhy, int64(4096), "spans files")
	s.Shutdown()
	_, err := os.Stat(filepath.Join(dir, "abort"))
	require.ErrorIs(t, err, os.ErrNotExist, "clean shutdown removes abort")

	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, maxPhy, s2.GetMaxPhyOffset())
	next, ok := s2.commitLog.queueOffset("T", 1)
	require.True(t, ok, "topicQueueTable rebuilt from the ConsumeQueues")
	require.Equal(t, QueueOffset(5), next)
	require.Equal(t, QueueOffset(5), s2.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, QueueOffset(5), s2.GetMaxOffsetInQueue("T", 1))
	g := s2.GetMessage("g", "T", 1, 0, 32, nil)
	require.Equal(t, 5, g.MessageCount)
	msg, err := s2.LookMessageByOffset(last.WroteOffset)
	require.NoError(t, err)
	require.Equal(t, int64(4), msg.QueueOffset)
	r := put(t, s2, newMsg("T", 1, "next", ""))
	require.Equal(t, QueueOffset(5), r.LogicsOffset)
	require.Equal(t, maxPhy, r.WroteOffset)
	_, err = os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a running store has an abort file")
}

// TestRestartUndispatched: records written but not dispatched before shutdown (crash-like) are
// dispatched at Start. Java: DefaultMessageStore#start (reput from the CQs' max offset).
func TestRestartUndispatched(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	put(t, s, newMsg("T", 0, "a", ""))
	s.DoReput()
	put(t, s, newMsg("T", 0, "b", ""))
	crashStore(s) // no final dispatch
	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(2), s2.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, QueueOffset(2), put(t, s2, newMsg("T", 0, "c", "")).LogicsOffset)
}

// TestTornTail: garbage after the last record, or a record cut short, is truncated by
// recovery; the ConsumeQueue is truncated to match and new puts continue at the last good
// record. Java: CommitLog#recoverNormally, ConsumeQueue#truncateDirtyLogicFiles.
func TestTornTail(t *testing.T) {
	for _, tc := range tornTails([]byte("garbage-garbage-garbage")) {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			rs := putThreeAndDamage(t, cfg, func() *msgT { return newMsg("T", 0, "body", "") },
				(*DefaultMessageStore).Shutdown, tc.damage)

			s2 := openStore(t, cfg, nil, nil)
			end, r := requireContinuesAfterCut(t, s2, rs, tc.keep)

			// and once more: the new tail is stable across another restart
			s2.Shutdown()
			s3 := openStore(t, cfg, nil, nil)
			require.Equal(t, QueueOffset(tc.keep+1), s3.GetMaxOffsetInQueue("T", 0))
			require.Equal(t, end+CommitLogOffset(r.WroteBytes), s3.GetMaxPhyOffset())
		})
	}
}

func writeAt(t *testing.T, file string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// tornTail is a damage done to the last of three records of the first CommitLog file, and
// how many of the three survive it.
type tornTail struct {
	name   string
	damage func(t *testing.T, file string, recStart, recSize int64)
	keep   int64
}

// tornTails: garbage written after the last record (all three survive), the last record cut
// short, the last record's body CRC broken (two survive).
func tornTails(garbage []byte) []tornTail {
	return []tornTail{
		{"garbage after the last record", func(t *testing.T, file string, recStart, recSize int64) {
			writeAt(t, file, recStart+recSize, garbage)
		}, 3},
		{"last record cut short", func(t *testing.T, file string, recStart, recSize int64) {
			writeAt(t, file, recStart+recSize/2, make([]byte, recSize/2))
		}, 2},
		{"last record with a bad body CRC", func(t *testing.T, file string, recStart, recSize int64) {
			writeAt(t, file, recStart+88, []byte("X"))
		}, 2},
	}
}

// putThreeAndDamage puts three messages made by mk into a store over cfg, dispatches them,
// stops the store with stop (Shutdown or a crash) and damages the last record.
func putThreeAndDamage(t *testing.T, cfg storeSetup, mk func() *msgT, stop func(*DefaultMessageStore),
	damage func(t *testing.T, file string, recStart, recSize int64)) []*AppendMessageResult {
	t.Helper()
	s := openStore(t, cfg, nil, nil)
	var rs []*AppendMessageResult
	for i := 0; i < 3; i++ {
		rs = append(rs, put(t, s, mk()))
	}
	s.DoReput()
	stop(s)
	last := rs[2]
	damage(t, filepath.Join(cfg.StorePathRootDir, "commitlog", "00000000000000000000"), int64(last.WroteOffset), int64(last.WroteBytes))
	return rs
}

// requireContinuesAfterCut checks a store reopened over putThreeAndDamage's records rs: the
// CommitLog ends after the last of the keep records that survived (end), queue T/0 holds keep
// units, and a new put (r) continues at end and reads back as the next message.
func requireContinuesAfterCut(t *testing.T, s *DefaultMessageStore, rs []*AppendMessageResult, keep int64) (
	end CommitLogOffset, r *AppendMessageResult) {
	t.Helper()
	end = rs[keep-1].WroteOffset + CommitLogOffset(rs[keep-1].WroteBytes)
	require.Equal(t, end, s.GetMaxPhyOffset())
	require.Equal(t, QueueOffset(keep), s.GetMaxOffsetInQueue("T", 0))
	r = put(t, s, newMsg("T", 0, "new", ""))
	require.Equal(t, end, r.WroteOffset)
	require.Equal(t, QueueOffset(keep), r.LogicsOffset)
	s.DoReput()
	g := s.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, int(keep)+1, g.MessageCount)
	m, err := decodeRecord(g.Messages[keep])
	require.NoError(t, err)
	require.Equal(t, "new", string(m.Body))
	return end, r
}

// TestNoCommitLogDestroysConsumeQueues: no CommitLog files at all ⇒ ConsumeQueues are deleted.
// Java: CommitLog#recoverNormally (else branch) → destroyLogics.
func TestNoCommitLogDestroysConsumeQueues(t *testing.T) {
	dir := t.TempDir()
	cfg := storeWithOneMessage(t, dir, (*DefaultMessageStore).Shutdown)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "commitlog")))
	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(0), s2.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, QueueOffset(0), put(t, s2, newMsg("T", 0, "b", "")).LogicsOffset)
}

// TestLockFile: a second store on the same directory fails with a clear error; after the first
// shuts down the second can load. Java: DefaultMessageStore#start ("Lock failed,MQ already started").
func TestLockFile(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	s2, err := newStore(cfg, nil, nil)
	require.NoError(t, err)
	err = s2.Load()
	require.ErrorIs(t, err, ErrStoreLocked)
	require.Contains(t, err.Error(), "lock")
	b, err := os.ReadFile(filepath.Join(dir, "lock"))
	require.NoError(t, err)
	require.Equal(t, "lock", string(b))
	s.Shutdown()
	require.NoError(t, s2.Load())
	s2.Shutdown()
}

// TestFileLengthMismatch: a store file whose length differs from the configured size stops the
// load. Java: MappedFileQueue#doLoad.
func TestFileLengthMismatch(t *testing.T) {
	cfg := storeWithOneMessage(t, t.TempDir(), (*DefaultMessageStore).Shutdown)
	cfg.MappedFileSizeCommitLog = 8192
	s2, err := newStore(cfg, nil, nil)
	require.NoError(t, err)
	require.ErrorIs(t, s2.Load(), ErrFileSize)
	// the failed load released the lock
	cfg.MappedFileSizeCommitLog = 4096
	openStore(t, cfg, nil, nil)
}

// TestCreateMappedFileFailed: when a new CommitLog file cannot be created (here: the directory
// is a regular file; likewise a full disk fails fallocate) the put is refused with
// CREATE_MAPEDFILE_FAILED rather than crashing. Java: CommitLog#asyncPutMessage.
func TestCreateMappedFileFailed(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "commitlog")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "commitlog"), nil, 0o644))
	r := s.PutMessage(newMsg("T", 0, "a", ""))
	require.Equal(t, CreateMappedFileFailed, r.PutMessageStatus)
	require.False(t, r.IsOk())
}

// TestAllocateAhead: rolling pre-creates the file after the new one; a clean shutdown deletes
// pre-created files nobody used. Java: AllocateMappedFileService.
func TestAllocateAhead(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	put(t, s, newMsg("T", 0, "a", ""))
	next := filepath.Join(dir, "commitlog", "00000000000000004096")
	require.Eventually(t, func() bool { _, err := os.Stat(next); return err == nil }, 5e9, 1e6)
	s.Shutdown()
	_, err := os.Stat(next)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestCheckpointAndAbort: the checkpoint holds physic/logics timestamps big-endian at 0 and 8
// after shutdown; an abort file left by a crash makes the next load recover abnormally.
// Java: StoreCheckpoint#flush, DefaultMessageStore#load (isTempFileExist).
func TestCheckpointAndAbort(t *testing.T) {
	dir := t.TempDir()
	cfg := storeWithOneMessage(t, dir, (*DefaultMessageStore).Shutdown)
	b, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	require.NoError(t, err)
	require.Len(t, b, 4096)
	require.Equal(t, uint64(exampleStore), binary.BigEndian.Uint64(b[0:]))
	require.Equal(t, uint64(exampleStore), binary.BigEndian.Uint64(b[8:]))
	require.Equal(t, uint64(0), binary.BigEndian.Uint64(b[16:]))

	markAborted(t, dir)
	s2 := openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(1), s2.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, exampleStore, s2.Checkpoint().PhysicMsgTimestamp())
}

// TestFlushLeastPages: an async flush waits for flushCommitLogLeastPages new 4 KiB pages;
// least-pages 0 flushes any new byte. Java: MappedFile#isAbleToFlush.
func TestFlushLeastPages(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 64 * 1024
	s := openStore(t, cfg, nil, nil)
	mfq := s.commitLog.mfq
	put(t, s, newMsg("T", 0, strings.Repeat("x", 5000), ""))
	s.FlushCommitLog(4)
	require.Equal(t, int64(0), mfq.flushedWhere.Load(), "one page is not enough")
	for i := 0; i < 3; i++ {
		put(t, s, newMsg("T", 0, strings.Repeat("x", 5000), ""))
	}
	s.FlushCommitLog(4)
	require.Equal(t, int64(s.GetMaxPhyOffset()), mfq.flushedWhere.Load())
	put(t, s, newMsg("T", 0, "y", ""))
	s.FlushCommitLog(0)
	require.Equal(t, int64(s.GetMaxPhyOffset()), mfq.flushedWhere.Load())
	require.Equal(t, exampleStore, s.Checkpoint().PhysicMsgTimestamp())
}

// TestGetOffsetInQueueByTime: binary search by store time.
func TestGetOffsetInQueueByTime(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	clk := clock.NewManualMillis(1000)
	cfg.Clock = clk
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 5; i++ {
		clk.SetMillis(1000 + int64(i)*100) // 1000, 1100, ... 1400
		put(t, s, newMsg("T", 0, "x", ""))
	}
	s.DoReput()
	for _, tc := range []struct{ ts, want int64 }{
		{0, 0}, {1000, 0}, {1100, 1}, {1149, 1}, {1150, 1}, {1151, 2}, {1400, 4}, {9999, 4},
	} {
		require.Equal(t, QueueOffset(tc.want), s.GetOffsetInQueueByTime("T", 0, tc.ts), "ts=%d", tc.ts)
	}
	require.Equal(t, int64(1200), s.GetMessageStoreTimeStamp("T", 0, 2))
	require.Equal(t, QueueOffset(0), s.GetOffsetInQueueByTime("Nope", 0, 1))
}

// TestDeleteTopics removes the topic's queues and offsets.
func TestDeleteTopics(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, smallConfig(dir), nil, nil)
	put(t, s, newMsg("T", 0, "x", ""))
	put(t, s, newMsg("U", 0, "x", ""))
	s.DoReput()
	s.DeleteTopics([]string{"T"})
	_, err := os.Stat(filepath.Join(dir, "consumequeue", "T"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Nil(t, s.ConsumeQueue("T", 0))
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("U", 0))
	require.Equal(t, QueueOffset(0), put(t, s, newMsg("T", 0, "x", "")).LogicsOffset)
}

// TestPutAfterShutdown: a shut-down store refuses puts. Java: checkStoreStatus.
func TestPutAfterShutdown(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	s.Shutdown()
	require.Equal(t, ServiceNotAvailable, s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)
	r := <-s.AsyncPutMessage(newMsg("T", 0, "x", ""))
	require.Equal(t, ServiceNotAvailable, r.PutMessageStatus)
}

// TestSlaveRefusesPuts and answers nextOffsetCorrection with the request offset.
func TestSlaveRefusesPuts(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole = Slave
	s := openStore(t, cfg, nil, nil)
	require.Equal(t, ServiceNotAvailable, s.PutMessage(newMsg("T", 0, "x", "")).PutMessageStatus)
	// a slave gets data by AppendToCommitLog
	master := openStore(t, smallConfig(t.TempDir()), nil, nil)
	put(t, master, newMsg("T", 0, "x", ""))
	data, ok := master.GetCommitLogData(0)
	require.True(t, ok)
	require.NoError(t, s.AppendToCommitLog(0, data.Data))
	data.Release()
	require.Error(t, s.AppendToCommitLog(0, []byte{1}), "not at the end of the log")
	s.DoReput()
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("T", 0))
	g := s.GetMessage("g", "T", 0, 9, 32, nil)
	require.Equal(t, OffsetOverflowBadly, g.Status)
	require.Equal(t, QueueOffset(9), g.NextBeginOffset, "slave keeps the request offset")
}

// TestFillPreBlank: a queue whose first unit arrives at a non-zero offset starts its file with
// blank units (offset 0, size 0x7FFFFFFF, tagsCode 0) and its min offset at the first real
// unit. Java: ConsumeQueue#putMessagePositionInfo, #fillPreBlank.
func TestFillPreBlank(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, smallConfig(dir), nil, nil)
	cq := s.queues.find("T", 0)
	ok, err := cq.putMessagePositionInfo(1000, 100, 7, 25)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, QueueOffset(25), cq.GetMinOffsetInQueue())
	require.Equal(t, QueueOffset(26), cq.GetMaxOffsetInQueue())
	raw, err := os.ReadFile(filepath.Join(dir, "consumequeue", "T", "0", "00000000000000000400"))
	require.NoError(t, err)
	blank := unhex(t, "0000000000000000 7fffffff 0000000000000000")
	for i := 0; i < 5; i++ {
		require.Equal(t, blank, raw[i*20:i*20+20])
	}
	require.Equal(t, unhex(t, "00000000000003e8 00000064 0000000000000007"), raw[100:120])
	g := s.GetMessage("g", "T", 0, 3, 32, nil)
	require.Equal(t, OffsetTooSmall, g.Status)
	require.Equal(t, QueueOffset(25), g.NextBeginOffset)
}

// TestGetMessageSuggestsSlaveBeyondTheMemoryWindow: a read's lag is the CommitLog's max offset
// minus the CommitLog offset of the last ConsumeQueue unit looked at (bytes) — the one after
// the batch when the batch was full, as in Java — its window accessMessageInMemoryMaxRatio (40 %)
// of Options.TotalPhysicalMemory; a lag beyond the window suggests pulling from a slave.
// Java: DefaultMessageStore#getMessage (diff = maxOffsetPy - maxPhyOffsetPulling; diff > memory).
func TestGetMessageSuggestsSlaveBeyondTheMemoryWindow(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 64 << 10
	cfg.TotalPhysicalMemory = 1000 // a 400-byte window
	s := openStore(t, cfg, nil, nil)
	var ends []CommitLogOffset
	for i := 0; i < 10; i++ {
		r := put(t, s, newMsg("T", 0, fmt.Sprint("m", i), "TagA"))
		ends = append(ends, r.WroteOffset)
	}
	s.DoReput()
	maxPhy := s.GetMaxPhyOffset()
	for _, tc := range []struct {
		offset QueueOffset
		max    int32
	}{{0, 1}, {0, 10}, {8, 1}, {9, 1}} {
		g := s.GetMessage("g", "T", 0, tc.offset, tc.max, nil)
		last := ends[min(int(tc.offset)+int(tc.max), len(ends)-1)] // the unit that ended the batch
		lag := int64(maxPhy - last)
		require.Equal(t, lag, g.LagBytes, "offset %d max %d", tc.offset, tc.max)
		require.Equal(t, int64(400), g.InMemoryBytes)
		require.Equal(t, lag > 400, g.SuggestPullingFromSlave, "offset %d max %d: lag %d", tc.offset, tc.max, lag)
	}
	g := s.GetMessage("g", "T", 0, 0, 1, nil)
	require.True(t, g.SuggestPullingFromSlave, "the first of ten records lies more than 400 bytes behind")
	g = s.GetMessage("g", "T", 0, 9, 1, nil)
	require.False(t, g.SuggestPullingFromSlave, "the last record is within the window")
}
