package store

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/stretchr/testify/require"
)

// The power-cut test's child: ROCKETMQ_GO_STORE_POWERCUT_CHILD names the store directory,
// ROCKETMQ_GO_STORE_POWERCUT_MODE the flush mode (SYNC_FLUSH, ASYNC_FLUSH, POOL).
const (
	powerCutChildEnv = "ROCKETMQ_GO_STORE_POWERCUT_CHILD"
	powerCutModeEnv  = "ROCKETMQ_GO_STORE_POWERCUT_MODE"
	modePool         = "POOL" // ASYNC_FLUSH with transientStorePoolEnable
)

// powerCutConfig: 64 KiB CommitLog files, 100-unit ConsumeQueue files, index files of 64
// slots and 200 entries, every service running on the wall clock, a safe index.
func powerCutConfig(dir, mode string) storeSetup {
	cfg := smallConfig(dir)
	cfg.MappedFileSizeCommitLog = 64 << 10
	cfg.MappedFileSizeConsumeQueue = 100 * ConsumeQueueUnitSize
	cfg.MaxHashSlotNum, cfg.MaxIndexNum = 64, 200
	cfg.MessageIndexSafe = true
	cfg.ManualServices = false
	cfg.Clock = nil
	cfg.FlushIntervalConsumeQueue = 100 * time.Millisecond // the first pass writes the checkpoint
	switch mode {
	case SyncFlush:
		cfg.FlushDiskType = SyncFlush
	case modePool:
		cfg.TransientStorePoolEnable = true
		cfg.TransientStorePoolSize = 4
	}
	return cfg
}

// lineWriter writes whole lines to stdout, one write(2) each, from any goroutine.
type lineWriter struct{ mu sync.Mutex }

func (w *lineWriter) printf(format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = os.Stdout.WriteString(fmt.Sprintf(format, a...))
}

// powerCutChild runs a store whose FlushedHook prints what each flush system call covered
// ("SYNC file position"; the checkpoint's 24 bytes as "CKPT hex"), and four putters that print
// every acknowledged put ("ACK key queueId queueOffset commitLogOffset end"), until killed.
func powerCutChild(dir, mode string) {
	var out lineWriter
	cfg := powerCutConfig(dir, mode)
	cfg.Events.Flushed = func(file string, pos int) {
		if file == "checkpoint" {
			b, err := os.ReadFile(filepath.Join(dir, "checkpoint")) // under the checkpoint's lock: the synced bytes
			if err == nil {
				out.printf("CKPT %s\n", hex.EncodeToString(b[:24]))
			}
			return
		}
		out.printf("SYNC %s %d\n", file, pos)
	}
	s := mustStart(cfg)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("K%d-%d", g, i)
				m := newMsg("Cut", int32(i%4), strings.Repeat("b", 50+i%400), "")
				m.Properties[propertyKeys] = key
				m.PropertiesString += "\x02KEYS\x01" + key
				r := s.PutMessage(m)
				if r.PutMessageStatus != PutOK {
					continue // e.g. the pool is short of buffers for a moment
				}
				a := r.AppendMessageResult
				out.printf("ACK %s %d %d %d %d\n", key, i%4, a.LogicsOffset, a.WroteOffset, a.WroteOffset+CommitLogOffset(a.WroteBytes))
			}
		}()
	}
	select {}
}

// cutAck is one acknowledged put.
type cutAck struct {
	key         string
	queueID     int32
	queueOffset int64
	phy, end    int64
}

// TestPowerCut asks what survives a power cut. A store runs in a child process with four
// putters and the services on; the test records what every flush system call covered, kills
// the child, and then plays the power cut on its files: every byte of a CommitLog, ConsumeQueue
// or index file past the last position a flush covered is zeroed (a file never flushed wholly),
// and the checkpoint goes back to its last flushed bytes. The store then recovers (abnormally:
// the abort file is there). Under SYNC_FLUSH every acknowledged message survives; under
// ASYNC_FLUSH (with and without the TransientStorePool) exactly the messages that lay past the
// flushed position are lost — the recovered log ends at the flushed position — and every
// acknowledged message below it survives. Either way the ConsumeQueues, the index and the
// checkpoint agree with the recovered log. Java: CommitLog#recoverAbnormally,
// GroupCommitService (PUT_OK only after the flush).
func TestPowerCut(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	cycles := 1 // ROCKETMQ_GO_CRASH_CYCLES=100 for the soak (.ci/soak)
	if v := os.Getenv("ROCKETMQ_GO_CRASH_CYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "ROCKETMQ_GO_CRASH_CYCLES")
		cycles = n
	}
	for _, mode := range []string{SyncFlush, AsyncFlush, modePool} {
		t.Run(mode, func(t *testing.T) {
			for c := range cycles {
				acked, lost := powerCut(t, mode)
				t.Logf("SOAK powercut mode=%s cycle=%d acked=%d lost=%d", mode, c, acked, lost) // .ci/soak collects these
			}
		})
	}
}

