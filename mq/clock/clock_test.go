package clock

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Or gives the wall clock for a nil Clock and keeps a given one.
func TestOr(t *testing.T) {
	require.IsType(t, System{}, Or(nil))
	m := NewManualMillis(5)
	require.Same(t, m, Or(m))
	before := time.Now()
	require.False(t, Or(nil).Now().Before(before), "System reads the wall clock")
}

// A Manual clock moves only when told, and Millis reads it in RocketMQ's unit.
func TestManual(t *testing.T) {
	var zero Manual
	require.Equal(t, int64(0), Millis(&zero), "the zero value stands at the epoch")
	zero.Advance(1500 * time.Millisecond)
	require.Equal(t, int64(1500), Millis(&zero))

	m := NewManualMillis(1_700_000_000_000)
	require.Equal(t, int64(1_700_000_000_000), Millis(m))
	m.Advance(-time.Second)
	require.Equal(t, int64(1_699_999_999_000), Millis(m))
	m.SetMillis(42)
	require.Equal(t, int64(42), Millis(m))
	require.Equal(t, time.UTC, m.Now().Location())
}

// Concurrent readers and writers are safe (run with -race).
func TestManualConcurrent(t *testing.T) {
	m := NewManualMillis(0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				m.Advance(time.Millisecond)
				_ = m.Now()
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(4000), Millis(m))
}
