//go:build ex_ch01

package namesrv

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// ScanNotActiveBroker removes every broker whose last registration (or unchanged
// QUERY_DATA_VERSION) is older than the expiry: its live entry goes first, then its channel is
// closed and its routes are cleaned by OnChannelDestroy. It returns the number removed. Passes
// are serialized, so the scan service and a direct call never remove one broker twice.
// Java: RouteInfoManager#scanNotActiveBroker.
func (r *RouteInfoManager) ScanNotActiveBroker() int {
	// Hint: hold r.scanMu for the whole pass. Under r.mu, collect every brokerLiveTable entry whose
	// LastUpdateTimestamp + r.expired is before r.clock.Now(), and delete it from brokerLiveTable
	// there (so the channel's close event finds no broker). Then, outside r.mu and in address
	// order, log the step "RouteInfoManager#scanNotActiveBroker", close the entry's channel and
	// call r.OnChannelDestroy(addr, ch), which cleans the other tables. Return how many expired.
	//
	// Until then no broker expires: the scan service runs this every 10 s in every chapter.
	_ = exercise.NotImplemented("ch01", "tutorial/ch01-namesrv.md §RouteInfoManager#scanNotActiveBroker",
		"write RouteInfoManager.ScanNotActiveBroker (mq/namesrv/scan_not_active_broker_stub.go): expire silent brokers and hand them to OnChannelDestroy")
	return 0
}
