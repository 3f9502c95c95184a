//go:build !ex_ch02

package producer

import (
	"cmp"
)

// compareFaultItems orders two fault items as FaultItem#compareTo does: negative when a comes
// first (the better broker), positive when b does, 0 when they tie. Available items come before
// unavailable ones, then the lower currentLatency (ms), then the earlier startTimestamp (ms).
// Java: LatencyFaultToleranceImpl.FaultItem#compareTo.
func compareFaultItems(a, b faultItemSnapshot) int {
	if a.available != b.available {
		if a.available {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.currentLatency, b.currentLatency); c != 0 {
		return c
	}
	return cmp.Compare(a.startTimestamp, b.startTimestamp)
}
