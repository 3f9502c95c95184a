package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// consumeQueueTable holds every ConsumeQueue by topic and queue id, and creates queues with
// what a queue needs (the env, the checkpoint, the running flags). Java keeps it in
// DefaultMessageStore#consumeQueueTable; its loops (recover, truncate, destroy) live here.
type consumeQueueTable struct {
	env        *storeEnv
	checkpoint *StoreCheckpoint
	flags      *runningFlags

	mu     sync.RWMutex
	queues map[string]map[int32]*ConsumeQueue // guarded by mu

	// list is consumequeue.list as Load read it (nil: none); set by Load, read by Load's
	// recovery and Start's dispatch, under the store's stateMu.
	list *queueList
	// rebuild are the queues Start's dispatch must rebuild, each from a CommitLog offset
	// (bytes; below the CommitLog's min offset: from there): named by the list but missing or
	// short (checkList), or found with a gap by a recovery dispatch (forDispatch). Guarded by mu.
	rebuild   map[topicQueueKey]CommitLogOffset
	markCount int // changes to rebuild (guarded by mu)
	// mode says which dispatch runs: the reput service, abnormal recovery's replay or Start's
	// catch-up (forDispatch).
	mode atomic.Int32
	// listMu serializes writeList.
	listMu sync.Mutex
}

// The dispatches forDispatch tells apart.
const (
	dispatchRun     = iota // the reput service: every record goes to its queue
	dispatchReplay         // abnormal recovery (CommitLog#recoverAbnormally)
	dispatchCatchUp        // Start's pass (ReputMessageService#catchUp)
)

func newConsumeQueueTable(env *storeEnv, checkpoint *StoreCheckpoint, flags *runningFlags) *consumeQueueTable {
	return &consumeQueueTable{env: env, checkpoint: checkpoint, flags: flags, queues: map[string]map[int32]*ConsumeQueue{}}
}

func (t *consumeQueueTable) newConsumeQueue(topic string, queueID int32) *ConsumeQueue {
	return newConsumeQueue(t.env, t.checkpoint, t.flags, topic, queueID)
}

// get returns the queue if it exists, else nil (it is not created).
func (t *consumeQueueTable) get(topic string, queueID int32) *ConsumeQueue {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.queues[topic][queueID]
}

// find returns the queue, creating it (without files) if needed.
// Java: DefaultMessageStore#findConsumeQueue.
func (t *consumeQueueTable) find(topic string, queueID int32) *ConsumeQueue {
	if cq := t.get(topic, queueID); cq != nil {
		return cq
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.queues[topic]
	if m == nil {
		m = map[int32]*ConsumeQueue{}
		t.queues[topic] = m
	}
	cq := m[queueID]
	if cq == nil {
		cq = t.newConsumeQueue(topic, queueID)
		m[queueID] = cq
	}
	return cq
}

// forDispatch returns the queue a dispatched record's unit goes to, or nil when the record
// must not reach a queue now. The reput service's records always go to their queue (created
// if needed: Java's findConsumeQueue). A recovery dispatch (mode) withholds:
//   - every record of a queue marked for rebuilding during the replay (Start rebuilds it from
//     where it needs, so units cannot land after a hole);
//   - a record of a queue that has no file, that consumequeue.list does not name and that was
//     dispatched before the list was written: its topic was deleted (queueList#deletedBefore);
//   - a record that would leave a hole in its queue: its queue offset is past the queue's end
//     (units before it were lost; with no file, a queue offset above 0). The queue is marked
//     for rebuilding from its end (from the CommitLog's start when it has no unit), and Start
//     dispatches again from there.
//
// Deviation: Java appends such a unit at the queue's end after a "[BUG] logic queue order
// maybe wrong" warning, so the queue's offsets no longer match its records, and recreates
// a deleted topic from its records after a crash.
func (t *consumeQueueTable) forDispatch(req *DispatchRequest) *ConsumeQueue {
	mode := t.mode.Load()
	if mode == dispatchRun {
		return t.find(req.Topic, req.QueueID)
	}
	key := topicQueueKey{req.Topic, req.QueueID}
	t.mu.RLock()
	cq := t.queues[req.Topic][req.QueueID]
	_, marked := t.rebuild[key]
	t.mu.RUnlock()
	if marked && mode == dispatchReplay {
		return nil
	}
	if cq == nil || len(cq.mfq.MappedFiles()) == 0 {
		if !marked && t.list.deletedBefore(key, req.CommitLogOffset) {
			return nil
		}
		if !marked && req.ConsumeQueueOffset > 0 {
			t.markRebuild(key, -1)
			return nil
		}
		return t.find(req.Topic, req.QueueID)
	}
	if int64(req.CommitLogOffset)+int64(req.MsgSize) > int64(cq.MaxPhysicOffset()) &&
		int64(req.ConsumeQueueOffset)*ConsumeQueueUnitSize > cq.mfq.getMaxOffset() {
		t.markRebuild(key, cq.MaxPhysicOffset())
		return nil
	}
	return cq
}

// markRebuild marks a queue for rebuilding from CommitLog offset from (bytes; < 0: from the
// CommitLog's start), keeping the lower offset when it is marked already.
func (t *consumeQueueTable) markRebuild(key topicQueueKey, from CommitLogOffset) {
	from = max(from, 0)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rebuild == nil {
		t.rebuild = map[topicQueueKey]CommitLogOffset{}
	}
	if old, ok := t.rebuild[key]; !ok || from < old {
		t.rebuild[key] = from
		t.markCount++
	}
}

// marks counts the changes markRebuild made (a catch-up pass that made none is the last).
func (t *consumeQueueTable) marks() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.markCount
}

