package trace

import (
	"context"
	"log/slog"
)

// LevelStep is the slog level of step records: below Debug, so an ordinary handler configured
// for Info or Debug never prints steps.
const LevelStep slog.Level = slog.LevelDebug - 4

// ComponentKey is the attribute key under which a Tracer records its component name
// ("broker-a", "namesrv", "client"). Handlers print it as "[component]".
const ComponentKey = "component"

// Tracer writes the steps of one component instance. The zero of *Tracer (nil) is a disabled
// tracer: every method is safe to call on nil and does nothing.
type Tracer struct {
	logger    *slog.Logger
	component string
}

// New returns a tracer writing step records for component to logger. A nil logger gives a nil
// (disabled) tracer.
func New(logger *slog.Logger, component string) *Tracer {
	if logger == nil {
		return nil
	}
	return &Tracer{logger: logger, component: component}
}

// Component is the name this tracer tags its steps with ("" for a nil tracer).
func (t *Tracer) Component() string {
	if t == nil {
		return ""
	}
	return t.component
}

// Logger returns the underlying logger (nil for a nil tracer); operating logs may use it.
func (t *Tracer) Logger() *slog.Logger {
	if t == nil {
		return nil
	}
	return t.logger
}

// Enabled reports whether steps are recorded. Check it before building attributes.
func (t *Tracer) Enabled() bool {
	return t != nil && t.logger.Enabled(context.Background(), LevelStep)
}

// Step records one step: label is the mind-map node ("CommitLog#doAppend"), attrs the values the
// step decided. It does nothing when the tracer is disabled.
func (t *Tracer) Step(label string, attrs ...slog.Attr) {
	if !t.Enabled() {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+1)
	all = append(all, slog.String(ComponentKey, t.component))
	all = append(all, attrs...)
	t.logger.LogAttrs(context.Background(), LevelStep, label, all...)
}

// With returns a tracer for another component that writes to the same logger (nil stays nil).
func (t *Tracer) With(component string) *Tracer {
	if t == nil {
		return nil
	}
	return &Tracer{logger: t.logger, component: component}
}