// powerCut runs one cut and returns how many puts were acknowledged and how many of those
// were lost (past the flushed end; none under SYNC_FLUSH).
func powerCut(t *testing.T, mode string) (acked, lostPastFlush int) {
	dir := t.TempDir()
	cmd, sc := startChild(t, powerCutChildEnv+"="+dir, powerCutModeEnv+"="+mode)

	synced := map[string]int{} // file (relative to the store root) → bytes known on disk
	var ckpt []byte
	var acks []cutAck
	killed := false
	logSynced := false // a CommitLog flush happened (a loaded machine can ack 3000 puts before the first)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch f[0] {
		case "SYNC":
			pos, _ := strconv.Atoi(f[2])
			synced[f[1]] = max(synced[f[1]], pos)
			logSynced = logSynced || strings.HasPrefix(f[1], "commitlog/") && pos > 0
		case "CKPT":
			var err error
			ckpt, err = hex.DecodeString(f[1])
			require.NoError(t, err)
		case "ACK":
			q, _ := strconv.Atoi(f[2])
			qo, _ := strconv.ParseInt(f[3], 10, 64)
			phy, _ := strconv.ParseInt(f[4], 10, 64)
			end, _ := strconv.ParseInt(f[5], 10, 64)
			acks = append(acks, cutAck{f[1], int32(q), qo, phy, end})
		}
		// writes stop: the process dies with puts, commits and flushes in flight
		if !killed && len(acks) >= 3000 && ckpt != nil && logSynced {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			killed = true
		}
	}
	_ = cmd.Wait()
	require.True(t, killed, "the child died before it was killed")

	// the power cut: what no flush covered is gone
	cfg := powerCutConfig(dir, mode)
	flushedEnd := int64(0) // the flushed part of the CommitLog is a prefix of the log
	for _, sub := range []string{"commitlog", "consumequeue", "index"} {
		require.NoError(t, filepath.Walk(filepath.Join(dir, sub), func(path string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			pos := synced[filepath.ToSlash(rel)]
			if sub == "commitlog" && pos > 0 {
				from, _ := strconv.ParseInt(info.Name(), 10, 64)
				flushedEnd = max(flushedEnd, from+int64(pos))
			}
			return zeroFrom(path, int64(pos), info.Size())
		}))
	}
	require.Positive(t, flushedEnd, "some CommitLog flush happened")
	if ckpt == nil {
		ckpt = make([]byte, 24)
	}
	f, err := os.OpenFile(filepath.Join(dir, "checkpoint"), os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(ckpt, 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	cfg.ManualServices = true
	s := openStore(t, cfg, nil, nil)
	if end := int64(s.GetMaxPhyOffset()); end != flushedEnd {
		// The put that wrote the BLANK record ending a file was killed before the next file
		// existed: recovery ends the log at the BLANK (Java: CommitLog#recover*, "recover
		// physics file over, last mapped file"), and the next put writes it again.
		size := int64(cfg.MappedFileSizeCommitLog)
		require.Zero(t, flushedEnd%size, "the log ends where the last flush ended (%d), or at the BLANK before it: %d", flushedEnd, end)
		rec := make([]byte, 8)
		f, err := os.Open(filepath.Join(dir, "commitlog", offset2FileName(end-end%size)))
		require.NoError(t, err)
		_, err = f.ReadAt(rec, end%size)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		require.Equal(t, uint32(flushedEnd-end), binary.BigEndian.Uint32(rec), "a BLANK record from the log's end to the flushed end")
		require.Equal(t, uint32(blankMagicCode), binary.BigEndian.Uint32(rec[4:]))
		_, err = os.Stat(filepath.Join(dir, "commitlog", offset2FileName(flushedEnd)))
		require.ErrorIs(t, err, os.ErrNotExist, "no file after the BLANK")
	}

	lost := 0
	for _, a := range acks {
		if a.end > flushedEnd {
			require.NotEqual(t, SyncFlush, mode, "%s: acknowledged under SYNC_FLUSH but not flushed", a.key)
			lost++
			continue
		}
		g := s.GetMessage("g", "Cut", a.queueID, QueueOffset(a.queueOffset), 1, nil)
		require.Equal(t, Found, g.Status, "%s lost", a.key)
		if len(g.Messages[0]) == 0 {
			u, ok := s.ReadConsumeQueueUnit("Cut", a.queueID, QueueOffset(a.queueOffset))
			t.Fatalf("%+v: unit %+v %v; min %d max %d", a, u, ok, s.GetMinOffsetInQueue("Cut", a.queueID), s.GetMaxOffsetInQueue("Cut", a.queueID))
		}
		m, err := decodeRecord(g.Messages[0])
		require.NoError(t, err)
		if a.phy != m.CommitLogOffset {
			u, ok := s.ReadConsumeQueueUnit("Cut", a.queueID, QueueOffset(a.queueOffset))
			t.Logf("%+v: unit %+v %v; min %d max %d; record %d q%d qo%d", a, u, ok, s.GetMinOffsetInQueue("Cut", a.queueID),
				s.GetMaxOffsetInQueue("Cut", a.queueID), m.CommitLogOffset, m.QueueID, m.QueueOffset)
			for k := a.queueOffset - 3; k < a.queueOffset+3; k++ {
				u, ok := s.ReadConsumeQueueUnit("Cut", a.queueID, QueueOffset(k))
				t.Logf("unit %d: %+v %v", k, u, ok)
			}
		}
		require.Equal(t, a.phy, m.CommitLogOffset, a.key)
		require.Equal(t, a.key, m.Properties[propertyKeys])
	}

	// ConsumeQueues, index and checkpoint agree with the recovered log, record for record
	perQueue := map[int32]int64{}
	var lastTs int64
	walkLog(t, s, func(off CommitLogOffset, rec []byte) {
		m, err := decodeRecord(rec)
		require.NoError(t, err)
		require.Equal(t, perQueue[m.QueueID], m.QueueOffset, "queue offsets run without gaps")
		require.Equal(t, off, s.GetCommitLogOffsetInQueue("Cut", m.QueueID, QueueOffset(m.QueueOffset)), "the unit points at the record")
		perQueue[m.QueueID]++
		q := s.QueryMessage("Cut", m.Properties[propertyKeys], 32, 0, 1<<62)
		if len(q.Messages) != 1 {
			for _, f := range s.indexService.IndexFiles() {
				t.Logf("index %s begin %d end %d phy %d..%d count %d", f.FileName(), f.BeginTimestamp(), f.EndTimestamp(), f.BeginPhyOffset(), f.EndPhyOffset(), f.IndexCount())
			}
			t.Logf("record %d ts %d; checkpoint %d %d %d", off, m.StoreTimestamp, s.Checkpoint().PhysicMsgTimestamp(), s.Checkpoint().LogicsMsgTimestamp(), s.Checkpoint().IndexMsgTimestamp())
		}
		require.Len(t, q.Messages, 1, "key %s in the index", m.Properties[propertyKeys])
		lastTs = m.StoreTimestamp
	})
	for q := int32(0); q < 4; q++ {
		require.Equal(t, QueueOffset(perQueue[q]), s.GetMaxOffsetInQueue("Cut", q), "queue %d has a unit per record", q)
	}
	require.LessOrEqual(t, s.Checkpoint().PhysicMsgTimestamp(), lastTs, "the checkpoint claims no lost message as flushed")

	// and the store goes on: new messages get the next queue offsets and index entries
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("N-%d", i)
		m := newMsg("Cut", int32(i%4), "after the cut", "")
		m.Properties[propertyKeys] = key
		m.Properties[primitive.PropertyWaitStoreMsgOK] = "false" // nobody drives the group commit here
		m.PropertiesString += "\x02KEYS\x01" + key
		r := put(t, s, m)
		require.Equal(t, QueueOffset(perQueue[int32(i%4)]), r.LogicsOffset)
		perQueue[int32(i%4)]++
		for !s.CommitCommitLog(0) { // with the pool a new file's bytes are readable once committed
		}
		s.DoReput()
		q := s.QueryMessage("Cut", key, 32, 0, 1<<62)
		require.Len(t, q.Messages, 1, "new key %s in the index", key)
	}
	t.Logf("%s: %d acknowledged, flushed up to %d of the log, %d lost past it", mode, len(acks), flushedEnd, lost)
	return len(acks), lost
}

// zeroFrom zeroes path from byte pos to size.
func zeroFrom(path string, pos, size int64) error {
	if pos >= size {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	zero := make([]byte, 64<<10)
	for off := pos; off < size; off += int64(len(zero)) {
		n := min(int64(len(zero)), size-off)
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			return err
		}
	}
	return nil
}

// walkLog calls fn for every record of the CommitLog from its min to its max offset, skipping
// the blank records at file ends.
func walkLog(t *testing.T, s *DefaultMessageStore, fn func(off CommitLogOffset, rec []byte)) {
	t.Helper()
	size := CommitLogOffset(s.cfg.MappedFileSizeCommitLog)
	for off := s.GetMinPhyOffset(); off < s.GetMaxPhyOffset(); {
		head, ok := s.commitLog.getMessage(off, 8)
		require.True(t, ok, "record at %d", off)
		n, magic := CommitLogOffset(binary.BigEndian.Uint32(head.Data)), binary.BigEndian.Uint32(head.Data[4:])
		head.Release()
		if magic == blankMagicCode {
			off += size - off%size
			continue
		}
		rec, ok := s.SelectOneMessageByOffset(off)
		require.True(t, ok, "record at %d", off)
		fn(off, rec)
		off += n
	}
}
