package trace

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Gate is a slog.Handler that passes records to the wrapped handler only while it is open. A
// chapter opens it for the flow it shows and closes it before shutting its servers down, so
// set-up or shutdown noise stays out of the log. Handlers derived with WithAttrs/WithGroup share
// the gate's state. Safe for concurrent use.
type Gate struct {
	slog.Handler
	open *atomic.Bool
}

// NewGate wraps h; the gate starts open when open is true.
func NewGate(h slog.Handler, open bool) *Gate {
	g := &Gate{Handler: h, open: new(atomic.Bool)}
	g.open.Store(open)
	return g
}

// Open lets records through.
func (g *Gate) Open() { g.open.Store(true) }

// Close stops records.
func (g *Gate) Close() { g.open.Store(false) }

// Enabled implements slog.Handler.
func (g *Gate) Enabled(ctx context.Context, l slog.Level) bool {
	return g.open.Load() && g.Handler.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (g *Gate) Handle(ctx context.Context, r slog.Record) error {
	if !g.open.Load() {
		return nil
	}
	return g.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (g *Gate) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Gate{Handler: g.Handler.WithAttrs(attrs), open: g.open}
}

// WithGroup implements slog.Handler.
func (g *Gate) WithGroup(name string) slog.Handler {
	return &Gate{Handler: g.Handler.WithGroup(name), open: g.open}
}

// SyncWriter serializes writes to W: a chapter's printer (called on the servers' goroutines)
// and the scenario's own tables share one output.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

// Write implements io.Writer.
func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

// String returns W's text, read under the lock that guards the writes, when W is a
// fmt.Stringer (a *bytes.Buffer: a test reads what servers' goroutines write); "" otherwise.
func (s *SyncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.W.(fmt.Stringer); ok {
		return st.String()
	}
	return ""
}
