package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The flush benchmarks put 1 KiB messages from several goroutines with the store's services
// running and report throughput (msgs/s) and the latency of one put (p50, p99 in µs); files
// two behind the active one are deleted as the log grows, so the disk holds a few 64 MiB files
// whatever b.N is.

// fdatasyncLatency measures the disk under dir directly: n times a 4 KiB pwrite into a
// pre-allocated 1 MiB file followed by fdatasync. It returns p50 and p99 of the pair.
func fdatasyncLatency(b *testing.B, dir string, n int) (p50, p99 time.Duration) {
	b.Helper()
	path := filepath.Join(dir, "fdatasync-probe")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(b, err)
	defer os.Remove(path)
	defer f.Close()
	require.NoError(b, allocateFile(int(f.Fd()), 1<<20))
	page := make([]byte, 4096)
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		_, err := f.WriteAt(page, int64(i%256)*4096)
		require.NoError(b, err)
		require.NoError(b, fdatasync(int(f.Fd())))
		lat = append(lat, time.Since(start))
	}
	return percentile(lat, 50), percentile(lat, 99)
}

func percentile(lat []time.Duration, p int) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// runSenders puts b.N messages from senders goroutines (every put must be PUT_OK) and reports
// msgs/s and the put latency percentiles.
func runSenders(b *testing.B, s *DefaultMessageStore, senders int) {
	b.Helper()
	lat := make([][]time.Duration, senders)
	var next atomic.Int64
	var failed atomic.Value
	b.SetBytes(1024)
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := 0; g < senders; g++ {
		wg.Go(func() {
			m := benchMsg()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if i%65536 == 0 {
					trimCommitLog(s)
				}
				start := time.Now()
				r := s.PutMessage(m)
				lat[g] = append(lat[g], time.Since(start))
				if r.PutMessageStatus != PutOK {
					failed.Store(r.PutMessageStatus.String())
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if v := failed.Load(); v != nil {
		b.Fatal(v)
	}
	all := slices.Concat(lat...)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(percentile(all, 50))/1e3, "p50-µs")
	b.ReportMetric(float64(percentile(all, 99))/1e3, "p99-µs")
}

// BenchmarkSyncFlush: SYNC_FLUSH puts (each returns once GroupCommitService flushed its
// record) from 1, 8 and 64 goroutines, next to the raw latency of a 4 KiB write + fdatasync
// on the same disk, and how many puts one group commit served.
func BenchmarkSyncFlush(b *testing.B) {
	for _, senders := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("senders=%d", senders), func(b *testing.B) {
			dir := b.TempDir()
			p50, p99 := fdatasyncLatency(b, dir, 300)
			cfg := benchConfig(dir)
			cfg.FlushDiskType = SyncFlush
			cfg.ManualServices = false
			s := openStore(b, cfg, nil, nil)
			runSenders(b, s, senders)
			b.ReportMetric(float64(p50)/1e3, "fdatasync-p50-µs")
			b.ReportMetric(float64(p99)/1e3, "fdatasync-p99-µs")
			if n := s.GroupCommitService().GroupCommits(); n > 0 {
				b.ReportMetric(float64(b.N)/float64(n), "puts/commit")
			}
		})
	}
}

// BenchmarkAsyncFlush: ASYNC_FLUSH puts from 8 goroutines, without and with the
// TransientStorePool (5 buffers of 64 MiB; CommitRealTimeService commits every 200 ms or when
// woken, FlushRealTimeService flushes behind it).
func BenchmarkAsyncFlush(b *testing.B) {
	for _, pool := range []bool{false, true} {
		b.Run(fmt.Sprintf("pool=%v", pool), func(b *testing.B) {
			cfg := benchConfig(b.TempDir())
			cfg.ManualServices = false
			cfg.TransientStorePoolEnable = pool
			s := openStore(b, cfg, nil, nil)
			runSenders(b, s, 8)
		})
	}
}
