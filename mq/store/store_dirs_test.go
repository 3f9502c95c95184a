package store

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// infoLog is a store tracer whose logger keeps the operating log (INFO and above) as text;
// read it after Shutdown, when no store goroutine writes any more.
func infoLog() (*trace.Tracer, *bytes.Buffer) {
	var log bytes.Buffer
	h := slog.NewTextHandler(&trace.SyncWriter{W: &log}, &slog.HandlerOptions{Level: slog.LevelInfo})
	return trace.New(slog.New(h), "b"), &log
}

// TestLoadCreatesStoreDirs: Load creates commitlog, consumequeue, index and config before the
// first message, as Java's DefaultMessageStore creates its directories at construction.
func TestLoadCreatesStoreDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh")
	s, err := newStore(smallConfig(dir), nil, nil)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	defer s.Shutdown()
	for _, sub := range []string{"commitlog", "consumequeue", "index", "config"} {
		st, err := os.Stat(filepath.Join(dir, sub))
		require.NoError(t, err, sub)
		require.True(t, st.IsDir(), sub)
	}
}

// TestFreshStoreDiskCheck: on a fresh, idle store the disk checks read the real partition (a
// used fraction in (0, 1), not the -1 of a missing directory, which the clean service takes
// for a full disk) and log no warning. Java: UtilAll#getDiskPartitionSpaceUsedPercent,
// CleanCommitLogService#isSpaceToDelete.
func TestFreshStoreDiskCheck(t *testing.T) {
	tr, log := infoLog()
	cfg := smallConfig(t.TempDir())
	cfg.DiskUsage = nil // statfs, as in production
	// 95 % (the highest setting): the assertion does not depend on how full this machine's
	// disk is; a missing directory reads as full at any setting.
	cfg.DiskMaxUsedSpaceRatio = 95
	s := openStore(t, cfg, nil, tr)
	for _, used := range []float64{s.CommitLogDiskRatio(), s.ConsumeQueueDiskRatio()} {
		require.Greater(t, used, 0.0)
		require.Less(t, used, 1.0)
	}
	s.CleanFilesPeriodically()
	require.False(t, s.IsSpaceFull())
	s.Shutdown()
	require.NotContains(t, log.String(), "level=WARN")
	require.NotContains(t, log.String(), "level=ERROR")
}

// TestStartLogsPreallocation: Start says in one INFO line how much disk the store allocates:
// two CommitLog files (the one written and the next, kept ready) and the ConsumeQueue file size.
func TestStartLogsPreallocation(t *testing.T) {
	tr, log := infoLog()
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 1 << 20
	cfg.MappedFileSizeConsumeQueue = 300000 * ConsumeQueueUnitSize
	openStore(t, cfg, nil, tr).Shutdown()
	const line = `level=INFO msg="store preallocates disk" commitLogFileSize=1048576 commitLogFilesReady=2 ` +
		`consumeQueueFileSize=6000000 footprint="2.0 MiB + 5.7 MiB per queue written"` + "\n"
	require.Equal(t, 1, bytes.Count(log.Bytes(), []byte("store preallocates disk")), log.String())
	require.Contains(t, log.String(), line)
}

// TestByteSize pins the footprint's units.
func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 4096: "4.0 KiB", 6000000: "5.7 MiB",
		2 << 30: "2.0 GiB", 5 << 40: "5.0 TiB"} {
		require.Equal(t, want, byteSize(n), n)
	}
}
