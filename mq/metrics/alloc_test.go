//go:build !race

package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHotPathAllocatesNothing: once a topic has been seen, the calls the request path makes —
// a put's record, a pull's record and latency, a response code, a fast-failure count —
// allocate nothing (atomics and client_golang's lock-free histograms).
func TestHotPathAllocatesNothing(t *testing.T) {
	m := NewBrokerMetrics("c", "b", []string{"PUT_OK"}, nil)
	m.RecordPut("T", 0, true, 1, 100, time.Millisecond)
	m.RecordGet("T", 1, 100)
	allocs := testing.AllocsPerRun(1000, func() {
		m.RecordPut("T", 0, true, 1, 100, 250*time.Microsecond)
		m.RecordGet("T", 32, 3200)
		m.ObservePullLatency(80 * time.Microsecond)
		m.ObserveResponse(0)
		m.ObserveResponse(5000)
		m.AddFastFailure(1)
	})
	require.Zero(t, allocs)
	require.Equal(t, uint64(1+1+1000), m.PutMessages("T"), "the first put, AllocsPerRun's warm-up run and its 1000 runs")
}
