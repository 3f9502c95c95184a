package broker

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// lockedText is a log written by the broker's goroutines and read by the test.
type lockedText struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFreshBrokerDiskCheck: a broker started on a fresh store directory measures its disk from
// the first check — a used fraction in (0, 1) — and a pass of the clean service and of the
// disk check logs no warning (the store's directories exist from the start, as in Java; a
// missing one read as a full disk and warned every cleanResourceInterval). Java:
// DefaultMessageStore#cleanFilesPeriodically, CleanCommitLogService#isSpaceFull.
func TestFreshBrokerDiskCheck(t *testing.T) {
	log := &lockedText{}
	tr := trace.New(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo})), "broker-a")
	tb := startTestBroker(t, tr, func(_ *BrokerConfig, s storeSetup) {
		s.DiskUsage = nil // statfs, as in production
		// the highest setting: the test does not depend on how full this machine's disk is
		s.DiskMaxUsedSpaceRatio = 95
	})
	ms := tb.b.MessageStore()
	ms.CleanFilesPeriodically()
	require.False(t, ms.IsSpaceFull())
	require.False(t, ms.IsDiskFull())
	require.NotContains(t, log.String(), "level=WARN")
	require.NotContains(t, log.String(), "level=ERROR")
	for _, used := range []float64{ms.CommitLogDiskRatio(), ms.ConsumeQueueDiskRatio()} {
		require.Greater(t, used, 0.0)
		require.Less(t, used, 1.0)
	}
	require.Contains(t, log.String(), "store preallocates disk")
}
