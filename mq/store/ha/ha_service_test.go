package ha

import (
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
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
	require.Eventually(t, func() bool {
		return slave.store.GetMaxOffsetInQueue("T", 3) == master.store.GetMaxOffsetInQueue("T", 3)
	},
		5*time.Second, 10*time.Millisecond)
	for q := int32(0); q < 4; q++ {
		require.Equal(t, store.QueueOffset(15), slave.store.GetMaxOffsetInQueue("T", q))
		for i := store.QueueOffset(0); i < 15; i++ {
			mu, ok1 := master.store.ReadConsumeQueueUnit("T", q, i)
			su, ok2 := slave.store.ReadConsumeQueueUnit("T", q, i)
			require.True(t, ok1 && ok2)
			require.Equal(t, mu, su, "queue %d unit %d", q, i)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
