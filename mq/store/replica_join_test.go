package store

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/stretchr/testify/require"
)

// fakeReplica is a ReplicaService whose slave is there or not (ok) and whose requests the test
// completes by hand.
type fakeReplica struct {
	ok   bool
	reqs []*GroupCommitRequest
}

func (f *fakeReplica) IsSlaveOK(CommitLogOffset) bool     { return f.ok }
func (f *fakeReplica) PutRequest(req *GroupCommitRequest) { f.reqs = append(f.reqs, req) }

// TestSyncMasterJoinsFlushAndReplica: a SYNC_MASTER put under SYNC_FLUSH waits for both its
// flush and its slave and answers once both completed: the replication's status when it is not
// PUT_OK (SLAVE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT), else the flush's (FLUSH_DISK_TIMEOUT), else
// PUT_OK; under ASYNC_FLUSH only the slave is waited for; a WAIT=false put and an ASYNC_MASTER
// put never ask the ReplicaService. Java: CommitLog#asyncPutMessage (flushResultFuture
// .thenCombine(replicaResultFuture)), CommitLog#submitReplicaRequest.
func TestSyncMasterJoinsFlushAndReplica(t *testing.T) {
	var clk clock.Manual
	cfg := syncConfig(t.TempDir(), &clk)
	cfg.BrokerRole = SyncMaster
	s := openStore(t, cfg, nil, nil)
	rep := &fakeReplica{}
	s.CommitLog().SetReplicaService(rep)
	flush := func() { s.GroupCommitService().RunOnce() }

	// no slave: stored, answered SLAVE_NOT_AVAILABLE once flushed
	ch := s.AsyncPutMessage(newMsg("T", 0, "a", ""))
	require.Empty(t, rep.reqs)
	pending(t, ch)
	flush()
	require.Equal(t, SlaveNotAvailable, (<-ch).PutMessageStatus)

	// a slave: flushed first, then acknowledged → PUT_OK
	rep.ok = true
	ch = s.AsyncPutMessage(newMsg("T", 0, "b", ""))
	require.Len(t, rep.reqs, 1)
	require.Equal(t, s.GetMaxPhyOffset(), rep.reqs[0].NextOffset(), "the end of the put's record")
	flush()
	pending(t, ch)
	require.True(t, rep.reqs[0].WakeupCustomer(PutOK))
	require.False(t, rep.reqs[0].WakeupCustomer(FlushSlaveTimeout), "once only")
	r := <-ch
	require.Equal(t, PutOK, r.PutMessageStatus)
	require.NotNil(t, r.AppendMessageResult)

	// acknowledged first, flushed then; the slave timed out → FLUSH_SLAVE_TIMEOUT
	ch = s.AsyncPutMessage(newMsg("T", 0, "c", ""))
	rep.reqs[1].WakeupCustomer(FlushSlaveTimeout)
	pending(t, ch)
	flush()
	require.Equal(t, FlushSlaveTimeout, (<-ch).PutMessageStatus)

	// the flush timed out, the slave has it → FLUSH_DISK_TIMEOUT
	ch = s.AsyncPutMessage(newMsg("T", 0, "d", ""))
	clk.Advance(cfg.SyncFlushTimeout)
	require.Equal(t, 1, s.FlushDiskWatcher().RunOnce())
	pending(t, ch)
	rep.reqs[2].WakeupCustomer(PutOK)
	require.Equal(t, FlushDiskTimeout, (<-ch).PutMessageStatus)
	flush()

	// WAIT=false: neither waited for nor replicated through a request
	m := newMsg("T", 0, "e", "")
	m.Properties["WAIT"] = "false"
	require.Equal(t, PutOK, s.PutMessage(m).PutMessageStatus)
	require.Len(t, rep.reqs, 3)

	// ASYNC_MASTER: never asks
	s.Config().BrokerRole = AsyncMaster
	ch = s.AsyncPutMessage(newMsg("T", 0, "f", ""))
	flush()
	require.Equal(t, PutOK, (<-ch).PutMessageStatus)
	require.Len(t, rep.reqs, 3)
}

// TestSyncMasterAsyncFlushWaitsForSlaveOnly: under ASYNC_FLUSH a SYNC_MASTER put's answer is
// its replication request's. Java: CommitLog#asyncPutMessage.
func TestSyncMasterAsyncFlushWaitsForSlaveOnly(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.BrokerRole = SyncMaster
	s := openStore(t, cfg, nil, nil)
	rep := &fakeReplica{ok: true}
	s.CommitLog().SetReplicaService(rep)
	ch := s.AsyncPutMessage(newMsg("T", 0, "a", ""))
	require.Len(t, rep.reqs, 1)
	pending(t, ch) // nothing completes it but the slave's request
	rep.reqs[0].WakeupCustomer(PutOK)
	require.Equal(t, PutOK, (<-ch).PutMessageStatus)
	rep.ok = false
	require.Equal(t, SlaveNotAvailable, s.PutMessage(newMsg("T", 0, "b", "")).PutMessageStatus)
}
