package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
)

// rawFileSize is the file the raw fdatasync reference writes in, cyclically (4 MiB).
const rawFileSize = 4 << 20

// rawFdatasync is the disk's own floor for one durable write, the reference of the SYNC_FLUSH
// rows: in a fresh file in dir, written in full and synced first (so no sync below has to
// allocate blocks or convert extents), it writes size bytes at the next offset (pwrite,
// wrapping at rawFileSize) and calls fdatasync, for d (at least 20 times), and returns the
// latency of each write+fdatasync pair. Messages counts the pairs.
func rawFdatasync(dir string, size int, d time.Duration) (figure, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return figure{}, err
	}
	path := filepath.Join(dir, "fdatasync.raw")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	if err != nil {
		return figure{}, err
	}
	defer os.Remove(path)
	defer f.Close()
	if _, err := f.Write(make([]byte, rawFileSize)); err != nil {
		return figure{}, err
	}
	if err := f.Sync(); err != nil {
		return figure{}, err
	}
	fd := int(f.Fd())
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte('a' + i%26)
	}
	h := bench.NewHistogram()
	var off int64
	start := time.Now()
	for n := 0; n < 20 || time.Since(start) < d; n++ {
		t := time.Now()
		if _, err := unix.Pwrite(fd, buf, off); err != nil {
			return figure{}, fmt.Errorf("pwrite: %w", err)
		}
		if err := unix.Fdatasync(fd); err != nil {
			return figure{}, fmt.Errorf("fdatasync: %w", err)
		}
		h.Record(time.Since(t))
		if off += int64(size); off+int64(size) > rawFileSize {
			off = 0
		}
	}
	return figure{Messages: int64(h.Count()), Elapsed: time.Since(start), Latency: h.Latency()}, nil
}
