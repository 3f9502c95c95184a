package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSlaveRecoversTornTail: a slave's CommitLog may end inside a record (HA transfers in
// batches of haTransferBatchSize that need not end on a record). Stopped there — cleanly or
// as a killed process — and opened again, the slave's log ends at a record boundary no later
// than the torn end and no earlier than the last whole record, so appending the master's bytes
// from the slave's max offset (what HAClient reports after a restart) makes it byte-identical
// to the master, with the same ConsumeQueue units. Java: CommitLog#recoverNormally /
// #recoverAbnormally truncating the torn record, HAClient#connectMaster (currentReportedOffset
// = the store's max physical offset).
func TestSlaveRecoversTornTail(t *testing.T) {
	t.Run("clean", func(t *testing.T) { slaveTornTail(t, (*DefaultMessageStore).Shutdown) })
	t.Run("crash", func(t *testing.T) { slaveTornTail(t, crashStore) })
}

// slaveTornTail is TestSlaveRecoversTornTail with the slave stopped by stop.
func slaveTornTail(t *testing.T, stop func(*DefaultMessageStore)) {
	t.Helper()
	master := openStore(t, smallConfig(t.TempDir()), nil, nil)
	var ends []CommitLogOffset
	for i := range 3 {
		r := put(t, master, newMsg("T", int32(i%2), fmt.Sprintf("body-%d", i), "TagA"))
		ends = append(ends, r.WroteOffset+CommitLogOffset(r.WroteBytes))
	}
	master.DoReput()
	all, ok := master.GetCommitLogData(0)
	require.True(t, ok)
	masterBytes := bytes.Clone(all.Data)
	all.Release()
	require.Equal(t, int(ends[2]), len(masterBytes))

	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole = Slave
	slave := openStore(t, cfg, nil, nil)
	torn := int(ends[1]) + 10 // the third record's first 10 bytes
	require.NoError(t, slave.AppendToCommitLog(0, masterBytes[:torn]))
	slave.DoReput()
	require.Equal(t, QueueOffset(1), slave.GetMaxOffsetInQueue("T", 1), "the torn record is not dispatched")
	stop(slave)

	again := openStore(t, cfg, nil, nil)
	from := again.GetMaxPhyOffset()
	require.GreaterOrEqual(t, int64(from), int64(ends[1]), "whole records survive")
	require.LessOrEqual(t, int(from), torn)
	require.NoError(t, again.AppendToCommitLog(from, masterBytes[from:]))
	again.DoReput()
	require.Equal(t, ends[2], again.GetMaxPhyOffset())
	got, ok := again.GetCommitLogData(0)
	require.True(t, ok)
	require.Equal(t, masterBytes, bytes.Clone(got.Data), "byte-identical to the master")
	got.Release()
	for q := int32(0); q < 2; q++ {
		require.Equal(t, master.GetMaxOffsetInQueue("T", q), again.GetMaxOffsetInQueue("T", q), "queue %d", q)
		for i := QueueOffset(0); i < master.GetMaxOffsetInQueue("T", q); i++ {
			mu, ok1 := master.ReadConsumeQueueUnit("T", q, i)
			su, ok2 := again.ReadConsumeQueueUnit("T", q, i)
			require.True(t, ok1 && ok2)
			require.Equal(t, mu, su, "queue %d unit %d", q, i)
		}
	}
}

// TestSlaveAppendNamesFileSize: a master's bytes that do not fit the slave's files (a slave
// configured with another mappedFileSizeCommitLog than its master) are refused with an error
// naming the slave's file size, nothing written.
func TestSlaveAppendNamesFileSize(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole = Slave
	s := openStore(t, cfg, nil, nil)
	err := s.AppendToCommitLog(6144, make([]byte, 100)) // a file start of 2 KiB or 6 KiB files
	require.ErrorContains(t, err, "mappedFileSizeCommitLog=4096")
	err = s.AppendToCommitLog(0, make([]byte, 5000)) // a body from an 8 KiB file
	require.ErrorContains(t, err, "mappedFileSizeCommitLog=4096")
	require.Equal(t, CommitLogOffset(0), s.GetMaxPhyOffset())
}

