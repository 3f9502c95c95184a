//go:build !ex_ch01

package namesrv

import (
	"log/slog"
	"sort"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// ScanNotActiveBroker removes every broker whose last registration (or unchanged
// QUERY_DATA_VERSION) is older than the expiry: its live entry goes first, then its channel is
// closed and its routes are cleaned by OnChannelDestroy. It returns the number removed. Passes
// are serialized, so the scan service and a direct call never remove one broker twice.
// Java: RouteInfoManager#scanNotActiveBroker.
func (r *RouteInfoManager) ScanNotActiveBroker() int {
	r.scanMu.Lock()
	defer r.scanMu.Unlock()
	type victim struct {
		addr, name string
		id         int64
		silent     time.Duration
		ch         *remoting.Channel
	}
	var victims []victim
	r.mu.Lock()
	now := r.clock.Now()
	for addr, live := range r.brokerLiveTable {
		if live.LastUpdateTimestamp.Add(r.expired).Before(now) {
			name, id := r.brokerOf(addr)
			victims = append(victims, victim{addr, name, id, now.Sub(live.LastUpdateTimestamp), live.Channel})
			// Removed before the channel closes, as Java's it.remove(): the close event then finds
			// no broker behind the channel, and only the call below cleans (and logs) the routes.
			delete(r.brokerLiveTable, addr)
		}
	}
	r.mu.Unlock()
	sort.Slice(victims, func(i, j int) bool { return victims[i].addr < victims[j].addr })
	for _, v := range victims {
		if r.tr.Enabled() {
			r.tr.Step("RouteInfoManager#scanNotActiveBroker", slog.String("brokerName", v.name),
				slog.Int64("brokerId", v.id), slog.Duration("silentFor", v.silent),
				slog.Duration("expiredAfter", r.expired))
		}
		r.log().Warn("The broker channel expired", "brokerAddr", v.addr, "expiredAfter", r.expired)
		if v.ch != nil {
			_ = v.ch.Close()
		}
		r.OnChannelDestroy(v.addr, v.ch)
	}
	return len(victims)
}
