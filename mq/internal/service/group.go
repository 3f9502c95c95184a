package service

import (
	"sync"
	"time"
)

// Group counts the goroutines (and timers yet to fire) that an owner's shutdown must wait
// for, and refuses new ones once closed: the broker's held-pull replays, a push consumer's
// consume requests and its delayed re-consumes and pulls. The zero Group is open.
type Group struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	timers map[*time.Timer]struct{} // AfterFunc's timers yet to fire
}

// Go runs f on a new goroutine counted by the group, unless the group is closed; it reports
// whether f runs.
func (g *Group) Go(f func()) bool {
	if !g.add() {
		return false
	}
	go func() {
		defer g.wg.Done()
		f()
	}()
	return true
}

// add counts one task that will call wg.Done, unless the group is closed; it reports whether
// the task was counted.
func (g *Group) add() bool {
	g.mu.Lock()
	ok := !g.closed
	if ok {
		g.wg.Add(1)
	}
	g.mu.Unlock()
	return ok
}

// Closed reports whether Close was called.
func (g *Group) Closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// AfterFunc runs f after d on its own goroutine, counted by the group from now on, unless the
// group is closed; it reports whether f was scheduled. Close cancels it if it has not fired.
func (g *Group) AfterFunc(d time.Duration, f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		g.mu.Lock()
		delete(g.timers, t)
		g.mu.Unlock()
		defer g.wg.Done()
		f()
	})
	if g.timers == nil {
		g.timers = map[*time.Timer]struct{}{}
	}
	g.timers[t] = struct{}{}
	return true
}

// Close refuses new tasks from now on and cancels AfterFunc's timers that have not fired; it
// does not wait for running tasks (see Wait).
func (g *Group) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for t := range g.timers {
		if t.Stop() {
			g.wg.Done()
		}
	}
	g.timers = nil
}

// Wait waits for every task counted so far.
func (g *Group) Wait() { g.wg.Wait() }
