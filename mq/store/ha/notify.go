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

// generation is the channel the next wakeupAll closes. A waiter takes it before it looks for
// work and waits on it after finding none, so a wakeupAll in between is not lost (Java:
// WaitNotifyObject's per-thread hasNotified flag).
func (w *waitNotifyObject) generation() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

// allWaitForRunning waits up to d, until the wakeupAll that closes gen (taken with generation)
// or until stop is closed; it returns at once when that wakeupAll already happened.
func (w *waitNotifyObject) allWaitForRunning(gen <-chan struct{}, d time.Duration, stop <-chan struct{}) {
	ch := gen
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-stop:
	}
}
