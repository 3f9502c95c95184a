package trace

import (
	"context"
	"log/slog"
	"sync"
)

// Recorded is one step kept by a Recorder.
type Recorded struct {
	Component string
	Label     string
	Attrs     map[string]string
}

// Recorder is a slog.Handler for tests: it keeps every step record (level LevelStep) in order
// and ignores everything else. Safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	steps []Recorded
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Enabled implements slog.Handler: only steps.
func (r *Recorder) Enabled(_ context.Context, l slog.Level) bool { return l == LevelStep }

// Handle implements slog.Handler.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	s := Recorded{Label: rec.Message, Attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == ComponentKey {
			s.Component = a.Value.String()
		} else {
			s.Attrs[a.Key] = a.Value.Resolve().String()
		}
		return true
	})
	r.mu.Lock()
	r.steps = append(r.steps, s)
	r.mu.Unlock()
	return nil
}

// WithAttrs implements slog.Handler (attributes are not kept).
func (r *Recorder) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup implements slog.Handler.
func (r *Recorder) WithGroup(string) slog.Handler { return r }

// Steps returns a copy of the recorded steps.
func (r *Recorder) Steps() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.steps...)
}

// Labels returns the recorded labels in order.
func (r *Recorder) Labels() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.steps))
	for i, s := range r.steps {
		out[i] = s.Label
	}
	return out
}

// Tracer returns a tracer for component that records into r.
func (r *Recorder) Tracer(component string) *Tracer {
	return New(slog.New(r), component)
}
