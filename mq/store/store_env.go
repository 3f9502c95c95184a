package store

import (
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// storeEnv is what every part of the store reads and nobody writes: the config, the options,
// the clock, the tracer, the operating log and the store root. It holds no collaborator: a
// part's files, the checkpoint, the running flags and the listeners it calls are fields of
// its own, given by the facade that wires the parts together.
type storeEnv struct {
	cfg    *MessageStoreConfig
	opts   *Options // with defaults filled in
	clock  storeClock
	tracer *trace.Tracer
	log    storeLogger
	root   storeRoot
}

func newStoreEnv(cfg *MessageStoreConfig, opts *Options, tr *trace.Tracer, root string) storeEnv {
	return storeEnv{cfg: cfg, opts: opts, clock: newStoreClock(opts), tracer: tr,
		log: storeLogger{tr.Logger()}, root: storeRoot(root)}
}

// events are the options' event listeners.
func (e *storeEnv) events() *EventListener { return &e.opts.Events }

// storeClock reads Options.Clock: store time in ms (Java: System#currentTimeMillis) and a
// monotonic ms for SYNC_FLUSH deadlines (Java: System#nanoTime), which a wall-clock step
// cannot move (the system clock's readings carry Go's monotonic reading).
type storeClock struct {
	opts *Options
	base time.Time
}

func newStoreClock(opts *Options) storeClock { return storeClock{opts: opts, base: opts.Clock.Now()} }

// now is the store time in ms.
func (c storeClock) now() int64 { return c.opts.Clock.Now().UnixMilli() }

// mono is the time in ms since the store was built, on the monotonic reading where there is one.
func (c storeClock) mono() int64 { return c.opts.Clock.Now().Sub(c.base).Milliseconds() }

// storeRoot is the absolute store root; rel renders a path relative to it (deterministic trace
// values).
type storeRoot string

func (r storeRoot) rel(path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		if p, err := filepath.Rel(string(r), abs); err == nil && !filepath.IsAbs(p) && (len(p) < 2 || p[:2] != "..") {
			return filepath.ToSlash(p)
		}
	}
	return filepath.Base(path)
}

// storeLogger is the operating log (the tracer's logger); a nil logger is silent.
type storeLogger struct{ l *slog.Logger }

func (g storeLogger) error(msg string, err error, args ...any) {
	if g.l != nil {
		g.l.Error(msg, append([]any{"err", err}, args...)...)
	}
}

// errorMsg logs an error-level message that has no error value.
func (g storeLogger) errorMsg(msg string, args ...any) {
	if g.l != nil {
		g.l.Error(msg, args...)
	}
}

func (g storeLogger) warn(msg string, args ...any) {
	if g.l != nil {
		g.l.Warn(msg, args...)
	}
}

func (g storeLogger) info(msg string, args ...any) {
	if g.l != nil {
		g.l.Info(msg, args...)
	}
}

// RunningFlags are the flags that make the store refuse puts: shut down (until Start and from
// Shutdown), a ConsumeQueue write failed, an index file could not be created, the disk is above
// diskSpaceWarningLevelRatio. The facade, CommitLog, the ConsumeQueues, the index and the
// clean service share one set. Java: org.apache.rocketmq.store.RunningFlags (and
// DefaultMessageStore#shutdown).
type runningFlags struct {
	shutdown    atomic.Bool
	logicsError atomic.Bool
	indexError  atomic.Bool
	diskFull    atomic.Bool
}

// isWriteable: no flag but shutdown forbids writing. Java: RunningFlags#isWriteable.
func (f *runningFlags) isWriteable() bool {
	return !f.logicsError.Load() && !f.indexError.Load() && !f.diskFull.Load()
}

// isCQWriteable: no ConsumeQueue write failed. Java: RunningFlags#isCQWriteable.
func (f *runningFlags) isCQWriteable() bool { return !f.logicsError.Load() }
