//go:build !race

package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Recording a sample (histogram and meter) allocates nothing: it runs in every send callback.
func TestRecordAllocatesNothing(t *testing.T) {
	var m meter
	allocs := testing.AllocsPerRun(1000, func() { m.observe(1, 1500*time.Microsecond) })
	require.Zero(t, allocs)
}