// clearRebuild forgets the marks once Start's dispatch rebuilt the queues.
func (t *consumeQueueTable) clearRebuild() {
	t.mu.Lock()
	t.rebuild = nil
	t.mu.Unlock()
}

// rebuildFrom is the lowest CommitLog offset a queue marked for rebuilding needs dispatched
// again, and whether any is marked.
func (t *consumeQueueTable) rebuildFrom() (CommitLogOffset, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	from, any := CommitLogOffset(0), false
	for _, o := range t.rebuild {
		if !any || o < from {
			from = o
		}
		any = true
	}
	return from, any
}

// removeTopic takes a topic's queues out of the table and returns them.
func (t *consumeQueueTable) removeTopic(topic string) map[int32]*ConsumeQueue {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.queues[topic]
	delete(t.queues, topic)
	return m
}

// forEach calls f for every queue in (topic, queueId) order, outside the lock.
func (t *consumeQueueTable) forEach(f func(*ConsumeQueue)) {
	t.mu.RLock()
	var all []*ConsumeQueue
	for _, m := range t.queues {
		for _, cq := range m {
			all = append(all, cq)
		}
	}
	t.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool {
		if all[i].topic != all[j].topic {
			return all[i].topic < all[j].topic
		}
		return all[i].queueID < all[j].queueID
	})
	for _, cq := range all {
		f(cq)
	}
}

// each calls f for every queue and joins the errors.
func (t *consumeQueueTable) each(f func(*ConsumeQueue) error) error {
	var errs []error
	t.forEach(func(cq *ConsumeQueue) { errs = append(errs, f(cq)) })
	return errors.Join(errs...)
}

// load maps consumequeue/<topic>/<queueId>/ (non-numeric queue dirs are skipped).
// Java: DefaultMessageStore#loadConsumeQueue.
func (t *consumeQueueTable) load() error {
	dir := t.env.cfg.ConsumeQueueDir()
	topics, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: load consume queues: %w", err)
	}
	for _, tp := range topics {
		if !tp.IsDir() {
			continue
		}
		queues, err := os.ReadDir(filepath.Join(dir, tp.Name()))
		if err != nil {
			return fmt.Errorf("store: load consume queues of %s: %w", tp.Name(), err)
		}
		for _, q := range queues {
			id, err := strconv.ParseInt(q.Name(), 10, 32)
			if err != nil || !q.IsDir() {
				continue
			}
			cq := t.find(tp.Name(), int32(id))
			if err := cq.load(); err != nil {
				return err
			}
		}
	}
	return nil
}

// recover recovers every queue and returns the largest CommitLog offset (bytes) any queue
// references, -1 with none. Java: DefaultMessageStore#recoverConsumeQueue.
func (t *consumeQueueTable) recover() (CommitLogOffset, error) {
	maxPhy := CommitLogOffset(-1)
	err := t.each(func(cq *ConsumeQueue) error {
		err := cq.recover()
		maxPhy = max(maxPhy, cq.MaxPhysicOffset())
		return err
	})
	return maxPhy, err
}

// truncateDirtyLogicFiles truncates every ConsumeQueue to CommitLog offset phyOffset.
// Java: DefaultMessageStore#truncateDirtyLogicFiles.
func (t *consumeQueueTable) truncateDirtyLogicFiles(phyOffset CommitLogOffset) error {
	return t.each(func(cq *ConsumeQueue) error { return cq.truncateDirtyLogicFiles(phyOffset) })
}

// destroyLogics deletes every ConsumeQueue (the CommitLog is gone). Java: DefaultMessageStore#destroyLogics.
func (t *consumeQueueTable) destroyLogics() error {
	return t.each(func(cq *ConsumeQueue) error { return cq.destroy() })
}

// shutdown unmaps every queue's files and empties the table.
func (t *consumeQueueTable) shutdown() {
	t.forEach(func(cq *ConsumeQueue) { cq.mfq.shutdown() })
	t.mu.Lock()
	t.queues = map[string]map[int32]*ConsumeQueue{}
	t.rebuild = nil
	t.mu.Unlock()
	t.list = nil
}
