package bench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// meter accumulates one latency series: a histogram for the run's percentiles and cumulative
// counters the per-second line takes differences of, as RocketMQ's StatsBenchmarkProducer and
// StatsBenchmarkConsumer keep LongAdders and take snapshots. Lock-free; safe for concurrent
// observe calls.
type meter struct {
	hist        Histogram
	messages    atomic.Int64
	intervalMax atomic.Int64 // ns, the largest sample since the last interval
}

// observe records one latency sample d covering msgs messages.
func (m *meter) observe(msgs int64, d time.Duration) {
	m.hist.Record(d)
	m.messages.Add(msgs)
	v := int64(d)
	for cur := m.intervalMax.Load(); v > cur && !m.intervalMax.CompareAndSwap(cur, v); cur = m.intervalMax.Load() {
	}
}

// snapshot is a meter's cumulative figures at one instant.
type snapshot struct {
	messages int64
	samples  int64
	sum      time.Duration
}

func (m *meter) snapshot() snapshot {
	return snapshot{messages: m.messages.Load(), samples: int64(m.hist.Count()), sum: time.Duration(m.hist.sum.Load())}
}

// interval is what a meter saw between two snapshots: messages, the mean and (taken from the
// meter, and reset) the max of the samples.
type interval struct {
	messages  int64
	mean, max time.Duration
}

// since returns the interval from prev to now and resets the interval max.
func (m *meter) since(prev, now snapshot) interval {
	iv := interval{messages: now.messages - prev.messages, max: time.Duration(m.intervalMax.Swap(0))}
	if n := now.samples - prev.samples; n > 0 {
		iv.mean = (now.sum - prev.sum) / time.Duration(n)
	}
	return iv
}

// wall is the run's clock: figures are wall-clock measurements (durations from its monotonic
// reading), so there is nothing to inject.
var wall clock.Clock = clock.System{}

// timeLayout is the "Current Time" of a per-second line (RocketMQ: UtilAll.timeMillisToHumanString2).
const timeLayout = "2006-01-02 15:04:05,000"

// reportEvery calls line every period until ctx is done or stop is called, with the wall-clock
// time and the elapsed period; stop waits for the reporter to return. A nil w reports nothing.
func reportEvery(ctx context.Context, w io.Writer, period time.Duration, line func(w io.Writer, now time.Time, period time.Duration)) (stop func()) {
	if w == nil || period <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		last := wall.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				line(w, now, now.Sub(last))
				last = now
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// perSecond scales n over period to a rate per second.
func perSecond(n int64, period time.Duration) int64 {
	if period <= 0 {
		return 0
	}
	return int64(float64(n)/period.Seconds() + 0.5)
}

// printf writes to w, ignoring errors (a per-second line to a closed terminal is not worth
// stopping a run for).
func printf(w io.Writer, format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) }
