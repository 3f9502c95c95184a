package bench

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every value lands in a bucket whose range holds it, buckets are contiguous and increasing,
// and a bucket's width is at most 1/128 of its lower bound above the exact range.
func TestBucketLayout(t *testing.T) {
	require.Equal(t, 5376, bucketCount)
	lower := uint64(0)
	for i := range bucketCount {
		up := bucketUpper(i)
		require.GreaterOrEqual(t, up, lower, "bucket %d", i)
		require.Equal(t, i, bucketIndex(lower), "lower bound of bucket %d", i)
		require.Equal(t, i, bucketIndex(up), "upper bound of bucket %d", i)
		if i >= subCount {
			require.LessOrEqual(t, float64(up-lower+1)/float64(lower), 1.0/halfCount, "bucket %d width", i)
		}
		lower = up + 1
	}
	// Hand-computed edges: 255 is the last exact value; 256 and 257 share a bucket of width 2.
	require.Equal(t, 255, bucketIndex(255))
	require.Equal(t, 256, bucketIndex(256))
	require.Equal(t, 256, bucketIndex(257))
	require.Equal(t, 257, bucketIndex(258))
	require.Equal(t, uint64(257), bucketUpper(256))
	require.Equal(t, bucketCount-1, bucketIndex(1<<62), "beyond the range: the last bucket")
}

// Percentiles of a known set: small values are exact; a percentile never reads below the
// exact one nor more than 0.78 % above it; p50 ≤ p99 ≤ p999 ≤ max.
func TestHistogramQuantiles(t *testing.T) {
	h := NewHistogram()
	require.Zero(t, h.Quantile(0.5), "empty")
	for v := 1; v <= 100; v++ {
		h.Record(time.Duration(v))
	}
	require.Equal(t, time.Duration(50), h.Quantile(0.5))
	require.Equal(t, time.Duration(99), h.Quantile(0.99))
	require.Equal(t, time.Duration(100), h.Quantile(1))
	require.Equal(t, time.Duration(1), h.Min())
	require.Equal(t, time.Duration(100), h.Max())
	require.Equal(t, time.Duration(50), h.Mean()) // 5050/100, truncated
	require.Equal(t, uint64(100), h.Count())

	rng := rand.New(rand.NewPCG(1, 2))
	h = NewHistogram()
	var exact []time.Duration
	for range 20000 {
		d := time.Duration(rng.ExpFloat64() * float64(300*time.Microsecond))
		exact = append(exact, d)
		h.Record(d)
	}
	slices.Sort(exact)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		want := exact[int(q*float64(len(exact))+0.999999)-1]
		got := h.Quantile(q)
		require.GreaterOrEqual(t, got, want, "q=%v", q)
		require.LessOrEqual(t, float64(got-want), float64(want)/halfCount+1, "q=%v: %v vs %v", q, got, want)
	}
	l := h.Latency()
	require.LessOrEqual(t, l.P50, l.P99)
	require.LessOrEqual(t, l.P99, l.P999)
	require.LessOrEqual(t, l.P999, l.Max)
	require.Equal(t, exact[len(exact)-1], l.Max)
}

// A negative duration (a clock stepping back) counts as 0; huge ones land in the last bucket
// and the maximum stays exact.
func TestHistogramEdges(t *testing.T) {
	h := NewHistogram()
	h.Record(-time.Second)
	require.Equal(t, time.Duration(0), h.Quantile(1))
	require.Equal(t, time.Duration(0), h.Min())
	h.Record(100 * time.Hour)
	require.Equal(t, 100*time.Hour, h.Max())
	require.Equal(t, 100*time.Hour, h.Quantile(1), "capped at the exact max")
}

// Concurrent recording loses no sample.
func TestHistogramConcurrent(t *testing.T) {
	h := NewHistogram()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				h.Record(time.Duration(g*1000+i) * time.Microsecond)
			}
		})
	}
	wg.Wait()
	require.Equal(t, uint64(8000), h.Count())
	require.Equal(t, time.Duration(0), h.Min())
	require.Equal(t, 7999*time.Microsecond, h.Max())
}
