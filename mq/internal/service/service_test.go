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

// A Group runs and counts tasks until it is closed, then refuses them; Wait waits for the
// counted ones (a goroutine and a task counted and ended by hand).
func TestGroup(t *testing.T) {
	var g Group
	release := make(chan struct{})
	var ran atomic.Int32
	require.True(t, g.Go(func() { <-release; ran.Add(1) }))
	require.True(t, g.add())
	require.False(t, g.Closed())
	g.Close()
	require.True(t, g.Closed())
	require.False(t, g.Go(func() { ran.Add(10) }), "closed: refused")
	require.False(t, g.add())
	waited := make(chan struct{})
	go func() { g.Wait(); close(waited) }()
	close(release)
	g.wg.Done()
	<-waited
	require.Equal(t, int32(1), ran.Load())
}

// AfterFunc runs its function after the delay; Close cancels one that has not fired, and
// Wait does not wait for it.
func TestGroupAfterFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		var ran atomic.Int32
		require.True(t, g.AfterFunc(time.Second, func() { ran.Add(1) }))
		require.True(t, g.AfterFunc(time.Hour, func() { ran.Add(10) }))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Equal(t, int32(1), ran.Load(), "the first fired")
		g.Close()
		g.Wait()
		require.False(t, g.AfterFunc(time.Second, func() { ran.Add(100) }), "closed: refused")
		time.Sleep(2 * time.Hour)
		require.Equal(t, int32(1), ran.Load(), "the cancelled one never runs")
	})
}
