package consumer

import (
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// RebalanceLockInterval is how often an orderly consumer renews its queue locks (lockAll):
// 20 s. Java: ProcessQueue.REBALANCE_LOCK_INTERVAL (the rocketmq.client.rebalance.lockInterval
// property, 20 000 ms). A ProcessQueue's lock counts as expired after RebalanceLockMaxLiveTime
// (30 s) without renewal, well before the broker's 60 s, so a client stops consuming a queue
// before the broker can give it to another.
const RebalanceLockInterval = 20 * time.Second

// orderlyState is what an orderly consumer adds to a ProcessQueue: the batch being consumed
// (Java consumingMsgOrderlyTreeMap), taken out of the tree by TakeMessages and either
// committed or put back; guarded by the ProcessQueue's mu. The lock timestamp and the count
// of failed unlock attempts are atomics.
type orderlyState struct {
	consuming         map[int64]*primitive.MessageExt
	lastLockTimestamp atomic.Int64 // ms
	tryUnlockTimes    atomic.Int64
}

// TakeMessages moves up to n messages, lowest queue offsets first, from the tree into the
// consuming batch and returns them. When the tree is empty it returns none and marks the queue
// not consuming, so the next PutMessage dispatches a new ConsumeRequest.
// Java: ProcessQueue#takeMessages.
func (pq *ProcessQueue) TakeMessages(n int) []*primitive.MessageExt {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	var out []*primitive.MessageExt
	for len(out) < n && len(pq.offsets) > 0 {
		off := pq.offsets[0]
		pq.offsets = pq.offsets[1:]
		m := pq.msgs[off]
		delete(pq.msgs, off)
		if pq.orderly.consuming == nil {
			pq.orderly.consuming = map[int64]*primitive.MessageExt{}
		}
		pq.orderly.consuming[off] = m
		out = append(out, m)
	}
	if len(out) == 0 {
		pq.consuming = false
	}
	return out
}

// Commit ends the consuming batch: its messages leave the queue for good and the offset to
// commit, the batch's highest queue offset + 1, is returned (-1 when no batch was taken).
// Java: ProcessQueue#commit.
func (pq *ProcessQueue) Commit() int64 {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	if len(pq.orderly.consuming) == 0 {
		return -1
	}
	last := slices.Max(slices.Collect(maps.Keys(pq.orderly.consuming)))
	for _, m := range pq.orderly.consuming {
		pq.msgSize -= int64(len(m.Body))
	}
	clear(pq.orderly.consuming)
	return last + 1
}

// Rollback puts the whole consuming batch back into the tree, to be taken again first.
// Java: ProcessQueue#rollback.
func (pq *ProcessQueue) Rollback() {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	for off, m := range pq.orderly.consuming {
		pq.putBackLocked(off, m)
	}
	clear(pq.orderly.consuming)
}

// MakeMessageToConsumeAgain puts msgs, taken by TakeMessages, back into the tree, so the next
// TakeMessages returns them again before anything later. Java: ProcessQueue#makeMessageToConsumeAgain.
func (pq *ProcessQueue) MakeMessageToConsumeAgain(msgs []*primitive.MessageExt) {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	for _, m := range msgs {
		delete(pq.orderly.consuming, m.QueueOffset)
		pq.putBackLocked(m.QueueOffset, m)
	}
}

func (pq *ProcessQueue) putBackLocked(off int64, m *primitive.MessageExt) {
	if _, ok := pq.msgs[off]; ok {
		return
	}
	pq.msgs[off] = m
	i, _ := slices.BinarySearch(pq.offsets, off)
	pq.offsets = slices.Insert(pq.offsets, i, off)
}

// HasTempMessage reports messages in the tree not yet taken. Java: ProcessQueue#hasTempMessage.
func (pq *ProcessQueue) HasTempMessage() bool {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	return len(pq.msgs) > 0
}

// SetLastLockTimestamp records a lock (or a renewal) granted by the broker.
func (pq *ProcessQueue) SetLastLockTimestamp(t time.Time) {
	pq.orderly.lastLockTimestamp.Store(t.UnixMilli())
}

// IsLockExpired reports no lock renewal for RebalanceLockMaxLiveTime (30 s).
// Java: ProcessQueue#isLockExpired.
func (pq *ProcessQueue) IsLockExpired(now time.Time) bool {
	return now.UnixMilli()-pq.orderly.lastLockTimestamp.Load() > RebalanceLockMaxLiveTime.Milliseconds()
}

// TryUnlockTimes counts the rebalances that could not unlock the queue because a batch was
// being consumed. Java: ProcessQueue#getTryUnlockTimes.
func (pq *ProcessQueue) TryUnlockTimes() int64 { return pq.orderly.tryUnlockTimes.Load() }
