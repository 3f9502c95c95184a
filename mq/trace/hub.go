package trace

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Hub is a slog.Handler that passes every record to a base handler and, while at least one
// watcher is subscribed, hands step records (level LevelStep) to the watchers as well. It lets
// a running broker stream its step trace to a console page that asks for it, and costs nothing
// while no page watches: Enabled for LevelStep is then the base handler's answer (false for the
// binaries' operating log) after one atomic load, so every `if t.Enabled()` guard on the hot
// paths stays false and builds no attributes (TestHubWithoutWatchersAllocatesNothing, and the
// store's TestPutAllocationsWithIdleHub on the put path).
//
// Handlers derived with WithAttrs or WithGroup share the hub's watchers and count. Safe for
// concurrent use.
type Hub struct {
	base  slog.Handler
	attrs []slog.Attr // added by WithAttrs, given to watchers with each record
	state *hubState
}

// hubState is what a hub and the handlers derived from it share.
type hubState struct {
	watchers atomic.Int32 // len(subs), read without the lock on every Enabled
	mu       sync.RWMutex // guards subs and next
	subs     map[int]func(slog.Record)
	next     int
}

// NewHub returns a hub over base (nil: records other than steps go nowhere).
func NewHub(base slog.Handler) *Hub {
	if base == nil {
		base = slog.DiscardHandler
	}
	return &Hub{base: base, state: &hubState{subs: map[int]func(slog.Record){}}}
}

// Subscribe adds a watcher: fn is called with every step record from now on, on the goroutine
// that logs it, so fn must be quick and must not block (a console queues the record and
// returns). fn may keep the record only after Record.Clone. The returned cancel removes the
// watcher; it may be called more than once. When the last watcher leaves, steps are off again.
func (h *Hub) Subscribe(fn func(slog.Record)) (cancel func()) {
	s := h.state
	s.mu.Lock()
	id := s.next
	s.next++
	s.subs[id] = fn
	s.watchers.Store(int32(len(s.subs)))
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subs, id)
			s.watchers.Store(int32(len(s.subs)))
			s.mu.Unlock()
		})
	}
}

// Watchers is the number of subscribed watchers.
func (h *Hub) Watchers() int { return int(h.state.watchers.Load()) }

// Enabled implements slog.Handler: steps while a watcher is subscribed, and whatever the base
// handler takes.
func (h *Hub) Enabled(ctx context.Context, l slog.Level) bool {
	if l == LevelStep && h.state.watchers.Load() > 0 {
		return true
	}
	return h.base.Enabled(ctx, l)
}

// Handle implements slog.Handler: a step goes to every watcher (with the attributes of
// WithAttrs first), then the record to the base handler if it takes the level.
func (h *Hub) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == LevelStep && h.state.watchers.Load() > 0 {
		rec := r
		if len(h.attrs) > 0 {
			rec = slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
			rec.AddAttrs(h.attrs...)
			r.Attrs(func(a slog.Attr) bool { rec.AddAttrs(a); return true })
		}
		h.state.mu.RLock()
		for _, fn := range h.state.subs {
			fn(rec)
		}
		h.state.mu.RUnlock()
	}
	if h.base.Enabled(ctx, r.Level) {
		return h.base.Handle(ctx, r)
	}
	return nil
}

// WithAttrs implements slog.Handler; the derived handler shares the watchers.
func (h *Hub) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Hub{base: h.base.WithAttrs(attrs), attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...), state: h.state}
}

// WithGroup implements slog.Handler; watchers see groups flattened, as the Printer prints them.
func (h *Hub) WithGroup(name string) slog.Handler {
	return &Hub{base: h.base.WithGroup(name), attrs: h.attrs, state: h.state}
}
