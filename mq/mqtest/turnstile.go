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
// Arm(label) makes the next record with that label stop its goroutine inside Handle, before it
// is passed on, until Pass(label) lets it through; Seen and WaitSeen count the records passed
// on by label. Nothing is reordered or dropped: each record is printed when its goroutine
// logs it; the scenario only decides which goroutine moves first, as it drives loop bodies by
// hand elsewhere. Safe for concurrent use; handlers derived with WithAttrs/WithGroup share it.
type Turnstile struct {
	next slog.Handler
	st   *turnstileState
}

type turnstileState struct {
	mu      sync.Mutex
	armed   map[string]bool
	stopped map[string]chan struct{} // label → closed by Pass (or Open)
	seen    map[string]int
	changed chan struct{} // closed and replaced at every change
}

// NewTurnstile puts a turnstile in front of next; nothing is armed.
func NewTurnstile(next slog.Handler) *Turnstile {
	return &Turnstile{next: next, st: &turnstileState{armed: map[string]bool{}, stopped: map[string]chan struct{}{},
		seen: map[string]int{}, changed: make(chan struct{})}}
}

// Arm makes the next record with label stop its goroutine until Pass(label).
func (t *Turnstile) Arm(label string) {
	t.st.mu.Lock()
	t.st.armed[label] = true
	t.st.mu.Unlock()
}

// Pass waits (up to timeout, on the wall clock) until a goroutine is stopped at label and lets
// it go on; it does not wait for what that goroutine logs next (WaitSeen does).
func (t *Turnstile) Pass(label string, timeout time.Duration) error {
	err := t.wait(timeout, func(st *turnstileState) bool { return st.stopped[label] != nil })
	if err != nil {
		return fmt.Errorf("no goroutine reached %s within %v", label, timeout)
	}
	t.st.mu.Lock()
	close(t.st.stopped[label])
	delete(t.st.stopped, label)
	t.st.mu.Unlock()
	return nil
}

// Open disarms every label and lets every stopped goroutine go on (a scenario defers it).
func (t *Turnstile) Open() {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	clear(t.st.armed)
	for l, c := range t.st.stopped {
		close(c)
		delete(t.st.stopped, l)
	}
}

// Seen returns how many records with label have been passed on.
func (t *Turnstile) Seen(label string) int {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	return t.st.seen[label]
}

// WaitSeen waits (up to timeout, on the wall clock) until n records with label have been
// passed on in all (printed, when the next handler prints).
func (t *Turnstile) WaitSeen(label string, n int, timeout time.Duration) error {
	if t.wait(timeout, func(st *turnstileState) bool { return st.seen[label] >= n }) != nil {
		return fmt.Errorf("%s was logged %d time(s) within %v, want %d", label, t.Seen(label), timeout, n)
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

// Enabled implements slog.Handler.
func (t *Turnstile) Enabled(ctx context.Context, l slog.Level) bool { return t.next.Enabled(ctx, l) }

// Handle implements slog.Handler: a record of an armed label waits for Pass (at most
// turnstileTimeout), then every record goes to the next handler and is counted.
func (t *Turnstile) Handle(ctx context.Context, r slog.Record) error {
	st := t.st
	st.mu.Lock()
	if st.armed[r.Message] {
		delete(st.armed, r.Message)
		gate := make(chan struct{})
		st.stopped[r.Message] = gate
		st.notifyLocked()
		st.mu.Unlock()
		timer := time.NewTimer(turnstileTimeout)
		select {
		case <-gate:
		case <-timer.C:
		}
		timer.Stop()
	} else {
		st.mu.Unlock()
	}
	err := t.next.Handle(ctx, r)
	st.mu.Lock()
	st.seen[r.Message]++
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
