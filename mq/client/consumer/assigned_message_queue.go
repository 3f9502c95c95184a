package consumer

import (
	"maps"
	"slices"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// AssignedMessageQueue is a lite pull consumer's table of the queues it reads now, by
// subscription (what RebalanceLitePullImpl handed it) or by assignment (Assign): per queue its
// ProcessQueue (the rebalance's in subscribe mode, its own in assign mode), whether it is
// paused, and three offsets in ConsumeQueue units — the next to pull, the next to consume
// (after the last message Poll returned), and a pending seek. -1 is "none".
// Mirrors org.apache.rocketmq.client.impl.consumer.AssignedMessageQueue.
//
// mu guards the table and every state in it; it is never held while another lock is taken (f
// given to with must not take one).
type AssignedMessageQueue struct {
	mu    sync.Mutex
	table map[primitive.MessageQueue]*messageQueueState
}

// messageQueueState is one queue's entry. Java: AssignedMessageQueue.MessageQueueState.
type messageQueueState struct {
	pq            *ProcessQueue
	paused        bool
	pullOffset    int64
	consumeOffset int64
	seekOffset    int64
}

func newAssignedMessageQueue() *AssignedMessageQueue {
	return &AssignedMessageQueue{table: map[primitive.MessageQueue]*messageQueueState{}}
}

// MessageQueues returns the queues held, sorted.
func (a *AssignedMessageQueue) MessageQueues() []primitive.MessageQueue {
	a.mu.Lock()
	defer a.mu.Unlock()
	qs := slices.Collect(maps.Keys(a.table))
	SortMessageQueues(qs)
	return qs
}

// Contains reports whether mq is held.
func (a *AssignedMessageQueue) Contains(mq primitive.MessageQueue) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.table[mq]
	return ok
}

// update makes the queues of topic (every topic when topic is "") exactly mqs: states of
// queues not in mqs are dropped (their ProcessQueue marked dropped), new ones get pq(mq).
// Java: AssignedMessageQueue#updateAssignedMessageQueue (both overloads).
func (a *AssignedMessageQueue) update(topic string, mqs []primitive.MessageQueue, pq func(primitive.MessageQueue) *ProcessQueue) {
	want := map[primitive.MessageQueue]bool{}
	for _, q := range mqs {
		want[q] = true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for q, st := range a.table {
		if (topic == "" || q.Topic == topic) && !want[q] {
			st.pq.SetDropped(true)
			delete(a.table, q)
		}
	}
	for _, q := range mqs {
		if _, ok := a.table[q]; !ok {
			a.table[q] = &messageQueueState{pq: pq(q), pullOffset: -1, consumeOffset: -1, seekOffset: -1}
		}
	}
}

// with runs f on mq's state under the lock; false when mq is not held.
func (a *AssignedMessageQueue) with(mq primitive.MessageQueue, f func(*messageQueueState)) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	st, ok := a.table[mq]
	if ok {
		f(st)
	}
	return ok
}

// ProcessQueue returns mq's ProcessQueue (nil when mq is not held).
func (a *AssignedMessageQueue) ProcessQueue(mq primitive.MessageQueue) *ProcessQueue {
	var pq *ProcessQueue
	a.with(mq, func(st *messageQueueState) { pq = st.pq })
	return pq
}

// IsPaused reports whether Pause stopped mq.
func (a *AssignedMessageQueue) IsPaused(mq primitive.MessageQueue) bool {
	paused := false
	a.with(mq, func(st *messageQueueState) { paused = st.paused })
	return paused
}

// pausedQueues returns the queues paused now (nil when none).
func (a *AssignedMessageQueue) pausedQueues() map[primitive.MessageQueue]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out map[primitive.MessageQueue]bool
	for q, st := range a.table {
		if st.paused {
			if out == nil {
				out = map[primitive.MessageQueue]bool{}
			}
			out[q] = true
		}
	}
	return out
}

func (a *AssignedMessageQueue) setPaused(mqs []primitive.MessageQueue, v bool) {
	for _, q := range mqs {
		a.with(q, func(st *messageQueueState) { st.paused = v })
	}
}

// ConsumeOffset is the offset after the last message Poll returned of mq (-1: none yet).
func (a *AssignedMessageQueue) ConsumeOffset(mq primitive.MessageQueue) int64 {
	v := int64(-1)
	a.with(mq, func(st *messageQueueState) { v = st.consumeOffset })
	return v
}

// SeekOffset is mq's pending seek (-1: none).
func (a *AssignedMessageQueue) SeekOffset(mq primitive.MessageQueue) int64 {
	v := int64(-1)
	a.with(mq, func(st *messageQueueState) { v = st.seekOffset })
	return v
}

// PullOffset is the next offset mq's pull task asks for (-1: not computed yet).
func (a *AssignedMessageQueue) PullOffset(mq primitive.MessageQueue) int64 {
	v := int64(-1)
	a.with(mq, func(st *messageQueueState) { v = st.pullOffset })
	return v
}
