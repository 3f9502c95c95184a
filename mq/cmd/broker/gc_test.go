package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTuneGC: with neither GOGC nor GOMEMLIMIT in the environment mqbroker sets its own GC
// percent and soft memory limit; a variable that is set keeps the runtime's value.
func TestTuneGC(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})

	got := tuneGC(func(string) string { return "" })
	require.Equal(t, gcSettings{GCPercent: brokerGCPercent, MemoryLimit: brokerMemoryLimit}, got)
	require.Equal(t, brokerGCPercent, debug.SetGCPercent(100))
	require.Equal(t, int64(brokerMemoryLimit), debug.SetMemoryLimit(math.MaxInt64))

	env := map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}
	got = tuneGC(func(k string) string { return env[k] })
	require.Equal(t, gcSettings{GCPercent: -1, MemoryLimit: -1}, got)
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: the percent is left alone")
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1), "GOMEMLIMIT set: the limit is left alone")
}
