package mqtest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// turnstileTimeout is how long a goroutine stopped at a Turnstile waits for Pass before it goes
// on by itself (so a scenario that fails half-way never leaves a client's worker blocked).
const turnstileTimeout = 10 * time.Second

// Turnstile is a slog.Handler in front of one component's logger that lets a scenario choose
// the order in which goroutines that run at the same time log their steps: two consumers told
// of a membership change at once (NOTIFY_CONSUMER_IDS_CHANGED arrives at both over their own
// connections) would otherwise print their steps interleaved differently every run.
// Arm(key, value) makes the next record carrying that attribute stop its goroutine inside
// Handle, before it is passed on, until Pass lets it through; Records and WaitRecords count
// the records passed on. Nothing is reordered or dropped: each record is printed when its
// goroutine logs it; the scenario only decides which goroutine moves first, as it drives loop
// bodies by hand elsewhere. (It arms on a value, not a step label, so a chapter's code never
// names a label.) Safe for concurrent use; handlers derived with WithAttrs/WithGroup share it.
type Turnstile struct {
	next slog.Handler
	st   *turnstileState
}

type turnstileState struct {
	timeout time.Duration // how long a stopped goroutine waits at most (turnstileTimeout)

	mu      sync.Mutex
	armed   *slog.Attr    // the attribute that stops the next record carrying it; nil: none
	stopped chan struct{} // a goroutine waits on it; closed by Pass (or Open)
	records int
	changed chan struct{} // closed and replaced at every change
}

// NewTurnstile puts a turnstile in front of next; nothing is armed.
func NewTurnstile(next slog.Handler) *Turnstile {
	return &Turnstile{next: next, st: &turnstileState{timeout: turnstileTimeout, changed: make(chan struct{})}}
}

// Arm makes the next record carrying the string attribute key=value stop its goroutine until
// Pass (one record: the turnstile disarms when it stops one).
func (t *Turnstile) Arm(key, value string) {
	a := slog.String(key, value)
	t.st.mu.Lock()
	t.st.armed = &a
	t.st.mu.Unlock()
}

// Pass waits (up to timeout, on the wall clock) until a goroutine is stopped and lets it go on;
// it does not wait for what that goroutine logs (WaitRecords does).
func (t *Turnstile) Pass(timeout time.Duration) error {
	if t.wait(timeout, func(st *turnstileState) bool { return st.stopped != nil }) != nil {
		return fmt.Errorf("no goroutine reached the turnstile within %v", timeout)
	}
	t.st.mu.Lock()
	close(t.st.stopped)
	t.st.stopped = nil
	t.st.mu.Unlock()
	return nil
}

// Open disarms the turnstile and lets a stopped goroutine go on (a scenario defers it).
func (t *Turnstile) Open() {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	t.st.armed = nil
	if t.st.stopped != nil {
		close(t.st.stopped)
		t.st.stopped = nil
	}
}

// Records returns how many records have been passed on.
func (t *Turnstile) Records() int {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.st.records
}

// WaitRecords waits (up to timeout, on the wall clock) until n records have been passed on in
// all (printed, when the next handler prints).
func (t *Turnstile) WaitRecords(n int, timeout time.Duration) error {
	if t.wait(timeout, func(st *turnstileState) bool { return st.records >= n }) != nil {
		return fmt.Errorf("%d record(s) logged within %v, want %d", t.Records(), timeout, n)
	}
	return nil
}

// wait blocks until cond holds (checked under the lock at every change) or timeout passes.
func (t *Turnstile) wait(timeout time.Duration, cond func(*turnstileState) bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		t.st.mu.Lock()
		ok, changed := cond(t.st), t.st.changed
		t.st.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return context.DeadlineExceeded
		}
	}
}

// notifyLocked wakes the waiters; st.mu is held.
func (st *turnstileState) notifyLocked() {
	close(st.changed)
	st.changed = make(chan struct{})
}

// carries reports whether r has the attribute a.
func carries(r slog.Record, a slog.Attr) bool {
	found := false
	r.Attrs(func(x slog.Attr) bool {
		found = x.Equal(a)
		return !found
	})
	return found
}

// Enabled implements slog.Handler.
func (t *Turnstile) Enabled(ctx context.Context, l slog.Level) bool { return t.next.Enabled(ctx, l) }

// Handle implements slog.Handler: the first record carrying the armed attribute waits for Pass
// (at most turnstileTimeout: then it goes on and the turnstile no longer counts it as stopped,
// so a later Pass waits for a goroutine that is); then every record goes to the next handler and
// is counted.
func (t *Turnstile) Handle(ctx context.Context, r slog.Record) error {
	st := t.st
	st.mu.Lock()
	if st.armed != nil && st.stopped == nil && carries(r, *st.armed) {
		st.armed = nil
		gate := make(chan struct{})
		st.stopped = gate
		st.notifyLocked()
		st.mu.Unlock()
		timer := time.NewTimer(st.timeout)
		select {
		case <-gate:
		case <-timer.C:
			st.mu.Lock()
			if st.stopped == gate { // nobody passed it: it is no longer stopped
				st.stopped = nil
				st.notifyLocked()
			}
			st.mu.Unlock()
		}
		timer.Stop()
	} else {
		st.mu.Unlock()
	}
	err := t.next.Handle(ctx, r)
	st.mu.Lock()
	st.records++
	st.notifyLocked()
	st.mu.Unlock()
	return err
}

// WithAttrs implements slog.Handler.
func (t *Turnstile) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Turnstile{next: t.next.WithAttrs(attrs), st: t.st}
}

// WithGroup implements slog.Handler.
func (t *Turnstile) WithGroup(name string) slog.Handler {
	return &Turnstile{next: t.next.WithGroup(name), st: t.st}
}
