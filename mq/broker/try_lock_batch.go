//go:build !ex_ch07

package broker

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TryLockBatch locks, for clientID of group, each queue of mqs that is free, expired or already
// its own (renewing those), and returns the queues clientID holds afterwards, in mqs' order. A
// queue held by another live client is left out. Java: RebalanceLockManager#tryLockBatch.
func (m *RebalanceLockManager) TryLockBatch(group string, mqs []primitive.MessageQueue, clientID string) []primitive.MessageQueue {
	now := m.clock.Now()
	m.mu.Lock()
	locked := make([]primitive.MessageQueue, 0, len(mqs))
	var refused []primitive.MessageQueue
	for _, q := range mqs {
		if m.isLocked(group, q, clientID, now) {
			locked = append(locked, q)
			continue
		}
		groupTable := m.table[group]
		if groupTable == nil {
			groupTable = map[primitive.MessageQueue]*lockEntry{}
			m.table[group] = groupTable
		}
		e := groupTable[q]
		switch {
		case e == nil:
			groupTable[q] = &lockEntry{clientID: clientID, lastUpdated: now}
		case e.expired(now, m.maxLive):
			e.clientID, e.lastUpdated = clientID, now
		default: // held by another live client
			refused = append(refused, q)
			continue
		}
		locked = append(locked, q)
	}
	m.mu.Unlock()
	if m.tr.Enabled() {
		m.tr.Step("RebalanceLockManager#tryLockBatch", slog.String("group", group), slog.String("clientId", clientID),
			slog.String("locked", mqIDs(locked)), slog.String("refused", mqIDs(refused)))
	}
	return locked
}
