package trace

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrinterFormatsStepLines(t *testing.T) {
	var buf bytes.Buffer
	lg := slog.New(NewPrinter(&buf, slog.LevelInfo))
	a := New(lg, "broker-a")
	n := New(lg, "namesrv")
	a.Step("CommitLog#doAppend", slog.Int64("wroteOffset", 4096), slog.Int("queueId", 2))
	n.Step("RouteInfoManager#registerBroker", slog.String("brokerName", "broker a"))
	lg.Debug("hidden")
	lg.Info("shown", "k", "v")
	require.Equal(t, "[broker-a] 01 CommitLog#doAppend wroteOffset=4096 queueId=2\n"+
		"[namesrv] 02 RouteInfoManager#registerBroker brokerName=\"broker a\"\n"+
		"INFO shown k=v\n", buf.String())
}

func TestNilTracerIsOff(t *testing.T) {
	var tr *Tracer
	require.False(t, tr.Enabled())
	tr.Step("X#y", slog.Int("a", 1)) // must not panic
	require.Nil(t, New(nil, "x"))
	require.Nil(t, tr.With("y"))
}

func TestTracerAtInfoLevelRecordsNoSteps(t *testing.T) {
	var buf bytes.Buffer
	tr := New(slog.New(slog.NewTextHandler(&buf, nil)), "c")
	require.False(t, tr.Enabled(), "a handler at Info must not enable steps")
	tr.Step("X#y")
	require.Empty(t, buf.String())
}

func TestRecorderKeepsLabelsInOrder(t *testing.T) {
	r := NewRecorder()
	tr := r.Tracer("b")
	tr.Step("A#a", slog.Int("x", 1))
	tr.Step("B#b")
	require.Equal(t, []string{"A#a", "B#b"}, r.Labels())
	require.Equal(t, "1", r.Steps()[0].Attrs["x"])
	require.Equal(t, "b", r.Steps()[0].Component)
}

// A closed gate drops records and reports itself disabled; derived handlers share its state.
func TestGate(t *testing.T) {
	r := NewRecorder()
	g := NewGate(r, false)
	tr := New(slog.New(g), "c").With("d")
	tr.Step("A#a")
	g.Open()
	tr.Step("B#b")
	g.Close()
	tr.Step("C#c")
	require.False(t, tr.Enabled())
	require.Equal(t, []string{"B#b"}, r.Labels())
}
