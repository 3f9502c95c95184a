package producer

import (
	"cmp"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// FaultItem is what the producer remembers of one broker: the latency of its last send and the
// time from which it may be chosen again.
// Mirrors org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl.FaultItem.
//
// The two numbers are atomics (Java: volatile longs); an item is safe for concurrent use.
type FaultItem struct {
	name           string
	currentLatency atomic.Int64 // ms
	startTimestamp atomic.Int64 // ms since the epoch, on the producer's clock
	clock          clock.Clock
	tr             *trace.Tracer
}

// Name is the broker name.
func (f *FaultItem) Name() string { return f.name }

// CurrentLatency is the latency of the last send recorded, in ms.
func (f *FaultItem) CurrentLatency() int64 { return f.currentLatency.Load() }

// StartTimestamp is when the broker becomes available again, in ms since the epoch.
func (f *FaultItem) StartTimestamp() int64 { return f.startTimestamp.Load() }

// IsAvailable reports whether startTimestamp has been reached: now − startTimestamp ≥ 0.
// Java: FaultItem#isAvailable.
func (f *FaultItem) IsAvailable() bool {
	now := clock.Millis(f.clock)
	start := f.startTimestamp.Load()
	ok := now-start >= 0
	if f.tr.Enabled() {
		f.tr.Step("FaultItem#isAvailable", slog.String("name", f.name), slog.Bool("available", ok),
			slog.Int64("currentLatency", f.currentLatency.Load()), slog.Int64("unavailableForMs", max(start-now, 0)))
	}
	return ok
}

// CompareTo orders items for pickOneAtLeast: available before unavailable, then lower
// currentLatency, then earlier startTimestamp. Java: FaultItem#compareTo.
func (f *FaultItem) CompareTo(o *FaultItem) int {
	now := clock.Millis(f.clock)
	return compareFaultItems(f.snapshot(now), o.snapshot(now))
}

type faultItemSnapshot struct {
	name           string
	available      bool
	currentLatency int64
	startTimestamp int64
}

func (f *FaultItem) snapshot(now int64) faultItemSnapshot {
	start := f.startTimestamp.Load()
	return faultItemSnapshot{name: f.name, available: now-start >= 0, currentLatency: f.currentLatency.Load(), startTimestamp: start}
}

// LatencyFaultToleranceImpl is the table of fault items, one per broker name that has been
// sent to while the latency fault tolerance was on.
// Mirrors org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl. mu guards the table
// (Java: a ConcurrentHashMap); items update themselves atomically.
type LatencyFaultTolerance struct {
	mu             sync.Mutex
	table          map[string]*FaultItem
	whichItemWorst *client.ThreadLocalIndex
	clock          clock.Clock
	tr             *trace.Tracer
}

// NewLatencyFaultTolerance returns an empty table reading time (ms) from clk (nil: the wall
// clock), its pickOneAtLeast index starting at seed.
func NewLatencyFaultTolerance(clk clock.Clock, seed int32, tr *trace.Tracer) *LatencyFaultTolerance {
	return &LatencyFaultTolerance{table: map[string]*FaultItem{}, whichItemWorst: client.NewThreadLocalIndex(seed), clock: clock.Or(clk), tr: tr}
}

// UpdateFaultItem records a send on name: its latency (ms), and that the broker is not to be
// chosen for notAvailableDuration ms from now (startTimestamp = now + notAvailableDuration).
// Java: LatencyFaultToleranceImpl#updateFaultItem.
func (l *LatencyFaultTolerance) UpdateFaultItem(name string, currentLatency, notAvailableDuration int64) {
	start := clock.Millis(l.clock) + notAvailableDuration
	l.mu.Lock()
	item := l.table[name]
	if item == nil {
		item = &FaultItem{name: name, clock: l.clock, tr: l.tr}
		l.table[name] = item
	}
	l.mu.Unlock()
	item.currentLatency.Store(currentLatency)
	item.startTimestamp.Store(start)
	if l.tr.Enabled() {
		l.tr.Step("LatencyFaultToleranceImpl#updateFaultItem", slog.String("name", name),
			slog.Int64("currentLatency", currentLatency), slog.Int64("notAvailableDuration", notAvailableDuration),
			slog.Int64("startTimestamp", start))
	}
}

// IsAvailable reports whether name may be chosen: true without a fault item, else the item's
// answer. Java: LatencyFaultToleranceImpl#isAvailable.
func (l *LatencyFaultTolerance) IsAvailable(name string) bool {
	l.mu.Lock()
	item := l.table[name]
	l.mu.Unlock()
	if l.tr.Enabled() {
		l.tr.Step("LatencyFaultToleranceImpl#isAvailable", slog.String("name", name), slog.Bool("faultItem", item != nil))
	}
	if item == nil {
		return true
	}
	return item.IsAvailable()
}

// Remove drops name's fault item. Java: LatencyFaultToleranceImpl#remove.
func (l *LatencyFaultTolerance) Remove(name string) {
	l.mu.Lock()
	delete(l.table, name)
	l.mu.Unlock()
}

// PickOneAtLeast returns the broker to use when none is available: the items are sorted (see
// FaultItem.CompareTo) and one of the better half is taken round-robin — the best one when
// there are fewer than two items. "" when the table is empty.
// Java: LatencyFaultToleranceImpl#pickOneAtLeast.
func (l *LatencyFaultTolerance) PickOneAtLeast() string {
	now := clock.Millis(l.clock)
	l.mu.Lock()
	items := make([]faultItemSnapshot, 0, len(l.table))
	for _, it := range l.table {
		items = append(items, it.snapshot(now))
	}
	l.mu.Unlock()
	if len(items) == 0 {
		return ""
	}
	// Sort by name first so equal items keep a stable order (Java: hash order).
	slices.SortFunc(items, func(a, b faultItemSnapshot) int { return cmp.Compare(a.name, b.name) })
	slices.SortStableFunc(items, compareFaultItems)
	pick := items[0].name
	if half := len(items) / 2; half > 0 {
		pick = items[l.whichItemWorst.IncrementAndGet()%int32(half)].name
	}
	if l.tr.Enabled() {
		l.tr.Step("LatencyFaultToleranceImpl#pickOneAtLeast", slog.Int("items", len(items)), slog.String("picked", pick))
	}
	return pick
}

// FaultItems returns the items, sorted by broker name (for tables and tests).
func (l *LatencyFaultTolerance) FaultItems() []*FaultItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*FaultItem, 0, len(l.table))
	for _, name := range slices.Sorted(maps.Keys(l.table)) {
		out = append(out, l.table[name])
	}
	return out
}
