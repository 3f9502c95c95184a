package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"
)

// TestMain runs the NATS child mode when the harness re-executes the test binary as NATS's
// process (startNATS runs os.Executable, which under go test is this binary).
func TestMain(m *testing.M) {
	if os.Getenv(natsChildEnv) != "" {
		os.Exit(natsChildMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	rlog.SetLogLevel("fatal")
	os.Exit(m.Run())
}

// TestHarnessTinyRun runs the whole harness once, small (2000 messages, 300 ms sync rows):
// it builds the broker, starts NATS and our broker as separate processes in both flush modes,
// drives our broker with both loads, and prints the table. Every row is there for each load,
// with positive msgs/s and server CPU per message on both sides, p50 ≤ p99 where the row has
// latencies, and the raw fdatasync row with a positive p50.
func TestHarnessTinyRun(t *testing.T) {
	cfg := defaultConfig()
	cfg.Runs, cfg.Count, cfg.Duration, cfg.Senders = 1, 2000, 300*time.Millisecond, 16
	cfg.Dir = t.TempDir()
	var progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := runHarness(ctx, cfg, &progress)
	require.NoError(t, err, "progress:\n%s", progress.String())
	rows := buildRows(cfg, res)

	want := map[string]bool{}
	for r := range rowCount {
		if r == rowRawFsync {
			want[cfg.rowLabel(r)+"/"] = true
			continue
		}
		for _, l := range cfg.Loads {
			if r != rowLitePull || l == loadOurs {
				want[cfg.rowLabel(r)+"/"+l] = true
			}
		}
	}
	got := map[string]bool{}
	for _, row := range rows {
		got[row.Measure+"/"+row.Load] = true
		if row.Load == "" {
			require.Positive(t, row.RawP50, "raw fdatasync p50")
			require.LessOrEqual(t, row.RawP50, row.RawP99)
			continue
		}
		require.Positive(t, row.NATSTPS, "%s: NATS msgs/s", row.Measure)
		require.Positive(t, row.BrokerTPS, "%s, %s: broker msgs/s", row.Measure, row.Load)
		require.Positive(t, row.NATSCPUUs, "%s: NATS CPU per message", row.Measure)
		require.Positive(t, row.BrokerCPUUs, "%s, %s: broker CPU per message", row.Measure, row.Load)
		require.NotEmpty(t, row.Ratio)
		if hasLatency(row.ID) {
			require.Positive(t, row.NATSP50, "%s: NATS p50", row.Measure)
			require.Positive(t, row.BrokerP50, "%s, %s: broker p50", row.Measure, row.Load)
			require.LessOrEqual(t, row.NATSP50, row.NATSP99)
			require.LessOrEqual(t, row.BrokerP50, row.BrokerP99)
		}
	}
	require.Equal(t, want, got, "one table row per measure and load, and the raw row")

	var out bytes.Buffer
	require.NoError(t, writeTable(&out, rows))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2+len(rows), "header, separator, a line per row:\n%s", out.String())
	for _, row := range rows {
		require.Contains(t, out.String(), row.Measure)
	}
	t.Logf("\n%s", out.String())
}

// TestHarnessSomeRows: with -rows the harness runs those rows only, without the SYNC_FLUSH
// pass, and the table has only them.
func TestHarnessSomeRows(t *testing.T) {
	cfg := defaultConfig()
	cfg.Runs, cfg.Count, cfg.Duration, cfg.Loads = 1, 1000, 200*time.Millisecond, []string{loadOurs}
	cfg.Rows = []rowID{rowSync}
	cfg.Dir = t.TempDir()
	var progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := runHarness(ctx, cfg, &progress)
	require.NoError(t, err, "progress:\n%s", progress.String())
	rows := buildRows(cfg, res)
	require.Len(t, rows, 1)
	require.Equal(t, rowSync, rows[0].ID)
	require.Positive(t, rows[0].BrokerTPS)
	require.Positive(t, rows[0].NATSTPS)
	require.NotContains(t, progress.String(), "SYNC_FLUSH")
}

// TestMedian pins the table's statistic: the middle value, the mean of the middle two for an
// even count, whatever the order of the runs.
func TestMedian(t *testing.T) {
	require.Equal(t, 0.0, median(nil))
	require.Equal(t, 5.0, median([]float64{9, 5, 1}))
	require.Equal(t, 4.0, median([]float64{9, 5, 3, 1}))
	require.Equal(t, 7.0, median([]float64{7}))
}

// TestParseFlags pins the command line: -load picks the clients, and impossible values are
// refused before anything starts.
func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := parseFlags([]string{"-load", "ours", "-runs", "5", "-count", "100", "-d", "2s"}, &stderr)
	require.NoError(t, err)
	require.Equal(t, []string{loadOurs}, cfg.Loads)
	require.Equal(t, 5, cfg.Runs)
	require.Equal(t, 100, cfg.Count)
	require.Equal(t, 2*time.Second, cfg.Duration)
	cfg, err = parseFlags(nil, &stderr)
	require.NoError(t, err)
	require.Equal(t, []string{loadOfficial, loadOurs}, cfg.Loads, "both by default")
	require.Equal(t, 3, cfg.Runs)
	require.Nil(t, cfg.Rows, "every row by default")
	cfg, err = parseFlags([]string{"-rows", "sync,async,sync"}, &stderr)
	require.NoError(t, err)
	require.Equal(t, []rowID{rowSync, rowAsync}, cfg.Rows)
	require.True(t, cfg.runs(rowAsync))
	require.False(t, cfg.runs(rowConsume))
	require.False(t, cfg.syncFlushPass())
	for _, bad := range [][]string{{"-load", "java"}, {"-runs", "0"}, {"-count", "0"}, {"-d", "0s"}, {"-s", "0"}, {"extra"},
		{"-rows", "async,fast"}, {"-rows", "consume"}} {
		_, err := parseFlags(bad, &stderr)
		require.Error(t, err, "%v", bad)
	}
	require.Equal(t, 2, runMain(context.Background(), []string{"-load", "java"}, &stderr, &stderr))
}

