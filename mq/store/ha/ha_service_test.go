package ha

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// TestReplicationByteIdentical: after N puts (several CommitLog files) the slave's CommitLog
// files are byte-identical to the master's, and its reput built ConsumeQueues answering the
// same units (same CommitLog offset and size per queue offset). Java: HAConnection /
// HAClient transfer the CommitLog verbatim; the slave's ReputMessageService builds its queues.
func TestReplicationByteIdentical(t *testing.T) {
	master, slave := startPair(t, store.AsyncMaster)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
	putN(t, master.store, 0, 60, store.PutOK)
	end := master.store.GetMaxPhyOffset()
	require.Greater(t, int64(end), int64(3*4096), "the puts fill several files")
	require.Eventually(t, func() bool { return slave.store.GetMaxPhyOffset() == end }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return master.ha.Push2SlaveMaxOffset() == end }, 5*time.Second, 10*time.Millisecond)

	mf, sf := commitLogFiles(t, master.dir), commitLogFiles(t, slave.dir)
	require.Equal(t, names(mf), names(sf))
	for name, b := range mf {
		require.True(t, bytesEqual(b, sf[name]), "file %s differs", name)
	}
	for _, n := range []*node{master, slave} { // both reputs dispatched everything
		require.Eventually(t, func() bool { return n.store.DispatchBehindBytes() == 0 }, 5*time.Second, 10*time.Millisecond)
	}
	for q := int32(0); q < 4; q++ {
		require.Equal(t, store.QueueOffset(15), slave.store.GetMaxOffsetInQueue("T", q), "queue %d", q)
		for i := store.QueueOffset(0); i < 15; i++ {
			mu, ok1 := master.store.ReadConsumeQueueUnit("T", q, i)
			su, ok2 := slave.store.ReadConsumeQueueUnit("T", q, i)
			require.True(t, ok1 && ok2)
			require.Equal(t, mu, su, "queue %d unit %d", q, i)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestSlaveRestartResumes: a slave restarted on its store resumes from its own max offset —
// its first report is that offset and the master transfers from there, not from 0 — and ends
// byte-identical again. Java: HAClient#connectMaster (currentReportedOffset = the store's max
// physical offset), WriteSocketService#run (nextTransferFromWhere = slaveRequestOffset).
func TestSlaveRestartResumes(t *testing.T) {
	master, slave := startPair(t, store.AsyncMaster)
	putN(t, master.store, 0, 30, store.PutOK)
	end := master.store.GetMaxPhyOffset()
	require.Eventually(t, func() bool { return slave.store.GetMaxPhyOffset() == end }, 10*time.Second, 10*time.Millisecond)
	slave.stop()
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 0 }, 10*time.Second, 10*time.Millisecond)

	putN(t, master.store, 30, 30, store.PutOK)
	again := startNode(t, slave.cfg, store.Options{}, nil)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 10*time.Second, 10*time.Millisecond)
	conn := master.ha.Connections()[0]
	require.Eventually(t, func() bool { return conn.SlaveRequestOffset() >= 0 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, end, conn.SlaveRequestOffset(), "the restarted slave asks for what it lacks")
	end2 := master.store.GetMaxPhyOffset()
	require.Eventually(t, func() bool { return again.store.GetMaxPhyOffset() == end2 }, 10*time.Second, 10*time.Millisecond)
	mf, sf := commitLogFiles(t, master.dir), commitLogFiles(t, again.dir)
	require.Equal(t, names(mf), names(sf))
	for name, b := range mf {
		require.True(t, bytesEqual(b, sf[name]), "file %s differs", name)
	}
}

// TestSyncMasterWithoutSlave: a SYNC_MASTER put with no slave connected is stored but
// answered SLAVE_NOT_AVAILABLE at once. Java: CommitLog#submitReplicaRequest (isSlaveOK false).
func TestSyncMasterWithoutSlave(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.SyncMaster), store.Options{}, nil)
	r := master.store.PutMessage(msg(0, 0))
	require.Equal(t, store.SlaveNotAvailable, r.PutMessageStatus)
	require.NotNil(t, r.AppendMessageResult, "stored all the same")
	require.Equal(t, r.AppendMessageResult.WroteOffset+store.CommitLogOffset(r.AppendMessageResult.WroteBytes), master.store.GetMaxPhyOffset())
}

