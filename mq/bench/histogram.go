package bench

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// The histogram's bucket layout, after HdrHistogram's: values (nanoseconds) below subCount are
// counted exactly, one bucket each; above, every power of two [2^k, 2^(k+1)) is split into
// halfCount buckets of equal width, so a bucket is at most 1/halfCount (0.78 %) of its values
// wide whatever their magnitude. maxShift bounds the range: values from 2^(subBits+maxShift) ns
// (about 78 hours) up all land in the last bucket.
const (
	subBits     = 8
	subCount    = 1 << subBits // 256 exact buckets: 0 … 255 ns
	halfCount   = subCount / 2 // 128 buckets per power of two above
	maxShift    = 40
	bucketCount = subCount + maxShift*halfCount // 5376 buckets, 43 KiB of counters
)

// Histogram counts durations for percentiles: log-linear buckets (see bucketIndex) whose width
// is at most 0.78 % of the values they hold, from 1 ns to about 78 hours, in a fixed 43 KiB.
// Record is lock-free and allocation-free, so callbacks on many goroutines can share one
// histogram; reading (Quantile, Count, …) while others record gives a figure that may miss the
// samples of that instant, never a torn one.
//
// Java: none in RocketMQ (its benchmark tools print only average and max RT); the layout
// follows HdrHistogram's (sub-buckets per power of two), written here to add no dependency.
type Histogram struct {
	counts [bucketCount]atomic.Uint64
	total  atomic.Uint64
	sum    atomic.Int64 // ns; overflows only after ~292 years of recorded time
	max    atomic.Int64 // ns
	min    atomic.Int64 // ns + 1; 0 means nothing recorded
}

// NewHistogram returns an empty histogram (43 KiB).
func NewHistogram() *Histogram { return new(Histogram) }

// bucketIndex is v's bucket: v itself below subCount; above, with shift = the number of bits of
// v beyond subBits, bucket subCount + (shift-1)·halfCount + (v>>shift − halfCount).
func bucketIndex(v uint64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(v) - subBits // v>>shift is in [halfCount, subCount)
	if shift > maxShift {
		return bucketCount - 1
	}
	return subCount + (shift-1)*halfCount + int(v>>shift) - halfCount
}

// bucketUpper is the largest value (ns) bucket i counts: the figure a percentile reports, so
// a percentile is never below the true one and at most 0.78 % above it.
func bucketUpper(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	j := i - subCount
	shift := j/halfCount + 1
	sub := uint64(j%halfCount + halfCount)
	return (sub+1)<<shift - 1
}

// Record counts one duration; a negative one counts as 0 (a clock stepping back).
func (h *Histogram) Record(d time.Duration) {
	v := max(int64(d), 0)
	h.counts[bucketIndex(uint64(v))].Add(1)
	h.total.Add(1)
	h.sum.Add(v)
	for cur := h.max.Load(); v > cur && !h.max.CompareAndSwap(cur, v); cur = h.max.Load() {
	}
	for cur := h.min.Load(); (cur == 0 || v+1 < cur) && !h.min.CompareAndSwap(cur, v+1); cur = h.min.Load() {
	}
}

// Count is the number of durations recorded.
func (h *Histogram) Count() uint64 { return h.total.Load() }

// Max is the largest duration recorded (0 when empty), exact.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) }

// Min is the smallest duration recorded (0 when empty), exact.
func (h *Histogram) Min() time.Duration { return time.Duration(max(h.min.Load()-1, 0)) }

// Mean is the exact average of the durations recorded (0 when empty).
func (h *Histogram) Mean() time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(h.sum.Load() / int64(n))
}

// Quantile returns the duration at or below which a fraction q (0 < q ≤ 1: 0.5, 0.99, 0.999)
// of the recorded durations lie: the upper bound of the bucket holding the sample of rank
// ⌈q·count⌉, capped at Max (Max itself for the last, open-ended bucket). So Quantile(q) ≥ the exact percentile and exceeds it by at most
// 0.78 %, and q ≤ q' gives Quantile(q) ≤ Quantile(q'). q outside (0, 1] is clamped into it;
// an empty histogram returns 0.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	rank := max(uint64(math.Ceil(q*float64(n))), 1)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			if i == bucketCount-1 { // the open-ended last bucket
				return h.Max()
			}
			return min(time.Duration(bucketUpper(i)), h.Max())
		}
	}
	return h.Max() // samples recorded while we read: the rank lies past what we summed
}

// Latency returns the histogram's summary: p50, p99, p999, max and mean.
func (h *Histogram) Latency() Latency {
	return Latency{P50: h.Quantile(0.5), P99: h.Quantile(0.99), P999: h.Quantile(0.999), Max: h.Max(), Mean: h.Mean()}
}
