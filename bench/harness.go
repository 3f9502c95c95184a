package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
)

// config is the harness's command line.
type config struct {
	Runs     int           // alternating runs; the table shows each figure's median
	Count    int           // messages of the async publish row, and of the consume row
	Duration time.Duration // how long each sync row (and the raw fdatasync) runs
	Size     int           // body bytes
	Inflight int           // async publish window
	Senders  int           // sync senders of the SYNC_FLUSH concurrent row
	Loads    []string      // loadOfficial, loadOurs: the clients driving our broker
	Broker   string        // a built mq/cmd/broker; "" builds one
	Dir      string        // work directory; "" a fresh temporary one
	Keep     bool          // keep the servers' directories (logs, stores)
	HeapGiB  float64       // -heap: GiB to store in the heap run instead of the table; 0: the table
	Rows     []rowID       // -rows: the rows to run; nil: every row
}

// rowNames are -rows' names of the rows, by rowID.
var rowNames = [rowCount]string{"async", "sync", "consume", "litepull", "syncflush1", "syncflushN", "rawfsync"}

// runs reports whether row r is to be run (and shown).
func (c config) runs(r rowID) bool { return c.Rows == nil || slices.Contains(c.Rows, r) }

// syncFlushPass reports whether the servers are to be started a second time with an fsync on
// every write (a SYNC_FLUSH row or the raw fdatasync row is to be run).
func (c config) syncFlushPass() bool { return c.runs(rowSyncFlush1) || c.runs(rowSyncFlushN) }

// parseRows reads -rows: "all", or names of rowNames separated by commas. The consume rows
// read what the async row stored, so they need it.
func parseRows(s string) ([]rowID, error) {
	if s == "all" {
		return nil, nil
	}
	var rows []rowID
	for _, name := range strings.Split(s, ",") {
		i := slices.Index(rowNames[:], strings.TrimSpace(name))
		if i < 0 {
			return nil, fmt.Errorf("-rows: unknown row %q (want all, or some of %s)", name, strings.Join(rowNames[:], ","))
		}
		if !slices.Contains(rows, rowID(i)) {
			rows = append(rows, rowID(i))
		}
	}
	c := config{Rows: rows}
	if (c.runs(rowConsume) || c.runs(rowLitePull)) && !c.runs(rowAsync) {
		return nil, errors.New("-rows: the consume rows read what the async row stored: add async")
	}
	return rows, nil
}

func defaultConfig() config {
	return config{Runs: 3, Count: 200_000, Duration: 5 * time.Second, Size: 1024, Inflight: 4000, Senders: 64,
		Loads: []string{loadOfficial, loadOurs}}
}

// rowID names the rows of the table, in their order.
type rowID int

const (
	rowAsync rowID = iota
	rowSync
	rowConsume
	rowLitePull
	rowSyncFlush1
	rowSyncFlushN
	rowRawFsync
	rowCount
)

// rowLabel is the first column of row r.
func (c config) rowLabel(r rowID) string {
	switch r {
	case rowAsync:
		return fmt.Sprintf("async publish, ≤ %d in flight", c.Inflight)
	case rowSync:
		return "sync publish, one at a time"
	case rowConsume:
		return fmt.Sprintf("consume %s from the first offset (NATS: pull, no acks)", countLabel(c.Count))
	case rowLitePull:
		return fmt.Sprintf("consume %s from the first offset, lite pull (NATS: the row above)", countLabel(c.Count))
	case rowSyncFlush1:
		return "SYNC_FLUSH (NATS: sync_interval always), one sync sender"
	case rowSyncFlushN:
		return fmt.Sprintf("SYNC_FLUSH (NATS: sync_interval always), %d sync senders", c.Senders)
	case rowRawFsync:
		return fmt.Sprintf("raw %s pwrite + fdatasync, this disk (harness)", sizeLabel(c.Size))
	}
	return "?"
}

func countLabel(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + " k"
	}
	return strconv.Itoa(n)
}

