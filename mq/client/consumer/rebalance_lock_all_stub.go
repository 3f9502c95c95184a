//go:build ex_ch07

package consumer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// LockAll renews the locks of every queue held, one LOCK_BATCH_MQ per broker: the queues
// granted are marked locked now, the others (another client holds them) unlocked, so their
// consumption pauses. Java: RebalanceImpl#lockAll.
func (r *Rebalance) LockAll() {
	// Hint: group the held queues by broker name (r.processQueueTableByBrokerName) and take the
	// brokers in sorted order (sortedKeys). For each, log the step "RebalanceImpl#lockAll"
	// (group, brokerName, mqSet, brokerFound), find its master (r.masterAddr; none: skip), and
	// send one LOCK_BATCH_MQ (r.Instance.MQClientAPI().LockBatchMQ with r.lockBody(mqs), under
	// lockCallTimeout). On an error, log it and go on; else r.markLocked(locked, mqs): the queues
	// granted are locked now, the others unlocked, so their consumption pauses.
	panic(exercise.NotImplemented("ch07", "tutorial/ch07-orderly.md §RebalanceImpl#lockAll — the renewal",
		"write Rebalance.LockAll (mq/client/consumer/rebalance_lock_all_stub.go): one LOCK_BATCH_MQ per broker for the queues held, then mark them locked or not"))
}