// TestSyncMasterWithSlave: with a live slave every SYNC_MASTER put answers PUT_OK, and then the
// slave holds its bytes (push2SlaveMaxOffset reached the put's end); with SYNC_FLUSH as well
// both waits are joined. Java: GroupTransferService#doWaitTransfer.
func TestSyncMasterWithSlave(t *testing.T) {
	for _, flush := range []string{store.AsyncFlush, store.SyncFlush} {
		t.Run(flush, func(t *testing.T) {
			mc := testConfig(t.TempDir(), store.SyncMaster)
			mc.FlushDiskType = flush
			master := startNode(t, mc, store.Options{}, nil)
			sc := testConfig(t.TempDir(), store.Slave)
			sc.HaMasterAddress = master.haAddr()
			startNode(t, sc, store.Options{}, nil)
			require.Eventually(t, func() bool { return master.ha.IsSlaveOK(master.store.GetMaxPhyOffset()) }, 10*time.Second, 10*time.Millisecond)
			for i := 0; i < 20; i++ {
				r := master.store.PutMessage(msg(int32(i%4), i))
				require.Equal(t, store.PutOK, r.PutMessageStatus, "put %d", i)
				a := r.AppendMessageResult
				require.GreaterOrEqual(t, int64(master.ha.Push2SlaveMaxOffset()), int64(a.WroteOffset)+int64(a.WroteBytes))
			}
		})
	}
}

// TestSyncMasterSlaveStopsReading: a slave that connected and reported but then neither reads
// nor reports leaves a SYNC_MASTER put waiting; it is answered FLUSH_SLAVE_TIMEOUT once
// syncFlushTimeout (1 s here) passed, not before. Java: GroupTransferService#doWaitTransfer
// (deadline), CommitLog#handleHA.
func TestSyncMasterSlaveStopsReading(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.SyncMaster), store.Options{}, nil)
	fake := dialFakeSlave(t, master)
	fake.report(t, 0)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
	start := time.Now()
	r := master.store.PutMessage(msg(0, 0))
	took := time.Since(start)
	require.Equal(t, store.FlushSlaveTimeout, r.PutMessageStatus)
	require.GreaterOrEqual(t, took, master.cfg.SyncFlushTimeout, "answered after syncFlushTimeout")
	require.Less(t, took, master.cfg.SyncFlushTimeout+2*time.Second)
}

// TestNewSlaveStartsAtMastersLastFile: an empty slave (it reports 0) joining a master that
// already holds several CommitLog files gets the master's last file from its start, as Java
// does, not the whole log; its files are copies of the master's from there, and its reput
// builds ConsumeQueues whose units from there match the master's.
// Java: WriteSocketService#run (slaveRequestOffset 0 → masterOffset - masterOffset % fileSize).
func TestNewSlaveStartsAtMastersLastFile(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil)
	putN(t, master.store, 0, 60, store.PutOK)
	end := master.store.GetMaxPhyOffset()
	lastFile := store.CommitLogOffset(int64(end) - int64(end)%4096)
	require.Positive(t, int64(lastFile))

	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = master.haAddr()
	slave := startNode(t, sc, store.Options{}, nil)
	require.Eventually(t, func() bool { return slave.store.GetMaxPhyOffset() == end }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, lastFile, slave.store.GetMinPhyOffset(), "the slave's log starts at the master's last file")
	mf, sf := commitLogFiles(t, master.dir), commitLogFiles(t, slave.dir)
	first := fmt.Sprintf("%020d", lastFile)
	require.Equal(t, first, names(sf)[0], "no file before the master's last one")
	for name, b := range sf { // the master's last file and the next one, allocated ahead
		require.True(t, bytesEqual(b, mf[name]), "file %s differs", name)
	}
	// queues with records in that file: the slave's units from the first of them match the master's
	withUnits := 0
	for _, n := range []*node{master, slave} {
		require.Eventually(t, func() bool { return n.store.DispatchBehindBytes() == 0 }, 5*time.Second, 10*time.Millisecond)
	}
	for q := int32(0); q < 4; q++ {
		smax, smin := slave.store.GetMaxOffsetInQueue("T", q), slave.store.GetMinOffsetInQueue("T", q)
		if smax == 0 {
			continue
		}
		withUnits++
		require.Equal(t, master.store.GetMaxOffsetInQueue("T", q), smax, "queue %d", q)
		require.Positive(t, int64(smin), "queue %d: the slave's queue starts where its log does", q)
		for i := smin; i < smax; i++ {
			u, ok1 := master.store.ReadConsumeQueueUnit("T", q, i)
			su, ok2 := slave.store.ReadConsumeQueueUnit("T", q, i)
			require.True(t, ok1 && ok2, "queue %d unit %d", q, i)
			require.Equal(t, u, su)
			require.GreaterOrEqual(t, int64(su.CommitLogOffset), int64(lastFile))
		}
	}
	require.Positive(t, withUnits)
}

