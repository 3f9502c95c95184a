//go:build !race

package store

import (
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// TestHotPathAllocations pins the allocation budget of the hot paths with the trace off:
// a put allocates its result and the offsetMsgId string; dispatch allocates nothing per
// record; a pull allocates the copy buffer and its slices.
func TestHotPathAllocations(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 64 << 20
	cfg.MappedFileSizeConsumeQueue = 300000 * ConsumeQueueUnitSize
	s := openStore(t, cfg, nil, nil)
	m := newMsg("T", 0, strings.Repeat("x", 1024), "TagA")
	m.BornHostBytes = []byte{192, 168, 1, 20, 0, 0, 0xce, 0x4e}
	m.StoreHostBytes = []byte{192, 168, 1, 10, 0, 0, 0x2a, 0x9f}
	s.PutMessage(m)
	put := testing.AllocsPerRun(1000, func() { s.PutMessage(m) })
	require.LessOrEqual(t, put, 2.0, "PutMessage allocs")

	s.DoReput()
	for i := 0; i < 1000; i++ {
		s.PutMessage(m)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.DoReput()
	runtime.ReadMemStats(&after)
	require.Equal(t, QueueOffset(2002), s.GetMaxOffsetInQueue("T", 0))
	require.LessOrEqual(t, after.Mallocs-before.Mallocs, uint64(10), "DoReput of 1000 records")

	get := testing.AllocsPerRun(100, func() { s.GetMessage("g", "T", 0, 10, 32, nil) })
	require.LessOrEqual(t, get, 5.0, "GetMessage allocs")
}

// TestSlaveAppendAllocations: a slave's append (AppendToCommitLog) of a record allocates
// nothing once the file exists — the file names in its error texts are built only on error.
func TestSlaveAppendAllocations(t *testing.T) {
	master := openStore(t, smallConfig(t.TempDir()), nil, nil)
	var recs [][]byte
	for i := 0; i < 20; i++ {
		r := put(t, master, newMsg("T", 0, "m", ""))
		sel, ok := master.commitLog.getMessage(r.WroteOffset, int(r.WroteBytes))
		require.True(t, ok)
		recs = append(recs, append([]byte(nil), sel.Data...))
		sel.Release()
	}
	slaveCfg := smallConfig(t.TempDir())
	slaveCfg.BrokerRole = Slave
	slave := openStore(t, slaveCfg, nil, nil)
	at := CommitLogOffset(0)
	require.NoError(t, slave.AppendToCommitLog(at, recs[0]))
	at += CommitLogOffset(len(recs[0]))
	i := 1
	allocs := testing.AllocsPerRun(10, func() {
		if err := slave.AppendToCommitLog(at, recs[i]); err != nil {
			t.Fatal(err)
		}
		at += CommitLogOffset(len(recs[i]))
		i++
	})
	require.Zero(t, allocs)
}

// TestPutAllocationsWithIdleHub: a store whose tracer writes to a trace.Hub that no console
// page watches (mqbroker -dashboard) allocates on the put path exactly what a store without a
// tracer does — tracing costs nothing until a page subscribes.
func TestPutAllocationsWithIdleHub(t *testing.T) {
	allocs := func(tr *trace.Tracer) float64 {
		cfg := smallConfig(t.TempDir())
		cfg.MappedFileSizeCommitLog = 64 << 20
		s := openStore(t, cfg, nil, tr)
		m := newMsg("T", 0, strings.Repeat("x", 1024), "TagA")
		m.BornHostBytes = []byte{192, 168, 1, 20, 0, 0, 0xce, 0x4e}
		m.StoreHostBytes = []byte{192, 168, 1, 10, 0, 0, 0x2a, 0x9f}
		s.PutMessage(m)
		return testing.AllocsPerRun(1000, func() { s.PutMessage(m) })
	}
	hub := trace.NewHub(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	without := allocs(nil)
	with := allocs(trace.New(slog.New(hub), "broker-a"))
	require.Equal(t, without, with, "put allocations with an idle hub")

	cancel := hub.Subscribe(func(slog.Record) {})
	watched := allocs(trace.New(slog.New(hub), "broker-a"))
	cancel()
	require.Greater(t, watched, without, "a watched hub does build the steps (the comparison can fail)")
	t.Logf("allocations per put: no tracer %.0f, idle hub %.0f, watched hub %.0f", without, with, watched)
}
