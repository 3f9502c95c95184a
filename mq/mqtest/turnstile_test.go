package mqtest

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestTurnstileOrdersConcurrentSteps: a goroutine logging a record with the armed attribute
// stops before it is printed, so a step the scenario logs meanwhile comes first; after Pass the
// stopped record and the ones after it print, and WaitRecords sees them. The turnstile stops
// one record per Arm; records without the attribute never stop.
func TestTurnstileOrdersConcurrentSteps(t *testing.T) {
	var buf bytes.Buffer
	out := &trace.SyncWriter{W: &buf}
	ts := NewTurnstile(trace.NewPrinter(out, slog.LevelError))
	defer ts.Open()
	worker := trace.New(slog.New(ts), "worker")
	main := trace.New(slog.New(trace.NewPrinter(out, slog.LevelError)), "main")

	ts.Arm("code", "NOTIFY")
	worker.Step("Worker#before", slog.String("code", "OTHER")) // not the armed value: passes
	require.Equal(t, 1, ts.Records())
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.Step("Worker#notified", slog.String("code", "NOTIFY"))
		worker.Step("Worker#after")
	}()
	require.Eventually(t, func() bool { // the worker is stopped at its step
		ts.st.mu.Lock()
		defer ts.st.mu.Unlock()
		return ts.st.stopped != nil
	}, 5*time.Second, time.Millisecond)
	require.Equal(t, 1, ts.Records())
	main.Step("Main#meanwhile")
	require.NoError(t, ts.Pass(5*time.Second))
	require.NoError(t, ts.WaitRecords(3, 5*time.Second))
	<-done
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4)
	require.Contains(t, lines[0], "Worker#before")
	require.Contains(t, lines[1], "Main#meanwhile")
	require.Contains(t, lines[2], "Worker#notified")
	require.Contains(t, lines[3], "Worker#after")

	worker.Step("Worker#notified", slog.String("code", "NOTIFY")) // disarmed after one stop
	require.Equal(t, 4, ts.Records())
	require.Error(t, ts.Pass(10*time.Millisecond), "nothing is stopped")
	require.Error(t, ts.WaitRecords(5, 10*time.Millisecond))
}

// TestTurnstileTimeoutReleasesTheStop: a stopped goroutine that nobody lets through goes on
// after the turnstile's timeout, and then the turnstile holds no stale stop: Pass finds
// nothing stopped, and the next Arm stops the next record again.
func TestTurnstileTimeoutReleasesTheStop(t *testing.T) {
	var buf bytes.Buffer
	ts := NewTurnstile(trace.NewPrinter(&trace.SyncWriter{W: &buf}, slog.LevelError))
	defer ts.Open()
	ts.st.timeout = 20 * time.Millisecond
	worker := trace.New(slog.New(ts), "worker")

	ts.Arm("code", "NOTIFY")
	worker.Step("Worker#notified", slog.String("code", "NOTIFY")) // stops, times out, goes on
	require.Equal(t, 1, ts.Records())
	require.Error(t, ts.Pass(10*time.Millisecond), "nothing is stopped after the timeout")

	ts.st.timeout = 5 * time.Second
	ts.Arm("code", "NOTIFY")
	done := make(chan struct{})
	go func() { defer close(done); worker.Step("Worker#notified", slog.String("code", "NOTIFY")) }()
	require.NoError(t, ts.Pass(5*time.Second), "the next armed record stops again")
	<-done
	require.Equal(t, 2, ts.Records())
}
