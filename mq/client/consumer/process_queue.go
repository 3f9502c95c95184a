package consumer

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Thresholds of a ProcessQueue. Java: ProcessQueue.REBALANCE_LOCK_MAX_LIVE_TIME (30 000 ms) and
// PULL_MAX_IDLE_TIME (the rocketmq.client.pull.pullMaxIdleTime property, 120 000 ms).
const (
	RebalanceLockMaxLiveTime = 30 * time.Second
	PullMaxIdleTime          = 120 * time.Second
)

// ProcessQueue is a consumer's local copy of one queue it was assigned: the messages pulled
// and not yet consumed, keyed and ordered by queue offset (Java's msgTreeMap), with their count
// and body size, which the pull path compares with its flow-control thresholds.
// Mirrors org.apache.rocketmq.client.impl.consumer.ProcessQueue.
//
// Locks: mu (Java lockTreeMap) guards the tree, the counters and queueOffsetMax; dropped and
// the timestamps are atomics. consumeMu (Java consumeLock) is for orderly consumption.
type ProcessQueue struct {
	mu             sync.RWMutex
	offsets        []int64 // sorted keys of msgs
	msgs           map[int64]*primitive.MessageExt
	msgSize        int64 // body bytes in the tree
	queueOffsetMax int64
	consuming      bool
	msgAccCnt      int64

	dropped              atomic.Bool
	lastPullTimestamp    atomic.Int64 // ms
	lastConsumeTimestamp atomic.Int64 // ms
	locked               atomic.Bool

	consumeMu sync.Mutex
	orderly   orderlyState // the orderly consumer's part (process_queue_orderly.go)
}

// NewProcessQueue returns an empty queue; now stamps its last pull and consume times.
func NewProcessQueue(now time.Time) *ProcessQueue {
	pq := &ProcessQueue{msgs: map[int64]*primitive.MessageExt{}}
	pq.lastPullTimestamp.Store(now.UnixMilli())
	pq.lastConsumeTimestamp.Store(now.UnixMilli())
	return pq
}

// PutMessage adds the messages not already held and returns whether the consume service should
// be handed them (true when the tree holds messages and no orderly consumption is running).
// The accumulated backlog (MAX_OFFSET − last offset) is noted. Java: ProcessQueue#putMessage.
func (pq *ProcessQueue) PutMessage(msgs []*primitive.MessageExt) bool {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	for _, m := range msgs {
		if _, ok := pq.msgs[m.QueueOffset]; ok {
			continue
		}
		pq.msgs[m.QueueOffset] = m
		i, _ := slices.BinarySearch(pq.offsets, m.QueueOffset)
		pq.offsets = slices.Insert(pq.offsets, i, m.QueueOffset)
		pq.queueOffsetMax = m.QueueOffset
		pq.msgSize += int64(len(m.Body))
	}
	dispatch := false
	if len(pq.msgs) > 0 && !pq.consuming {
		dispatch = true
		pq.consuming = true
	}
	if n := len(msgs); n > 0 {
		last := msgs[n-1]
		if v := last.GetProperty(primitive.PropertyMaxOffset); v != "" {
			if max, err := strconv.ParseInt(v, 10, 64); err == nil && max-last.QueueOffset > 0 {
				pq.msgAccCnt = max - last.QueueOffset
			}
		}
	}
	return dispatch
}

// RemoveMessage drops consumed messages and returns the offset the consumer may commit: the
// smallest offset still held, or queueOffsetMax+1 when the tree is now empty; -1 when the tree
// was already empty. So a message consumed early never moves the committed offset past an
// earlier one still being consumed. Java: ProcessQueue#removeMessage.
func (pq *ProcessQueue) RemoveMessage(msgs []*primitive.MessageExt) int64 {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	if len(pq.msgs) == 0 {
		return -1
	}
	result := pq.queueOffsetMax + 1
	for _, m := range msgs {
		if old, ok := pq.msgs[m.QueueOffset]; ok {
			delete(pq.msgs, m.QueueOffset)
			if i, found := slices.BinarySearch(pq.offsets, m.QueueOffset); found {
				pq.offsets = slices.Delete(pq.offsets, i, i+1)
			}
			pq.msgSize -= int64(len(old.Body))
		}
	}
	if len(pq.offsets) > 0 {
		result = pq.offsets[0]
	}
	return result
}

// MaxSpan is the distance between the largest and the smallest offset held (0 when empty).
// Java: ProcessQueue#getMaxSpan.
func (pq *ProcessQueue) MaxSpan() int64 {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	if len(pq.offsets) == 0 {
		return 0
	}
	return pq.offsets[len(pq.offsets)-1] - pq.offsets[0]
}

// MsgCount and MsgSize are the messages held and their body bytes (an orderly consumer's batch
// being consumed included). Java: msgCount, msgSize.
func (pq *ProcessQueue) MsgCount() int64 {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	return int64(len(pq.msgs) + len(pq.orderly.consuming))
}

// MsgSize is the body bytes held.
func (pq *ProcessQueue) MsgSize() int64 {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	return pq.msgSize
}

// Offsets returns the offsets held, ascending.
func (pq *ProcessQueue) Offsets() []int64 {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	return slices.Clone(pq.offsets)
}

// MsgAccCnt is the backlog behind the last pulled message.
func (pq *ProcessQueue) MsgAccCnt() int64 {
	pq.mu.RLock()
	defer pq.mu.RUnlock()
	return pq.msgAccCnt
}

// Dropped reports a queue taken away by a rebalance (its pulls and consume results are ignored).
func (pq *ProcessQueue) Dropped() bool { return pq.dropped.Load() }

// SetDropped marks the queue dropped.
func (pq *ProcessQueue) SetDropped(v bool) { pq.dropped.Store(v) }

// Locked reports the broker lock of an orderly consumer.
func (pq *ProcessQueue) Locked() bool { return pq.locked.Load() }

// SetLocked sets the lock flag.
func (pq *ProcessQueue) SetLocked(v bool) { pq.locked.Store(v) }

// SetLastPullTimestamp records a pull (ms).
func (pq *ProcessQueue) SetLastPullTimestamp(t time.Time) { pq.lastPullTimestamp.Store(t.UnixMilli()) }

// SetLastConsumeTimestamp records a consumption (ms).
func (pq *ProcessQueue) SetLastConsumeTimestamp(t time.Time) {
	pq.lastConsumeTimestamp.Store(t.UnixMilli())
}

// IsPullExpired reports no pull for PullMaxIdleTime. Java: ProcessQueue#isPullExpired.
func (pq *ProcessQueue) IsPullExpired(now time.Time) bool {
	return now.UnixMilli()-pq.lastPullTimestamp.Load() > PullMaxIdleTime.Milliseconds()
}

// ConsumeMu is the orderly consumer's per-queue lock. Java: ProcessQueue#getConsumeLock.
func (pq *ProcessQueue) ConsumeMu() *sync.Mutex { return &pq.consumeMu }
