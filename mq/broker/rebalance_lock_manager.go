package broker

import (
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// RebalanceLockMaxLiveTime is how long a queue lock lives without renewal: 60 s (Java: the
// rocketmq.broker.rebalance.lockMaxLiveTime property, 60 000 ms). An orderly consumer renews
// its locks every 20 s (lockAll), so a live owner never loses one; a dead one loses them 60 s
// after its last renewal.
const RebalanceLockMaxLiveTime = 60 * time.Second

// lockEntry is one queue's owner and when it last locked (or renewed) the queue.
// Mirrors RebalanceLockManager.LockEntry.
type lockEntry struct {
	clientID    string
	lastUpdated time.Time
}

func (e *lockEntry) expired(now time.Time, maxLive time.Duration) bool {
	return now.Sub(e.lastUpdated) > maxLive
}

// RebalanceLockManager is the broker's queue lock, the first of ordered consumption's three
// locks: per consumer group, each MessageQueue is held by at most one client id, so two members
// of a group never consume one queue at once, even while their rebalances disagree. A lock
// expires RebalanceLockMaxLiveTime after its holder last locked it; an expired lock is free.
// Mirrors org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager.
//
// mu guards the table and maxLive (Java: a ReentrantLock around mqLockTable).
type RebalanceLockManager struct {
	clock   clock.Clock
	tr      *trace.Tracer
	maxLive time.Duration

	mu    sync.Mutex
	table map[string]map[primitive.MessageQueue]*lockEntry // group → queue → owner
}

// NewRebalanceLockManager returns an empty lock table on c (nil: the system clock); tr traces
// tryLockBatch (nil: off).
func NewRebalanceLockManager(c clock.Clock, tr *trace.Tracer) *RebalanceLockManager {
	return &RebalanceLockManager{clock: clock.Or(c), tr: tr, maxLive: RebalanceLockMaxLiveTime,
		table: map[string]map[primitive.MessageQueue]*lockEntry{}}
}

// SetLockMaxLiveTime changes how long a lock lives without renewal (default
// RebalanceLockMaxLiveTime, 60 s); d ≤ 0 restores the default. Java: the
// rocketmq.broker.rebalance.lockMaxLiveTime system property (a test shortens it).
func (m *RebalanceLockManager) SetLockMaxLiveTime(d time.Duration) {
	if d <= 0 {
		d = RebalanceLockMaxLiveTime
	}
	m.mu.Lock()
	m.maxLive = d
	m.mu.Unlock()
}

// isLocked reports mq held by clientID and not expired; it renews the lock when so.
// Java: RebalanceLockManager#isLocked.
func (m *RebalanceLockManager) isLocked(group string, mq primitive.MessageQueue, clientID string, now time.Time) bool {
	e := m.table[group][mq]
	if e == nil || e.clientID != clientID || e.expired(now, m.maxLive) {
		return false
	}
	e.lastUpdated = now
	return true
}

// UnlockBatch frees each queue of mqs that clientID of group holds; queues held by another
// client are left alone. Java: RebalanceLockManager#unlockBatch.
func (m *RebalanceLockManager) UnlockBatch(group string, mqs []primitive.MessageQueue, clientID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	groupTable := m.table[group]
	for _, q := range mqs {
		if e := groupTable[q]; e != nil && e.clientID == clientID {
			delete(groupTable, q)
		}
	}
}

// Owner returns the client id holding mq for group now ("" when free or expired).
func (m *RebalanceLockManager) Owner(group string, mq primitive.MessageQueue) string {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.table[group][mq]
	if e == nil || e.expired(now, m.maxLive) {
		return ""
	}
	return e.clientID
}

// LockedQueues returns the queues group holds now with their owners' client ids (expired locks
// left out); empty for a group that consumes concurrently, since only orderly consumers lock
// queues. The console reads it to tell an orderly group.
func (m *RebalanceLockManager) LockedQueues(group string) map[primitive.MessageQueue]string {
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[primitive.MessageQueue]string{}
	for mq, e := range m.table[group] {
		if !e.expired(now, m.maxLive) {
			out[mq] = e.clientID
		}
	}
	return out
}

// mqIDs lists queues as "topic/queueId,..." for a step line (the broker's name is this one).
func mqIDs(mqs []primitive.MessageQueue) string {
	s := ""
	for i, q := range mqs {
		if i > 0 {
			s += ","
		}
		s += q.Topic + "/" + strconv.Itoa(int(q.QueueID))
	}
	return s
}
