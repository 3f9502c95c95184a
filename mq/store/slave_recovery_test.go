package store

import (
	"bytes"
	"fmt"
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
