// Package trace carries the step trace: one line per mind-map node that happens, written by the
// code under mq/ at the place the step happens.
//
// A step is a log/slog record at level LevelStep (below Debug) whose message is the step label,
// exactly as in the chapter specs ("CommitLog#doAppend"), and whose attributes are the values
// the step decided (offsets, queue ids, file names). Each component instance (a broker, the name
// server, a client) owns one *Tracer, passed in its config; a nil *Tracer is off and costs one
// nil check. Callers guard attribute building with Enabled:
//
//	if t.Enabled() {
//		t.Step("CommitLog#doAppend", slog.Int64("wroteOffset", off), slog.Int("queueId", qid))
//	}
//
// so a disabled trace allocates nothing (see TestDisabledStepAllocatesNothing).
//
// Printing is a slog.Handler's business: NewPrinter renders "[component] NN Label k=v ..." lines
// with a shared step counter, and Recorder keeps the labels for tests. The same *slog.Logger can
// carry operating logs at the normal levels.
//
// Java: none; RocketMQ logs with logback. This package exists for the annotated text.
//
// # Files in reading order
//
//	trace.go     LevelStep, ComponentKey, Tracer (New, Enabled, Step, With)
//	printer.go   Printer: the chapters' "[component] NN Label k=v ..." handler, one step counter
//	             shared by every tracer that prints through it
//	recorder.go  Recorder: keeps the step records of a run for tests (Labels, Steps, Tracer)
//	gate.go      Gate (a handler that passes records only while open, so set-up and shutdown stay
//	             out of a chapter's log) and SyncWriter (one output for printer and tables)
//	hub.go       Hub: the operating log's handler plus watchers (a console's live trace page)
//	             that get the steps only while subscribed; an atomic count keeps steps off otherwise
//
// Goroutines: none of its own; steps are logged on the goroutine where they happen. Locks: a
// Printer's mutex (shared with the handlers derived from it) guards its counter and its writes;
// Recorder.mu guards the kept records; a Hub's RWMutex guards its watcher set (the count beside
// it is an atomic, read by every Enabled); SyncWriter.mu serializes writes and String; Gate's
// state is an atomic.
package trace
