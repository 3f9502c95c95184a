package service

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// The loop runs once per interval on a fake clock (Java: waitForRunning(interval) timing out).
func TestRunEveryRunsOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		s := New("x")
		s.RunEvery(0, time.Second, func() { n.Add(1) })
		synctest.Wait()
		require.EqualValues(t, 1, n.Load())
		time.Sleep(3*time.Second + time.Millisecond)
		synctest.Wait()
		require.EqualValues(t, 4, n.Load())
		s.Shutdown()
	})
}

// Wake-ups coalesce like Java's hasNotified: three wakeups while busy give one extra pass.
func TestWakeupsCoalesce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		s := New("x")
		s.Wakeup()
		s.Wakeup()
		s.Wakeup()
		s.RunEvery(0, time.Hour, func() { n.Add(1) })
		synctest.Wait()
		require.EqualValues(t, 2, n.Load(), "first pass, then one pass for the coalesced wake-ups")
		s.Shutdown()
	})
}

// Shutdown waits for the goroutine and is idempotent; WaitForRunning then returns false.
func TestShutdownStopsLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New("x")
		done := make(chan struct{})
		s.Start(func() {
			for s.WaitForRunning(time.Hour) {
			}
			close(done)
		})
		s.Shutdown()
		s.Shutdown()
		<-done
		require.True(t, s.Stopped())
		require.False(t, s.WaitForRunning(time.Second))
		New("never").Shutdown()
	})
}
