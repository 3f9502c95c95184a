package clock

import (
	"sync"
	"time"
)

// Clock tells the time. Every component takes one in its constructor or options; nil means
// System (see Or). Java: System#currentTimeMillis.
type Clock interface {
	Now() time.Time
}

// System is the wall clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Or returns c, or System when c is nil, so a zero-valued option means "real time".
func Or(c Clock) Clock {
	if c == nil {
		return System{}
	}
	return c
}

// Millis returns c's time in milliseconds since the Unix epoch (RocketMQ's timestamp unit).
func Millis(c Clock) int64 { return c.Now().UnixMilli() }

// Manual is a clock that moves only when told: tests and chapters use it to make timestamps,
// expiry and timeouts deterministic. Its zero value stands at the Unix epoch. Safe for
// concurrent use.
type Manual struct {
	mu sync.Mutex
	t  time.Time
}

// NewManual returns a Manual standing at t.
func NewManual(t time.Time) *Manual { return &Manual{t: t} }

// NewManualMillis returns a Manual standing at ms milliseconds after the Unix epoch, in UTC.
func NewManualMillis(ms int64) *Manual { return &Manual{t: time.UnixMilli(ms).UTC()} }

// Now returns the clock's current time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return m.t
}

// Advance moves the clock forward by d (backward when d < 0).
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.t.IsZero() {
		m.t = time.Unix(0, 0).UTC()
	}
	m.t = m.t.Add(d)
}

// Set puts the clock at t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t = t
}

// SetMillis puts the clock at ms milliseconds after the Unix epoch, in UTC.
func (m *Manual) SetMillis(ms int64) { m.Set(time.UnixMilli(ms).UTC()) }
