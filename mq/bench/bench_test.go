package bench

import (
	"testing"
	"time"
)

// BenchmarkHistogramRecord: one sample into the histogram from parallel goroutines (the send
// callbacks' case); reports allocs/op.
func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		d := 100 * time.Microsecond
		for pb.Next() {
			h.Record(d)
			d += 37
		}
	})
}
