package service

import (
	"sync"
	"time"
)

// ServiceThread runs a loop body on its own goroutine until Shutdown.
// Mirrors org.apache.rocketmq.common.ServiceThread.
type ServiceThread struct {
	name    string
	wake    chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	started bool
	mu      sync.Mutex
}

// New returns a ServiceThread named name (used only in operating logs).
func New(name string) *ServiceThread {
	return &ServiceThread{name: name, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Name is the service's name.
func (s *ServiceThread) Name() string { return s.name }

// Start runs loop on a new goroutine. loop should call WaitForRunning between passes and return
// when it answers false (or when Stopped() is true). Start on a started service does nothing.
func (s *ServiceThread) Start(loop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		loop()
	}()
}

// RunEvery starts a loop that calls pass, then waits up to interval (or a wake-up), until
// Shutdown. It is the common shape of RocketMQ's services: `while (!stopped) { waitForRunning(i); doX(); }`.
// With initialDelay > 0 the first pass waits that long first.
func (s *ServiceThread) RunEvery(initialDelay, interval time.Duration, pass func()) {
	s.Start(func() {
		if initialDelay > 0 && !s.WaitForRunning(initialDelay) {
			return
		}
		for {
			pass()
			if !s.WaitForRunning(interval) {
				return
			}
		}
	})
}

// WaitForRunning sleeps until interval has passed, Wakeup was called (now or since the last
// wait: wake-ups coalesce), or Shutdown began. It returns false once the service is stopping.
// Java: ServiceThread#waitForRunning.
func (s *ServiceThread) WaitForRunning(interval time.Duration) bool {
	select {
	case <-s.stop:
		return false
	default:
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	select {
	case <-s.stop:
		return false
	case <-s.wake:
		return true
	case <-t.C:
		return true
	}
}

// Wakeup makes the current or next WaitForRunning return at once. Java: ServiceThread#wakeup.
func (s *ServiceThread) Wakeup() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stopped reports whether Shutdown has begun.
func (s *ServiceThread) Stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// StopChan is closed when Shutdown begins (for loops that select on other channels too).
func (s *ServiceThread) StopChan() <-chan struct{} { return s.stop }

// Shutdown stops the loop and waits for its goroutine to return. Safe to call more than once and
// on a service never started. Java: ServiceThread#shutdown.
func (s *ServiceThread) Shutdown() {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
}
