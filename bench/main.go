package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func main() {
	if os.Getenv(natsChildEnv) != "" {
		os.Exit(natsChildMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is the harness's command line: the flags, the runs, then the table on stdout (the
// progress lines on stderr). Returns the exit status: 0, 1 when a run failed, 2 for bad flags.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	rlog.SetLogLevel("fatal") // the official client logs every rebalance and heartbeat
	if cfg.HeapGiB > 0 {
		if err := runHeap(ctx, cfg, cfg.HeapGiB, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		return 0
	}
	begin := time.Now()
	load0 := loadAverage()
	res, err := runHarness(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s, %d CPUs, load average %s at the start and %s at the end; medians of %d runs, %s bodies; count %d, sync rows %s each\n\n",
		begin.UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), load0, loadAverage(), cfg.Runs, sizeLabel(cfg.Size), cfg.Count, cfg.Duration)
	if err := writeTable(stdout, buildRows(cfg, res)); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run . [flags]   (in bench/)\n\n"+
			"Starts NATS JetStream and our broker as separate processes, drives both with the same\n"+
			"load shapes in alternating runs, and prints one table of medians with each side's server\n"+
			"CPU per message.\n\nflags:")
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "alternating runs (the table shows medians)")
	fs.IntVar(&cfg.Count, "count", cfg.Count, "messages of the async publish row and of the consume row")
	fs.DurationVar(&cfg.Duration, "d", cfg.Duration, "how long each sync row runs")
	fs.IntVar(&cfg.Size, "s", cfg.Size, "body size in bytes")
	fs.IntVar(&cfg.Inflight, "inflight", cfg.Inflight, "async publish: at most this many sends outstanding")
	fs.IntVar(&cfg.Senders, "senders", cfg.Senders, "sync senders of the concurrent SYNC_FLUSH row")
	rows := fs.String("rows", "all", "the rows to run, comma-separated: "+strings.Join(rowNames[:], ",")+" (consume and litepull need async)")
	load := fs.String("load", "both", "client driving our broker: official (rocketmq-client-go), ours (mq/bench), or both")
	fs.StringVar(&cfg.Broker, "broker", "", "a built mq/cmd/broker binary (default: go build it)")
	fs.StringVar(&cfg.Dir, "dir", "", "work directory for stores and logs (default: a fresh temporary one)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the stores and the servers' logs")
	fs.Float64Var(&cfg.HeapGiB, "heap", 0, "instead of the table: send this many GiB to our broker (our client, async) and report its\nanonymous resident memory (heap, stacks) as it stores them")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.Loads, err = parseLoads(*load); err != nil {
		return cfg, err
	}
	if cfg.Rows, err = parseRows(*rows); err != nil {
		return cfg, err
	}
	switch {
	case cfg.Runs < 1:
		return cfg, errors.New("-runs must be at least 1")
	case cfg.Count < 1:
		return cfg, errors.New("-count must be at least 1")
	case cfg.Duration <= 0:
		return cfg, errors.New("-d must be positive")
	case cfg.Size < 1 || cfg.Size > 4<<20:
		return cfg, errors.New("-s must be 1 … 4194304 bytes")
	case cfg.HeapGiB < 0:
		return cfg, errors.New("-heap must not be negative")
	case cfg.Inflight < 1 || cfg.Senders < 1:
		return cfg, errors.New("-inflight and -senders must be at least 1")
	}
	if cfg.Dir != "" {
		if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// loadAverage is the first field of /proc/loadavg (the 1-minute load), or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// goBuild runs `go build -o out pkg` in the working directory (this module, whose replace
// directive points at the checkout).
func goBuild(ctx context.Context, out, pkg string) error {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", out, pkg)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s build %s: %w: %s (run in bench/, or give -broker)", gobin, pkg, err, strings.TrimSpace(string(b)))
	}
	return nil
}
