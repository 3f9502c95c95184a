package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
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

	// lost are the queues consumequeue.list names that have no file (readList: their
	// directory was deleted after the clean stop), "topic/queueId"; set by the store's Load,
	// read by its Start, both under the store's stateMu.
	lost []string
}

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
	t.mu.Unlock()
}
