package ha

import (
	"strconv"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// chapterSteps are chapter 9's mind-map steps in order (the chapter's steps file).
var chapterSteps = []string{
	"HAService#start", "AcceptSocketService#beginAccept", "AcceptSocketService#run", "HAClient#connectMaster",
	"HAClient#isTimeToReportOffset", "ReadSocketService#processReadEvent", "HAService#notifyTransferSome",
	"WriteSocketService#run", "WriteSocketService#transferData", "HAClient#processReadEvent",
	"HAClient#dispatchReadRequest", "CommitLog#submitReplicaRequest", "GroupTransferService#putRequest",
	"GroupTransferService#run", "GroupTransferService#doWaitTransfer",
}

// isChapterStep reports whether a label is one of chapterSteps.
func isChapterStep(label string) bool {
	for _, s := range chapterSteps {
		if s == label {
			return true
		}
	}
	return false
}

// TestSteppingByHand plays the package doc's "Stepping by hand" over real TCP with
// ManualServices and a manual clock: no goroutine of HA's own runs, each call does one step,
// and the trace is the same on every run — the first occurrences of chapter 9's steps come in
// the mind map's order, with the protocol's values (the slave reports 0, the master transfers
// the record from 0, the slave appends it at 0; a SYNC_MASTER put waits in
// GroupTransferService until the slave's report reached its end, then PUT_OK).
func TestSteppingByHand(t *testing.T) {
	rec := trace.NewRecorder()
	clk := clock.NewManualMillis(1700000000000)
	opts := store.Options{ManualServices: true, Clock: clk}
	master := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), opts, rec.Tracer("master"))
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = master.haAddr()
	slave := startNode(t, sc, opts, rec.Tracer("slave"))
	client := slave.ha.HAClient()

	require.NoError(t, client.Dial())
	conn, err := master.ha.AcceptSocketService().AcceptOne()
	require.NoError(t, err)
	require.True(t, client.ConnectMaster())
	require.True(t, client.ReportOnce(), "a new connection reports at once")
	require.False(t, client.ReportOnce(), "not again before haSendHeartbeatInterval")
	require.NoError(t, conn.ReadOnce())
	require.Equal(t, store.CommitLogOffset(0), conn.SlaveRequestOffset())

	r := master.store.PutMessage(msg(0, 0))
	require.Equal(t, store.PutOK, r.PutMessageStatus)
	end := master.store.GetMaxPhyOffset()
	sent, err := conn.TransferOnce()
	require.NoError(t, err)
	require.True(t, sent)
	require.NoError(t, client.ReadOnce())
	require.Equal(t, end, slave.store.GetMaxPhyOffset(), "the slave appended the record at 0")
	slave.store.DoReput()
	require.Equal(t, store.QueueOffset(1), slave.store.GetMaxOffsetInQueue("T", 0), "the slave's reput built its queue")
	sent, err = conn.TransferOnce()
	require.NoError(t, err)
	require.False(t, sent, "nothing new, no heartbeat due")

	master.store.Config().BrokerRole = store.SyncMaster
	require.NoError(t, conn.ReadOnce(), "the slave's report of its new max offset")
	require.Equal(t, end, master.ha.Push2SlaveMaxOffset())
	ch := master.store.AsyncPutMessage(msg(1, 1))
	select {
	case <-ch:
		t.Fatal("a SYNC_MASTER put waits for the slave")
	default:
	}
	require.Equal(t, 0, master.ha.GroupTransferService().DoWaitTransfer(), "not on the slave yet")
	_, err = conn.TransferOnce()
	require.NoError(t, err)
	require.NoError(t, client.ReadOnce())
	require.NoError(t, conn.ReadOnce())
	require.Equal(t, 1, master.ha.GroupTransferService().DoWaitTransfer())
	res := <-ch
	require.Equal(t, store.PutOK, res.PutMessageStatus)

	// past syncFlushTimeout on the store clock, a put the slave never got fails
	ch = master.store.AsyncPutMessage(msg(2, 2))
	clk.Advance(master.cfg.SyncFlushTimeout)
	require.Equal(t, 1, master.ha.GroupTransferService().DoWaitTransfer())
	require.Equal(t, store.FlushSlaveTimeout, (<-ch).PutMessageStatus)

	var firsts []string
	seen := map[string]bool{}
	for _, s := range rec.Steps() {
		if isChapterStep(s.Label) && !seen[s.Label] {
			seen[s.Label] = true
			firsts = append(firsts, s.Label)
		}
	}
	require.Equal(t, chapterSteps, firsts)
	size := strconv.Itoa(int(end))
	require.Equal(t, map[string]string{"masterPhyOffset": "0", "bodySize": size, "slaveMaxOffset": "0"},
		stepAttrs(rec, "HAClient#dispatchReadRequest"))
	require.Equal(t, map[string]string{"transferFrom": "0", "bodySize": size}, stepAttrs(rec, "WriteSocketService#transferData"))
}

// stepAttrs are the attributes of the first step with label.
func stepAttrs(rec *trace.Recorder, label string) map[string]string {
	for _, s := range rec.Steps() {
		if s.Label == label {
			return s.Attrs
		}
	}
	return nil
}