// TestHousekeeping: a slave that reports once and then stays silent is dropped after
// haHousekeepingInterval (2 s here); a real slave on an idle master is not (the master's
// heartbeats and the slave's reports keep both sides alive). Java: ReadSocketService#run
// (housekeeping), WriteSocketService#run (heartbeat header), HAClient#isTimeToReportOffset.
func TestHousekeeping(t *testing.T) {
	master, _ := startPair(t, store.AsyncMaster)
	real := master.ha.Connections()[0]
	fake := dialFakeSlave(t, master)
	fake.report(t, 0)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 2 }, 5*time.Second, 10*time.Millisecond)
	start := time.Now()
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 10*time.Second, 20*time.Millisecond)
	require.GreaterOrEqual(t, time.Since(start), master.cfg.HaHousekeepingInterval-500*time.Millisecond, "not before the interval")
	time.Sleep(master.cfg.HaHousekeepingInterval / 2)
	require.Equal(t, []*HAConnection{real}, master.ha.Connections(), "the live slave's connection stays")
	select {
	case <-real.Done():
		t.Fatal("the live slave was dropped")
	default:
	}
}

// TestSlaveBelowMastersFirstFileIsLogged: a slave asking for an offset whose CommitLog file
// the master already deleted can never catch up (the master has nothing to send it but
// heartbeats, as in Java); the master says so in its log, with the offsets, instead of
// staying silent.
func TestSlaveBelowMastersFirstFileIsLogged(t *testing.T) {
	clk := clock.NewManualMillis(time.Now().UnixMilli())
	cfg := testConfig(t.TempDir(), store.AsyncMaster)
	cfg.DeleteCommitLogFilesInterval = 0
	s, err := store.NewDefaultMessageStore(cfg, store.Options{Clock: clk}, nil, nil)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	logs := &trace.SyncWriter{W: &bytes.Buffer{}}
	h := NewHAService(s, nil, slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, s.Start())
	require.NoError(t, h.Start())
	master := &node{dir: cfg.StorePathRootDir, cfg: cfg, store: s, ha: h}
	t.Cleanup(master.stop)

	putN(t, s, 0, 60, store.PutOK)
	clk.Advance(80 * time.Hour) // the files were written "now": 80 h is past fileReservedTime (72 h)
	s.ExecuteDeleteFilesManually()
	s.CleanFilesPeriodically()
	minOffset := s.GetMinPhyOffset()
	require.Greater(t, int64(minOffset), int64(4096), "the first files are gone")

	fake := dialFakeSlave(t, master)
	fake.report(t, 100)
	require.Eventually(t, func() bool {
		return bytes.Contains([]byte(logs.String()), []byte("below the master's first CommitLog file"))
	}, 5*time.Second, 10*time.Millisecond)
	require.Contains(t, logs.String(), "slaveRequestOffset=100")
}
