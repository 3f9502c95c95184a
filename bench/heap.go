package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// heapChunk is how many messages one publishAsync call of the heap run sends: a line is
// printed after each.
const heapChunk = 1 << 20

// runHeap is the -heap mode: our broker (default config: ASYNC_FLUSH, 1 GiB CommitLog files,
// fresh store) takes gib GiB of cfg.Size-byte messages from our client (async, cfg.Inflight in
// flight), while the broker's anonymous resident memory — RssAnon of /proc/<pid>/status: the Go
// heap, the goroutine stacks and the runtime's own, but not the mapped files, which are page
// cache — is sampled every 200 ms. It prints a line per chunk and a summary with the maximum;
// the target is that the heap stays flat (≤ 200 MiB) while 10 GiB is stored.
func runHeap(ctx context.Context, cfg config, gib float64, stdout, log io.Writer) error {
	dir, err := os.MkdirTemp(cfg.Dir, "rocketmq-go-bench-heap-")
	if err != nil {
		return err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	bin := cfg.Broker
	if bin == "" {
		if bin, err = buildBroker(ctx, dir); err != nil {
			return err
		}
	}
	srv, err := startBroker(ctx, bin, filepath.Join(dir, "broker"), false)
	if err != nil {
		return err
	}
	defer srv.stop(cfg.Keep)
	pid := srv.cmd.Process.Pid
	var peak atomic.Int64
	sample := func() int64 {
		v := rssAnon(pid)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				return v
			}
		}
	}
	start := sample()
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	l := newOursLoad(srv.addr, fmt.Sprintf("bench-heap-%d", os.Getpid()), cfg.Size)
	total := int64(gib * (1 << 30) / float64(cfg.Size))
	var sent, failed int64
	begin := time.Now()
	for sent < total {
		n := min(int64(heapChunk), total-sent)
		f, err := l.publishAsync(ctx, "BenchHeap", int(n), cfg.Inflight)
		if err != nil {
			return err
		}
		sent += n
		failed += f.Failed
		fmt.Fprintf(log, "heap: %6.2f GiB sent, %d failed, broker RssAnon %s (max %s), %.1f k msgs/s\n",
			float64(sent*int64(cfg.Size))/(1<<30), failed, mib(sample()), mib(peak.Load()), f.tps()/1e3)
	}
	fmt.Fprintf(stdout, "%s, %d-byte bodies: %.2f GiB sent to our broker in %s (%d sends failed); broker RssAnon %s at the start, %s at the end, %s at most\n",
		begin.UTC().Format("2006-01-02 15:04 MST"), cfg.Size, float64(sent*int64(cfg.Size))/(1<<30),
		time.Since(begin).Round(time.Second), failed, mib(start), mib(sample()), mib(peak.Load()))
	return nil
}

// rssAnon is RssAnon of /proc/<pid>/status in bytes, 0 when it cannot be read.
func rssAnon(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
