package ha

import (
	"sync"
	"time"
)

// waitNotifyObject wakes every goroutine waiting for new CommitLog data (the master's write
// services) at once. Java: org.apache.rocketmq.store.ha.WaitNotifyObject (wakeupAll,
// allWaitForRunning).
type waitNotifyObject struct {
	mu sync.Mutex
	ch chan struct{} // closed by wakeupAll, then replaced
}

func newWaitNotifyObject() *waitNotifyObject { return &waitNotifyObject{ch: make(chan struct{})} }

// wakeupAll wakes every current waiter.
func (w *waitNotifyObject) wakeupAll() {
	w.mu.Lock()
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}

// allWaitForRunning waits up to d, until wakeupAll or until stop is closed.
func (w *waitNotifyObject) allWaitForRunning(d time.Duration, stop <-chan struct{}) {
	w.mu.Lock()
	ch := w.ch
	w.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-stop:
	}
}
