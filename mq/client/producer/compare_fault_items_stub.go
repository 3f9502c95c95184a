//go:build ex_ch02

package producer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// compareFaultItems orders two fault items as FaultItem#compareTo does: negative when a comes
// first (the better broker), positive when b does, 0 when they tie. Available items come before
// unavailable ones, then the lower currentLatency (ms), then the earlier startTimestamp (ms).
// Java: LatencyFaultToleranceImpl.FaultItem#compareTo.
func compareFaultItems(a, b faultItemSnapshot) int {
	// Hint: three keys, in order — a.available before !a.available (return -1 when only a is
	// available, 1 when only b is); then cmp.Compare of currentLatency; then cmp.Compare of
	// startTimestamp. PickOneAtLeast sorts with this and takes one of the better half.
	panic(exercise.NotImplemented("ch02", "tutorial/ch02-producer.md §FaultItem#compareTo",
		"write compareFaultItems (mq/client/producer/compare_fault_items_stub.go): available first, then lower latency, then earlier startTimestamp"))
}
