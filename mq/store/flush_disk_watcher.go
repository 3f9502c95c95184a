package store

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// FlushDiskWatcher completes SYNC_FLUSH requests whose syncFlushTimeout passed before their
// flush with FLUSH_DISK_TIMEOUT, so a stalled disk cannot hold a producer forever. It watches
// the requests in the order the puts made them (deadlines grow in that order).
// Mirrors org.apache.rocketmq.store.FlushDiskWatcher.
//
// Its loop looks at the oldest request at most every 10 ms (Java sleeps min(10 ms, time left)
// rather than waking on each completion: under load thousands of requests complete a second).
type FlushDiskWatcher struct {
	c   *CommitLog // its owner: its clock, tracer and flush position
	svc *service.ServiceThread

	mu    sync.Mutex
	queue []*GroupCommitRequest // oldest first
}

func newFlushDiskWatcher(c *CommitLog) *FlushDiskWatcher {
	return &FlushDiskWatcher{c: c, svc: service.New("FlushDiskWatcher")}
}

// add watches r. Java: FlushDiskWatcher#add.
func (w *FlushDiskWatcher) add(r *GroupCommitRequest) {
	w.mu.Lock()
	w.queue = append(w.queue, r)
	first := len(w.queue) == 1
	w.mu.Unlock()
	if first {
		w.svc.Wakeup()
	}
}

// QueueSize is the number of requests watched (completed ones leave at the next pass).
// Java: FlushDiskWatcher#queueSize.
func (w *FlushDiskWatcher) QueueSize() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

func (w *FlushDiskWatcher) head() *GroupCommitRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return nil
	}
	return w.queue[0]
}

func (w *FlushDiskWatcher) pop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue[0] = nil
	w.queue = w.queue[1:]
}

// check handles the head request now: drops it when complete, times it out when its deadline
// passed. waiting is true when it must still be waited for; timedOut when this call timed it out.
func (w *FlushDiskWatcher) check(r *GroupCommitRequest) (waiting, timedOut bool) {
	if r.completed.Load() {
		w.pop()
		return false, false
	}
	if w.c.env.clock.mono() < r.deadline {
		return true, false
	}
	timedOut = r.wakeupCustomer(FlushDiskTimeout)
	if tr := w.c.env.tracer; timedOut && tr.Enabled() {
		tr.Step("FlushDiskWatcher#run", slog.Int64("nextOffset", int64(r.nextOffset)),
			slog.Int64("flushedWhere", int64(w.c.flushedWhere())), slog.String("status", FlushDiskTimeout.String()))
	}
	w.pop()
	return false, timedOut
}

// RunOnce is one pass without waiting: completed requests leave the queue, requests past
// their deadline are completed with FLUSH_DISK_TIMEOUT, up to the first one still within its
// time. It returns how many it timed out. Chapters call it with ManualServices after moving
// the store clock.
func (w *FlushDiskWatcher) RunOnce() int {
	n := 0
	for r := w.head(); r != nil; r = w.head() {
		waiting, timedOut := w.check(r)
		if waiting {
			break
		}
		if timedOut {
			n++
		}
	}
	return n
}

// start runs the watch loop. Java: FlushDiskWatcher#run.
func (w *FlushDiskWatcher) start() {
	w.svc.Start(func() {
		for !w.svc.Stopped() {
			r := w.head()
			if r == nil {
				w.svc.WaitForRunning(time.Hour)
				continue
			}
			if waiting, _ := w.check(r); !waiting {
				continue
			}
			wait := time.NewTimer(time.Duration(min(r.deadline-w.c.env.clock.mono(), 10)) * time.Millisecond)
			select {
			case <-wait.C:
			case <-w.svc.StopChan():
			}
			wait.Stop()
		}
	})
}

func (w *FlushDiskWatcher) shutdown() { w.svc.Shutdown() }
