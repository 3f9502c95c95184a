//go:build !race

package producer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// With the trace off, choosing a queue and recording a latency allocate nothing (they run on
// every send attempt), with the fault tolerance off and on.
func TestFaultStrategyAllocatesNothing(t *testing.T) {
	clk := newMsClock()
	s := NewMQFaultStrategy(nil, nil, clk, -1, nil)
	tp := publishInfo(-1, "a", "b")
	s.UpdateFaultItem("a", 0, false)
	for _, on := range []bool{false, true} {
		s.SetSendLatencyFaultEnable(on)
		s.UpdateFaultItem("a", 10, false) // the item exists
		allocs := testing.AllocsPerRun(1000, func() {
			mq, _ := s.SelectOneMessageQueue(tp, "a")
			s.UpdateFaultItem(mq.BrokerName, 10, false)
		})
		require.Zero(t, allocs, "fault tolerance on=%v", on)
	}
}