func sizeLabel(n int) string {
	if n%1024 == 0 {
		return strconv.Itoa(n/1024) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

// sample is one side's figure in one run of one row, with the server's CPU per message.
type sample struct {
	figure
	CPUPerMsg time.Duration // server CPU during the phase / Messages (0 for the raw row)
}

// results holds every sample: by row, then by side (loadNATS, loadOfficial, loadOurs; the raw
// row under "disk").
type results map[rowID]map[string][]sample

func (r results) add(row rowID, side string, s sample) {
	if r[row] == nil {
		r[row] = map[string][]sample{}
	}
	r[row][side] = append(r[row][side], s)
}

// harness runs the rows; progress lines go to log.
type harness struct {
	cfg    config
	log    io.Writer
	body   []byte
	res    results
	broker string
}

// runHarness measures cfg.Runs alternating runs and returns the samples. Each run starts each
// side's servers afresh (new directories): NATS and our broker with default flushing, then
// both again with fsync on every write (NATS `sync_interval: always`, our broker SYNC_FLUSH);
// within a run the side that goes first alternates, and so do the loads against our broker.
func runHarness(ctx context.Context, cfg config, log io.Writer) (results, error) {
	h := &harness{cfg: cfg, log: log, body: make([]byte, cfg.Size), res: results{}}
	for i := range h.body {
		h.body[i] = byte('a' + i*7%26)
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "rocketmq-go-bench-")
		if err != nil {
			return nil, err
		}
		dir = d
		if !cfg.Keep {
			defer os.RemoveAll(d)
		}
	}
	if cfg.Keep {
		fmt.Fprintf(log, "work directory (kept: stores and server logs): %s\n", dir)
	}
	h.broker = cfg.Broker
	if h.broker == "" {
		bin, err := buildBroker(ctx, dir)
		if err != nil {
			return nil, err
		}
		h.broker = bin
	}
	for run := range cfg.Runs {
		for _, syncFlush := range []bool{false, true} {
			if syncFlush && !cfg.syncFlushPass() {
				continue
			}
			sides := []string{loadNATS, "broker"}
			if run%2 == 1 {
				slices.Reverse(sides)
			}
			for _, side := range sides {
				sub := filepath.Join(dir, fmt.Sprintf("run%d-%s-sync%t", run+1, side, syncFlush))
				var err error
				if side == loadNATS {
					err = h.natsRun(ctx, sub, run, syncFlush)
				} else {
					err = h.brokerRun(ctx, sub, run, syncFlush)
				}
				if err != nil {
					return nil, fmt.Errorf("run %d: %w", run+1, err)
				}
			}
		}
		if !cfg.runs(rowRawFsync) {
			continue
		}
		f, err := rawFdatasync(filepath.Join(dir, fmt.Sprintf("run%d-raw", run+1)), cfg.Size, min(cfg.Duration, 2*time.Second))
		if err != nil {
			return nil, fmt.Errorf("run %d: raw fdatasync: %w", run+1, err)
		}
		h.res.add(rowRawFsync, "disk", sample{figure: f})
		fmt.Fprintf(h.log, "run %d: disk   %-58s p50 %s p99 %s (%d syncs)\n", run+1, cfg.rowLabel(rowRawFsync),
			fmtDur(f.Latency.P50), fmtDur(f.Latency.P99), f.Messages)
	}
	return h.res, nil
}

// buildBroker builds mq/cmd/broker of the checkout this module replaces (go build, so the
// broker runs as its own process and /proc shows its CPU alone).
func buildBroker(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "mqbroker")
	if err := goBuild(ctx, bin, "github.com/annotated-rocketmq/rocketmq-go/mq/cmd/broker"); err != nil {
		return "", fmt.Errorf("build the broker: %w", err)
	}
	return bin, nil
}

// phaseTimeout bounds one measured phase: generous, so a stuck side fails the run instead of
// hanging it (a floor of 500 msgs/s for count-based phases).
func (h *harness) phaseTimeout() time.Duration {
	return 2*time.Minute + time.Duration(h.cfg.Count)*2*time.Millisecond + 2*h.cfg.Duration
}

// measure runs one phase of side against srv and records it with the server's CPU per message.
func (h *harness) measure(ctx context.Context, row rowID, side string, run int, srv *server, phase func(context.Context) (figure, error)) error {
	ctx, cancel := context.WithTimeout(ctx, h.phaseTimeout())
	defer cancel()
	cpu0 := srv.cpu()
	f, err := phase(ctx)
	cpu := srv.cpu() - cpu0
	if err != nil {
		return fmt.Errorf("%s, %s: %w", h.cfg.rowLabel(row), side, err)
	}
	if f.Messages <= 0 {
		return fmt.Errorf("%s, %s: no message went through (%d failed)", h.cfg.rowLabel(row), side, f.Failed)
	}
	s := sample{figure: f, CPUPerMsg: cpu / time.Duration(f.Messages)}
	h.res.add(row, side, s)
	line := fmt.Sprintf("run %d: %-6s %-58s %s, server CPU %.1f µs/msg", run+1, side, h.cfg.rowLabel(row),
		fmtTPS(f.tps()), micros(s.CPUPerMsg))
	if f.Latency.P50 > 0 {
		line += fmt.Sprintf(", p50 %s p99 %s", fmtDur(f.Latency.P50), fmtDur(f.Latency.P99))
	}
	if f.Failed > 0 {
		line += fmt.Sprintf(", %d failed", f.Failed)
	}
	fmt.Fprintln(h.log, line)
	return nil
}

