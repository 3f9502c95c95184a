// Package service holds ServiceThread, the one type every background job is built on (reput,
// flush, clean, long polling, name-server scan, broker registration, ...), and Group, the
// short-lived goroutines an owner's shutdown waits for.
//
// Java: org.apache.rocketmq.common.ServiceThread. A ServiceThread is a goroutine running a loop
// body; waitForRunning(interval) sleeps until the interval passes or someone calls wakeup().
// Wake-ups coalesce: the wake-up channel has capacity 1, like Java's hasNotified flag, so many
// wakeup() calls during one pass cause one extra pass, not many.
//
// The type invents no step labels: each service logs its own ("ReputMessageService#run") from
// its loop body, and only when a pass did work.
//
// # Files
//
//	service.go  ServiceThread: New, Start(loop), RunEvery(initialDelay, interval, pass),
//	            WaitForRunning, Wakeup, Stopped, StopChan, Shutdown
//	group.go    Group: the goroutines and timers an owner's shutdown waits for (Go,
//	            AfterFunc), refused once closed (Close cancels the timers; Closed, Wait)
//
// Goroutines: one per started ServiceThread, and a Group's tasks. Shutdown closes the stop
// channel and waits for the goroutine to return; no goroutine outlives its owner.
// ServiceThread.mu guards the started flag (Start is idempotent); stop is closed once
// (sync.Once). Group.mu guards closed, so no task is counted after Close.
package service
