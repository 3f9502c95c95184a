//go:build !race

package trace

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDisabledStepAllocatesNothing pins the design rule "off costs nothing": the guarded call
// pattern allocates zero times for a nil tracer and for a tracer whose handler is above LevelStep.
func TestDisabledStepAllocatesNothing(t *testing.T) {
	var off *Tracer
	info := New(slog.New(slog.NewTextHandler(io.Discard, nil)), "x")
	off64 := int64(4096)
	for _, tr := range []*Tracer{off, info} {
		n := testing.AllocsPerRun(1000, func() {
			if tr.Enabled() {
				tr.Step("CommitLog#doAppend", slog.Int64("wroteOffset", off64))
			}
		})
		require.Zero(t, n)
	}
}

func BenchmarkDisabledStep(b *testing.B) {
	var tr *Tracer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if tr.Enabled() {
			tr.Step("CommitLog#doAppend", slog.Int("i", i))
		}
	}
}

// TestHubWithoutWatchersAllocatesNothing: a tracer over a Hub no page watches is as cheap as
// one over the operating log alone — the guarded step builds nothing.
func TestHubWithoutWatchersAllocatesNothing(t *testing.T) {
	tr := New(slog.New(NewHub(slog.NewTextHandler(io.Discard, nil))), "broker-a")
	off64 := int64(4096)
	n := testing.AllocsPerRun(1000, func() {
		if tr.Enabled() {
			tr.Step("CommitLog#doAppend", slog.Int64("wroteOffset", off64))
		}
	})
	require.Zero(t, n)
}
