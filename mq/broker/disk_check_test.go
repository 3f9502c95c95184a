package broker

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestFreshBrokerDiskCheck: a broker started on a fresh store directory measures its disk from
// the first check — a used fraction in (0, 1) — and a pass of the clean service and of the
// disk check logs no warning (the store's directories exist from the start, as in Java; a
// missing one read as a full disk and warned every cleanResourceInterval). Java:
// DefaultMessageStore#cleanFilesPeriodically, CleanCommitLogService#isSpaceFull.
func TestFreshBrokerDiskCheck(t *testing.T) {
	var log bytes.Buffer // read after Shutdown, when no goroutine writes any more
	h := slog.NewTextHandler(&trace.SyncWriter{W: &log}, &slog.HandlerOptions{Level: slog.LevelInfo})
	tr := trace.New(slog.New(h), "broker-a")
	tb := startTestBroker(t, tr, func(_ *BrokerConfig, s storeSetup) {
		s.DiskUsage = nil // statfs, as in production
		// the highest setting: the test does not depend on how full this machine's disk is
		s.DiskMaxUsedSpaceRatio = 95
	})
	ms := tb.b.MessageStore()
	ms.CleanFilesPeriodically()
	require.False(t, ms.IsSpaceFull())
	require.False(t, ms.IsDiskFull())
	used := []float64{ms.CommitLogDiskRatio(), ms.ConsumeQueueDiskRatio()}
	tb.b.Shutdown()
	require.NotContains(t, log.String(), "level=WARN")
	require.NotContains(t, log.String(), "level=ERROR")
	for _, u := range used {
		require.Greater(t, u, 0.0)
		require.Less(t, u, 1.0)
	}
	require.Contains(t, log.String(), "store preallocates disk")
}