// TestSlaveAppendRefusesSmallerMasterFiles: a slave with larger CommitLog files than its
// master's gets the master's end-of-file BLANK record inside its own file; its reput would
// take it for the end of the file and never dispatch what the master sends after it. The
// append is refused with ErrFileSizeMismatch naming the record's position and the slave's
// mappedFileSizeCommitLog, nothing written past the records before it; the slave's reput
// dispatched every record it holds.
func TestSlaveAppendRefusesSmallerMasterFiles(t *testing.T) {
	master := openStore(t, smallConfig(t.TempDir()), nil, nil) // 4 KiB files
	var firstOfSecondFile CommitLogOffset
	for i := 0; firstOfSecondFile == 0; i++ {
		r := put(t, master, newMsg("T", 0, fmt.Sprintf("body-%03d-%s", i, strings.Repeat("x", 200)), "TagA"))
		if r.WroteOffset >= 4096 {
			firstOfSecondFile = r.WroteOffset
		}
	}
	require.Equal(t, CommitLogOffset(4096), firstOfSecondFile)
	put(t, master, newMsg("T", 0, "after the roll", "TagA"))
	master.DoReput()
	first, ok := master.GetCommitLogData(0)
	require.True(t, ok)
	file0 := bytes.Clone(first.Data)
	first.Release()
	require.Len(t, file0, 4096, "the master's first file, its BLANK record included")
	second, ok := master.GetCommitLogData(4096)
	require.True(t, ok)
	file1 := bytes.Clone(second.Data)
	second.Release()

	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole, cfg.MappedFileSizeCommitLog = Slave, 8192
	slave := openStore(t, cfg, nil, nil)
	blankAt := lastRecordStart(t, file0)
	require.NoError(t, slave.AppendToCommitLog(0, file0[:blankAt]), "whole records before the BLANK record")
	err := slave.AppendToCommitLog(CommitLogOffset(blankAt), file0[blankAt:])
	require.ErrorIs(t, err, ErrFileSizeMismatch)
	require.ErrorContains(t, err, fmt.Sprintf("BLANK record at %d", blankAt))
	require.ErrorContains(t, err, "mappedFileSizeCommitLog=8192")
	require.Equal(t, CommitLogOffset(blankAt), slave.GetMaxPhyOffset(), "nothing written past the records")
	err = slave.AppendToCommitLog(CommitLogOffset(blankAt), file0[blankAt:])
	require.ErrorIs(t, err, ErrFileSizeMismatch, "refused again, as a reconnecting HAClient is")
	require.Error(t, slave.AppendToCommitLog(4096, file1), "the log ends at the BLANK record")
	slave.DoReput()
	require.Equal(t, master.GetMaxOffsetInQueue("T", 0)-2, slave.GetMaxOffsetInQueue("T", 0),
		"every record of the slave dispatched")

	// one batch holding records and the BLANK record: refused whole
	cfg2 := smallConfig(t.TempDir())
	cfg2.BrokerRole, cfg2.MappedFileSizeCommitLog = Slave, 8192
	other := openStore(t, cfg2, nil, nil)
	require.ErrorIs(t, other.AppendToCommitLog(0, file0), ErrFileSizeMismatch)
	require.Equal(t, CommitLogOffset(0), other.GetMaxPhyOffset())
}

// lastRecordStart is where the BLANK record of a full CommitLog file starts.
func lastRecordStart(t *testing.T, file []byte) int {
	t.Helper()
	for p := 0; p+8 <= len(file); {
		size := int(binary.BigEndian.Uint32(file[p:]))
		if binary.BigEndian.Uint32(file[p+4:]) == blankMagicCode {
			return p
		}
		require.Positive(t, size)
		p += size
	}
	t.Fatal("no BLANK record")
	return 0
}

// TestSlaveRecoveryCutsAtSmallerMasterBlank: a slave store written without appendData's check
// (by RocketMQ, or before it) from a master with smaller files holds the master's BLANK record
// inside its first file, and more records after it, into a second file. Opened again —
// cleanly or after a crash — its log ends at that BLANK record (the records behind it, which
// its reput never dispatched, are cut; the master still has them), and HA's next append there
// is refused with ErrFileSizeMismatch.
func TestSlaveRecoveryCutsAtSmallerMasterBlank(t *testing.T) {
	t.Run("clean", func(t *testing.T) { slaveSmallerMasterBlank(t, (*DefaultMessageStore).Shutdown) })
	t.Run("crash", func(t *testing.T) { slaveSmallerMasterBlank(t, crashStore) })
}

// slaveSmallerMasterBlank is TestSlaveRecoveryCutsAtSmallerMasterBlank with the slave stopped by stop.
func slaveSmallerMasterBlank(t *testing.T, stop func(*DefaultMessageStore)) {
	t.Helper()
	master := openStore(t, smallConfig(t.TempDir()), nil, nil) // 4 KiB files
	for i := 0; master.GetMaxPhyOffset() < 8192+1000; i++ {
		put(t, master, newMsg("T", 0, fmt.Sprintf("body-%03d-%s", i, strings.Repeat("x", 200)), "TagA"))
	}
	var all []byte
	for off := CommitLogOffset(0); off < master.GetMaxPhyOffset(); {
		r, ok := master.GetCommitLogData(off)
		require.True(t, ok)
		all = append(all, r.Data...)
		off += CommitLogOffset(len(r.Data))
		r.Release()
	}
	blankAt := lastRecordStart(t, all[:4096])

	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole, cfg.MappedFileSizeCommitLog = Slave, 8192
	slave := openStore(t, cfg, nil, nil)
	for _, part := range [][2]int{{0, 8192}, {8192, len(all)}} { // raw, as an unchecked slave wrote them
		mf, err := slave.commitLog.mfq.getLastMappedFile(int64(part[0]), true)
		require.NoError(t, err)
		require.True(t, mf.appendBytes(all[part[0]:part[1]]))
	}
	slave.DoReput()
	require.Equal(t, CommitLogOffset(len(all)), slave.GetMaxPhyOffset())
	stop(slave)

	again := openStore(t, cfg, nil, nil)
	require.Equal(t, CommitLogOffset(blankAt), again.GetMaxPhyOffset(), "the log ends at the BLANK record")
	again.DoReput()
	cut := 0
	for p := 0; p < blankAt; cut++ {
		p += int(binary.BigEndian.Uint32(all[p:]))
	}
	require.Equal(t, QueueOffset(cut), again.GetMaxOffsetInQueue("T", 0), "the records before it stay dispatched")
	require.ErrorIs(t, again.AppendToCommitLog(CommitLogOffset(blankAt), all[blankAt:4096]), ErrFileSizeMismatch)
	require.Equal(t, CommitLogOffset(blankAt), again.GetMaxPhyOffset())
}