// TestFormat pins the table's units.
func TestFormat(t *testing.T) {
	require.Equal(t, "69.7 k msgs/s", fmtTPS(69_700))
	require.Equal(t, "132 k msgs/s", fmtTPS(132_400))
	require.Equal(t, "5.40 k msgs/s", fmtTPS(5400))
	require.Equal(t, "190 msgs/s", fmtTPS(190))
	require.Equal(t, "613 µs", fmtDur(613*time.Microsecond))
	require.Equal(t, "4.90 ms", fmtDur(4900*time.Microsecond))
	require.Equal(t, "14.4 ms", fmtDur(14400*time.Microsecond))
}

// TestProcCPU: the CPU time read from /proc grows while this process burns CPU.
func TestProcCPU(t *testing.T) {
	before := procCPU(os.Getpid())
	x := 0
	require.Eventually(t, func() bool {
		for i := range 1_000_000 {
			x += i
		}
		return procCPU(os.Getpid()) > before
	}, 10*time.Second, time.Millisecond)
	_ = x
}

// TestReadmeCommand keeps the README's harness command runnable: every `cd bench && go run .`
// line of its Benchmarks section parses with this harness's flags (there is at least one).
func TestReadmeCommand(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(text), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cd bench && go run .")
		if !ok {
			continue
		}
		if i := strings.Index(rest, "#"); i >= 0 {
			rest = rest[:i]
		}
		var stderr bytes.Buffer
		_, err := parseFlags(strings.Fields(rest), &stderr)
		require.NoError(t, err, "README line %q", line)
		n++
	}
	require.Positive(t, n, "the README gives the harness's command")
}

// TestHeapRun: the -heap mode sends what it was asked (here 4 MiB: 4096 messages of 1 KiB, one
// chunk), none failed, and reports a positive RssAnon for the broker at the start, the end and
// at most; rssAnon reads this process's own status too.
func TestHeapRun(t *testing.T) {
	require.Positive(t, rssAnon(os.Getpid()))
	cfg := defaultConfig()
	cfg.Dir = t.TempDir()
	cfg.Inflight = 256
	var out, log strings.Builder
	require.NoError(t, runHeap(t.Context(), cfg, 4.0/1024, &out, &log))
	require.Contains(t, out.String(), "0.00 GiB sent to our broker", out.String())
	require.Regexp(t, `\(0 sends failed\); broker RssAnon [1-9][0-9.]* MiB at the start, [1-9][0-9.]* MiB at the end, [1-9][0-9.]* MiB at most`, out.String())
	require.Contains(t, log.String(), "heap:")
}
