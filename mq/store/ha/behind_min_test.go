package ha

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

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
	now := time.Now()
	entries, err := os.ReadDir(filepath.Join(cfg.StorePathRootDir, "commitlog"))
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Chtimes(filepath.Join(cfg.StorePathRootDir, "commitlog", e.Name()), now, now))
	}
	clk.Advance(80 * time.Hour) // past fileReservedTime (72 h)
	s.ExecuteDeleteFilesManually()
	s.CleanFilesPeriodically()
	minOffset := s.GetMinPhyOffset()
	require.Greater(t, int64(minOffset), int64(4096), "the first files are gone")

	fake := dialFakeSlave(t, master)
	fake.report(t, 100)
	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), "below the master's first CommitLog file")
	}, 5*time.Second, 10*time.Millisecond)
	require.Contains(t, logs.String(), "slaveRequestOffset=100")
}
