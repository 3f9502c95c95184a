package consumer

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// lockCallTimeout bounds one LOCK_BATCH_MQ / UNLOCK_BATCH_MQ call: 1 s, as Java's.
const lockCallTimeout = time.Second

// lockBody is the request body for the queues mqs of this consumer.
func (r *Rebalance) lockBody(mqs []primitive.MessageQueue) *protocol.LockBatchRequestBody {
	return &protocol.LockBatchRequestBody{ConsumerGroup: r.Group, ClientID: r.Instance.ClientID(), MqSet: mqs}
}

// masterAddr is brokerName's master address ("" when the route has none).
func (r *Rebalance) masterAddr(brokerName string) string {
	res, ok := r.Instance.FindBrokerAddressInSubscribe(brokerName, protocol.MasterID, true)
	if !ok {
		return ""
	}
	return res.BrokerAddr
}

// Lock asks mq's master broker for mq's lock (LOCK_BATCH_MQ with one queue) and reports
// whether this client holds it now; a ProcessQueue of a queue granted is marked locked at the
// clock's now. False when the broker is unknown or cannot be asked.
// Java: RebalanceImpl#lock.
func (r *Rebalance) Lock(mq primitive.MessageQueue) bool {
	addr := r.masterAddr(mq.BrokerName)
	ok := false
	if addr != "" {
		ctx, cancel := context.WithTimeout(context.Background(), lockCallTimeout)
		locked, err := r.Instance.MQClientAPI().LockBatchMQ(ctx, addr, r.lockBody([]primitive.MessageQueue{mq}))
		cancel()
		if err != nil {
			r.Instance.Logger().Warn("lockBatchMQ failed", "mq", mq.String(), "err", err)
		}
		r.markLocked(locked, nil)
		ok = slices.Contains(locked, mq)
	}
	if tr := r.Instance.Tracer(); tr.Enabled() {
		tr.Step("RebalanceImpl#lock", slog.String("group", r.Group), slog.String("topic", mq.Topic), slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.Bool("lockOK", ok))
	}
	return ok
}

// markLocked marks the ProcessQueues of locked as locked now and those of asked not among
// locked as not locked.
func (r *Rebalance) markLocked(locked, asked []primitive.MessageQueue) {
	now := r.Instance.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range locked {
		if pq := r.processQueueTable[q]; pq != nil {
			pq.SetLocked(true)
			pq.SetLastLockTimestamp(now)
		}
	}
	for _, q := range asked {
		if pq := r.processQueueTable[q]; pq != nil && !slices.Contains(locked, q) {
			pq.SetLocked(false)
		}
	}
}

// Unlock frees mq's lock on its master broker (UNLOCK_BATCH_MQ); oneway does not wait for the
// answer. Java: RebalanceImpl#unlock.
func (r *Rebalance) Unlock(mq primitive.MessageQueue, oneway bool) {
	addr := r.masterAddr(mq.BrokerName)
	if tr := r.Instance.Tracer(); tr.Enabled() {
		tr.Step("RebalanceImpl#unlock", slog.String("group", r.Group), slog.String("topic", mq.Topic), slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.Bool("oneway", oneway), slog.Bool("brokerFound", addr != ""))
	}
	if addr == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockCallTimeout)
	defer cancel()
	if err := r.Instance.MQClientAPI().UnlockBatchMQ(ctx, addr, r.lockBody([]primitive.MessageQueue{mq}), oneway); err != nil {
		r.Instance.Logger().Warn("unlockBatchMQ failed", "mq", mq.String(), "err", err)
	}
}

// UnlockAll frees the locks of every queue held, one UNLOCK_BATCH_MQ per broker, and marks
// their ProcessQueues not locked (an orderly consumer's shutdown). Java: RebalanceImpl#unlockAll.
func (r *Rebalance) UnlockAll(oneway bool) {
	byBroker := r.processQueueTableByBrokerName()
	for _, bn := range sortedKeys(byBroker) {
		mqs := byBroker[bn]
		addr := r.masterAddr(bn)
		if addr == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), lockCallTimeout)
		err := r.Instance.MQClientAPI().UnlockBatchMQ(ctx, addr, r.lockBody(mqs), oneway)
		cancel()
		if err != nil {
			r.Instance.Logger().Warn("unlockBatchMQ failed", "brokerName", bn, "err", err)
			continue
		}
		r.markLocked(nil, mqs)
	}
}

// heldAgain reports that mq is in the ProcessQueue table again with a live ProcessQueue other
// than removed, the one a rebalance took away.
func (r *Rebalance) heldAgain(mq primitive.MessageQueue, removed *ProcessQueue) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.processQueueTable[mq]
	return cur != nil && cur != removed && !cur.Dropped()
}

// processQueueTableByBrokerName groups the queues held by broker name, each group sorted.
// Java: RebalanceImpl#buildProcessQueueTableByBrokerName.
func (r *Rebalance) processQueueTableByBrokerName() map[string][]primitive.MessageQueue {
	mqs, _ := r.ProcessQueues()
	out := map[string][]primitive.MessageQueue{}
	for _, q := range mqs {
		out[q.BrokerName] = append(out[q.BrokerName], q)
	}
	return out
}

// topicQueueIDs lists queues of one broker as "topic/queueId,...".
func topicQueueIDs(mqs []primitive.MessageQueue) string {
	return joinQueues(mqs, func(q primitive.MessageQueue) string { return q.Topic })
}

// sortedKeys is m's keys in increasing order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// consumeLockWait is how long a rebalance waits for a running batch to leave the consume lock
// before giving up on removing the queue this time: 1 s, as Java's tryLock(1000 ms).
const consumeLockWait = time.Second

// removeOrderlyQueue is the orderly half of RemoveUnnecessaryMessageQueue (CLUSTERING): once
// the consume lock is free (waiting up to 1 s) the broker lock is released — at once when no
// message is cached, else after delay (Config.UnlockDelayTime, 20 s: the messages cached may
// still be being handed over) via later — and true is returned; when a batch
// keeps the consume lock, the attempt is counted and false keeps the queue for the next
// rebalance. Java: RebalancePushImpl#removeUnnecessaryMessageQueue and #unlockDelay.
//
// Deviation: Java's delayed unlock fires even when a rebalance in between gave the queue back
// to this client (RebalanceImpl#lock granted it again: the lock was still this client's) and a
// new ProcessQueue consumes it; the broker lock would be gone under it and another member could
// lock the queue and consume it alongside until the next lockAll. Here the delayed unlock is
// skipped when the queue is held again (heldAgain).
//
// Deviation: Java unlocks one way; here the unlock waits for the broker's answer (1 s at
// most), so a member that asks for the queue right after this rebalance finds it free rather
// than racing the unlock frame (one rebalance period, 20 s, later in Java).
func (r *Rebalance) removeOrderlyQueue(mq primitive.MessageQueue, pq *ProcessQueue, delay time.Duration, later func(time.Duration, func())) bool {
	cm := pq.ConsumeMu()
	deadline := time.NewTimer(consumeLockWait)
	defer deadline.Stop()
	for !cm.TryLock() {
		select {
		case <-deadline.C:
			pq.orderly.tryUnlockTimes.Add(1)
			r.Instance.Logger().Warn("mq is consuming, so can not unlock it", "mq", mq.String(), "tryUnlockTimes", pq.TryUnlockTimes())
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	defer cm.Unlock()
	if pq.HasTempMessage() {
		later(delay, func() {
			if r.heldAgain(mq, pq) {
				return
			}
			r.Unlock(mq, false)
		})
	} else {
		r.Unlock(mq, false)
	}
	return true
}