// warmUp sends a few messages before the measured phases (connections, routes, the topic's
// creation, the server's first files), and is not recorded.
func (h *harness) warmUp(ctx context.Context, l load, topic string) error {
	n := min(1000, max(h.cfg.Count/10, 100))
	ctx, cancel := context.WithTimeout(ctx, h.phaseTimeout())
	defer cancel()
	f, err := l.publishAsync(ctx, topic, n, min(h.cfg.Inflight, 256))
	if err == nil && f.Messages == 0 {
		err = errors.New("no warm-up message was acknowledged")
	}
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// phases runs the rows of one server mode for one load: with default flushing the async
// publish, the consume of what it stored (and, for our client, the same with its lite pull
// consumer), then one sync sender; with fsync on every write one
// sync sender, then Senders.
func (h *harness) phases(ctx context.Context, l load, side string, run int, srv *server, topic string, syncFlush bool) error {
	if err := h.warmUp(ctx, l, topic); err != nil {
		return fmt.Errorf("%s: %w", side, err)
	}
	type step struct {
		row   rowID
		phase func(context.Context) (figure, error)
	}
	var steps []step
	if !syncFlush {
		steps = []step{
			{rowAsync, func(ctx context.Context) (figure, error) {
				return l.publishAsync(ctx, topic, h.cfg.Count, h.cfg.Inflight)
			}},
			{rowConsume, func(ctx context.Context) (figure, error) { return l.consume(ctx, topic, h.cfg.Count) }},
		}
		if lp, ok := l.(litePuller); ok {
			steps = append(steps, step{rowLitePull, func(ctx context.Context) (figure, error) { return lp.consumeLitePull(ctx, topic, h.cfg.Count) }})
		}
		steps = append(steps, step{rowSync, func(ctx context.Context) (figure, error) { return l.publishSync(ctx, topic, 1, h.cfg.Duration) }})
	} else {
		steps = []step{
			{rowSyncFlush1, func(ctx context.Context) (figure, error) { return l.publishSync(ctx, topic, 1, h.cfg.Duration) }},
			{rowSyncFlushN, func(ctx context.Context) (figure, error) {
				return l.publishSync(ctx, topic, h.cfg.Senders, h.cfg.Duration)
			}},
		}
	}
	for _, s := range steps {
		if !h.cfg.runs(s.row) {
			continue
		}
		if err := h.measure(ctx, s.row, side, run, srv, s.phase); err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) natsRun(ctx context.Context, dir string, run int, syncAlways bool) (err error) {
	srv, err := startNATS(ctx, dir, syncAlways)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.stop(h.cfg.Keep)) }()
	l, err := newNATSLoad(ctx, srv.addr, h.body, h.cfg.Inflight)
	if err != nil {
		return err
	}
	defer l.close()
	return h.phases(ctx, l, loadNATS, run, srv, fmt.Sprintf("run%d", run+1), syncAlways)
}

func (h *harness) brokerRun(ctx context.Context, dir string, run int, syncFlush bool) (err error) {
	srv, err := startBroker(ctx, h.broker, dir, syncFlush)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.stop(h.cfg.Keep)) }()
	loads := slices.Clone(h.cfg.Loads)
	if run%2 == 1 {
		slices.Reverse(loads)
	}
	for _, name := range loads {
		instance := fmt.Sprintf("bench-%s-%d-%d-%t", name, os.Getpid(), run+1, syncFlush)
		var l load
		switch name {
		case loadOfficial:
			ol, err := newOfficialLoad(srv.addr, instance, h.body)
			if err != nil {
				return err
			}
			l = ol
		case loadOurs:
			l = newOursLoad(srv.addr, instance, h.cfg.Size)
		default:
			return fmt.Errorf("unknown load %q", name)
		}
		topic := fmt.Sprintf("Bench_%s_%d", name, run+1)
		err := h.phases(ctx, l, name, run, srv, topic, syncFlush)
		l.close()
		if err != nil {
			return err
		}
	}
	return nil
}

// median returns the median of vs (the mean of the middle two for an even count); 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianOf is the median of one figure over samples.
func medianOf(ss []sample, f func(sample) float64) float64 {
	vs := make([]float64, len(ss))
	for i, s := range ss {
		vs[i] = f(s)
	}
	return median(vs)
}

// parseLoads reads -load: official, ours or both.
func parseLoads(s string) ([]string, error) {
	switch strings.ToLower(s) {
	case "official":
		return []string{loadOfficial}, nil
	case "ours":
		return []string{loadOurs}, nil
	case "both":
		return []string{loadOfficial, loadOurs}, nil
	}
	return nil, fmt.Errorf("-load %q: want official, ours or both", s)
}

// latencyOf is the latency of the medians of a side, for the table.
func latencyOf(ss []sample) bench.Latency {
	return bench.Latency{
		P50: time.Duration(medianOf(ss, func(s sample) float64 { return float64(s.Latency.P50) })),
		P99: time.Duration(medianOf(ss, func(s sample) float64 { return float64(s.Latency.P99) })),
	}
}
