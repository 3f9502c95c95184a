package trace

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Printer is a slog.Handler that prints step records as chapter log lines:
//
//	[broker-a] 12 CommitLog#doAppend wroteOffset=4096 queueId=2
//
// Steps are numbered from 1 in the order they are handled, across every tracer that shares the
// printer. Records at other levels are printed only if their level is ≥ MinLevel, as
// "LEVEL message k=v". Safe for concurrent use.
type Printer struct {
	mu       *sync.Mutex
	w        io.Writer
	n        *int
	minLevel slog.Level
	attrs    []slog.Attr
}

// NewPrinter returns a Printer writing to w; operating logs below minLevel are dropped.
func NewPrinter(w io.Writer, minLevel slog.Level) *Printer {
	return &Printer{mu: new(sync.Mutex), w: w, n: new(int), minLevel: minLevel}
}

// Enabled implements slog.Handler.
func (p *Printer) Enabled(_ context.Context, l slog.Level) bool {
	return l == LevelStep || l >= p.minLevel
}

// Handle implements slog.Handler.
func (p *Printer) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	component := ""
	var rest []slog.Attr
	collect := func(a slog.Attr) bool {
		if a.Key == ComponentKey {
			component = a.Value.String()
		} else {
			rest = append(rest, a)
		}
		return true
	}
	for _, a := range p.attrs {
		collect(a)
	}
	r.Attrs(collect)
	p.mu.Lock()
	defer p.mu.Unlock()
	if component != "" {
		fmt.Fprintf(&b, "[%s] ", component)
	}
	if r.Level == LevelStep {
		*p.n++
		fmt.Fprintf(&b, "%02d %s", *p.n, r.Message)
	} else {
		fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	}
	for _, a := range rest {
		fmt.Fprintf(&b, " %s=%s", a.Key, formatValue(a.Value))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(p.w, b.String())
	return err
}

func formatValue(v slog.Value) string {
	s := v.Resolve().String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// WithAttrs implements slog.Handler.
func (p *Printer) WithAttrs(attrs []slog.Attr) slog.Handler {
	q := *p
	q.attrs = append(append([]slog.Attr(nil), p.attrs...), attrs...)
	return &q
}

// WithGroup implements slog.Handler; groups are flattened.
func (p *Printer) WithGroup(string) slog.Handler { return p }
