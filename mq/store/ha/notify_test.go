package ha

import (
	"testing"
	"time"
)

// TestWaitNotifyObjectKeepsAWakeup: a wakeupAll that comes after a waiter took its generation
// but before it waits is not lost — the wait returns at once — while a waiter that took its
// generation after the wakeupAll waits again. Java: WaitNotifyObject (hasNotified per waiter).
func TestWaitNotifyObjectKeepsAWakeup(t *testing.T) {
	w := newWaitNotifyObject()
	gen := w.generation()
	w.wakeupAll() // the put's wake-up, between the write loop's look for data and its wait
	done := make(chan struct{})
	go func() { w.allWaitForRunning(gen, time.Hour, nil); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the wake-up was lost")
	}

	later := w.generation()
	start := time.Now()
	w.allWaitForRunning(later, 20*time.Millisecond, nil)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("an old wake-up woke a new waiter")
	}
}
