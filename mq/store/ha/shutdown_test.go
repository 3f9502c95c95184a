package ha

import (
	"runtime"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/stretchr/testify/require"
)

// TestShutdownLeavesNoGoroutine: a SYNC_MASTER with a replicating slave, a second connection
// that never reports (its loops blocked in a read and a wait) and a put waiting in
// GroupTransferService for syncFlushTimeout (30 s here) shuts down promptly: the waiting put
// is answered FLUSH_SLAVE_TIMEOUT, and once both stores and HA services are shut down no
// goroutine of theirs is left (accept loop, read and write loops, GroupTransferService, HAClient,
// the store's services). Java: HAService#shutdown (acceptSocketService, connections,
// groupTransferService, haClient).
func TestShutdownLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	mc := testConfig(t.TempDir(), store.SyncMaster)
	mc.SyncFlushTimeout = 30 * time.Second
	master := startNode(t, mc, store.Options{}, nil)
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = master.haAddr()
	slave := startNode(t, sc, store.Options{}, nil)
	waitReported(t, master, 1)
	putN(t, master.store, 0, 10, store.PutOK)

	slave.stop()
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 0 }, 10*time.Second, 10*time.Millisecond)
	silent := dialFakeSlave(t, master)
	require.Eventually(t, func() bool { return master.ha.ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
	pending := master.store.AsyncPutMessage(msg(0, 10))
	require.Eventually(t, func() bool {
		return master.ha.GroupTransferService().PendingRequests() == 0 &&
			master.store.GetMaxPhyOffset() > master.ha.Push2SlaveMaxOffset()
	}, 5*time.Second, 10*time.Millisecond)

	start := time.Now()
	master.stop()
	select {
	case r := <-pending:
		require.Equal(t, store.FlushSlaveTimeout, r.PutMessageStatus)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting put was not answered at shutdown")
	}
	require.Less(t, time.Since(start), 5*time.Second, "shutdown does not wait for syncFlushTimeout")
	_ = silent.conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left after shutdown (%d before):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
	}
}
