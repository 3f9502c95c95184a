// Package clock is the one source of time for every component of the system: the name server,
// the broker's managers and long polling, the store and the clients all read the time through a
// Clock, so a test or a chapter can swap one value and make every timestamp it prints
// reproducible.
//
// RocketMQ reads System.currentTimeMillis() wherever it needs the time; this package is the Go
// seam for those calls. Timers and tickers are not routed through it: background services wait
// with the runtime's timers, which testing/synctest fakes where a test needs it.
//
// Files:
//   - clock.go: the Clock interface, System (the wall clock), Manual (a clock that moves only
//     when told) and Or (nil means System).
//
// Goroutines: none. Manual is safe for concurrent use (one mutex guards its time).
package clock
