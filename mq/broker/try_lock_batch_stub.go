//go:build ex_ch07

package broker

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TryLockBatch locks, for clientID of group, each queue of mqs that is free, expired or already
// its own (renewing those), and returns the queues clientID holds afterwards, in mqs' order. A
// queue held by another live client is left out. Java: RebalanceLockManager#tryLockBatch.
func (m *RebalanceLockManager) TryLockBatch(group string, mqs []primitive.MessageQueue, clientID string) []primitive.MessageQueue {
	// Hint: read now from m.clock and hold m.mu while looking at m.table[group]. A queue
	// m.isLocked by clientID (which renews it) is locked; a free one gets a new lockEntry; an
	// expired one (e.expired(now, m.maxLive)) changes owner to clientID at now; one held by
	// another live client is refused. Return the locked queues in mqs' order, and log the step
	// "RebalanceLockManager#tryLockBatch" (group, clientId, locked, refused as mqIDs) after
	// unlocking.
	panic(exercise.NotImplemented("ch07", "tutorial/ch07-orderly.md §RebalanceImpl#lock — before the first pull",
		"write RebalanceLockManager.TryLockBatch (mq/broker/try_lock_batch_stub.go): grant each free, expired or own queue to clientID, refuse the others"))
}
