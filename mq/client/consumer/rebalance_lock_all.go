//go:build !ex_ch07

package consumer

import (
	"context"
	"log/slog"
)

// LockAll renews the locks of every queue held, one LOCK_BATCH_MQ per broker: the queues
// granted are marked locked now, the others (another client holds them) unlocked, so their
// consumption pauses. Java: RebalanceImpl#lockAll.
func (r *Rebalance) LockAll() {
	byBroker := r.processQueueTableByBrokerName()
	for _, bn := range sortedKeys(byBroker) {
		mqs := byBroker[bn]
		addr := r.masterAddr(bn)
		if tr := r.Instance.Tracer(); tr.Enabled() {
			tr.Step("RebalanceImpl#lockAll", slog.String("group", r.Group), slog.String("brokerName", bn),
				slog.String("mqSet", topicQueueIDs(mqs)), slog.Bool("brokerFound", addr != ""))
		}
		if addr == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), lockCallTimeout)
		locked, err := r.Instance.MQClientAPI().LockBatchMQ(ctx, addr, r.lockBody(mqs))
		cancel()
		if err != nil {
			r.Instance.Logger().Warn("lockBatchMQ failed", "brokerName", bn, "err", err)
			continue
		}
		r.markLocked(locked, mqs)
	}
}
