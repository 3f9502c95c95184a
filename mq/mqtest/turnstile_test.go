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

// TestTurnstileOrdersConcurrentSteps: a goroutine logging an armed label stops before its
// record is printed, so a step the scenario logs meanwhile comes first; after Pass the stopped
// record and the ones after it print, and WaitSeen sees them. An unarmed label never stops.
func TestTurnstileOrdersConcurrentSteps(t *testing.T) {
	var buf bytes.Buffer
	out := &trace.SyncWriter{W: &buf}
	ts := NewTurnstile(trace.NewPrinter(out, slog.LevelError))
	defer ts.Open()
	worker := trace.New(slog.New(ts), "worker")
	main := trace.New(slog.New(trace.NewPrinter(out, slog.LevelError)), "main")

	ts.Arm("Worker#notified")
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.Step("Worker#notified")
		worker.Step("Worker#after")
	}()
	require.Eventually(t, func() bool { // the worker is stopped at its first step
		ts.st.mu.Lock()
		defer ts.st.mu.Unlock()
		return ts.st.stopped["Worker#notified"] != nil
	}, 5*time.Second, time.Millisecond)
	require.Zero(t, ts.Seen("Worker#notified"))
	main.Step("Main#meanwhile")
	require.NoError(t, ts.Pass("Worker#notified", 5*time.Second))
	require.NoError(t, ts.WaitSeen("Worker#after", 1, 5*time.Second))
	<-done
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], "Main#meanwhile")
	require.Contains(t, lines[1], "Worker#notified")
	require.Contains(t, lines[2], "Worker#after")

	worker.Step("Worker#notified") // disarmed after one stop
	require.Equal(t, 2, ts.Seen("Worker#notified"))
	require.Error(t, ts.Pass("Worker#notified", 10*time.Millisecond), "nothing is stopped there")
	require.Error(t, ts.WaitSeen("Worker#after", 2, 10*time.Millisecond))
}
