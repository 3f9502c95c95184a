package tracetest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Only step lines count as steps: a bracketed component, a number, then a Class#method label.
func TestStepLabels(t *testing.T) {
	log := "== header ==\n[broker-a] 01 CommitLog#doAppend wroteOffset=0\nplain text A#b\n[namesrv] 02 RouteInfoManager#registerBroker\n"
	require.Equal(t, []string{"CommitLog#doAppend", "RouteInfoManager#registerBroker"}, StepLabels(log))
	// the closing tour's lines start with their chapter
	require.Equal(t, []string{"CommitLog#doAppend"}, StepLabels("ch03 [broker-a] 01 CommitLog#doAppend wroteOffset=0\nchapter one A#b\nchXY [b] 02 A#b\n"))
}
