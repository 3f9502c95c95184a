package bench

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"
)

const usage = `usage: mqbench producer [-n NS] [-t TOPIC] [-w THREADS] [-s SIZE] [-async [-inflight N]] [-batch N] [-k] [-d DURATION | -count N] [-json] [-cpuprofile FILE]
       mqbench consumer [-n NS] [-t TOPIC] [-g GROUP] [-first] [-d DURATION | -count N] [-json] [-cpuprofile FILE]
A run without -d or -count lasts until Ctrl-C; either way it ends with a summary.
`

// Main is the mqbench command over its arguments (without the program name) and streams:
// "producer" or "consumer" and their flags (see mq/cmd/mqbench). It returns the exit status:
// 0 when the run finished (whatever failures it counted), 1 when it could not start, 2 for a
// bad command line. Per-second lines go to stdout, or with -json to stderr so that stdout
// holds only the summary object. ctx ends a run early (the command passes SIGINT and
// SIGTERM), which then prints its summary as a finished one does.
// Java: the main methods of benchmark.Producer and benchmark.Consumer.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("mqbench "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The default is resolved after parsing, so -h names it once, in words.
	ns := fs.String("n", "", "name server address list, ip:port;ip:port (default $NAMESRV_ADDR, else 127.0.0.1:9876)")
	topic := fs.String("t", DefaultTopic, "topic")
	duration := fs.Duration("d", 0, "run this long (e.g. 10s); 0: until -count or Ctrl-C")
	count := fs.Int64("count", 0, "stop after this many messages (a consumer's summary counts exactly this many); 0: until -d or Ctrl-C")
	cpuProfile := fs.String("cpuprofile", "", "write the run's CPU profile (this client's, for go tool pprof) to this file")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout (per-second lines go to stderr)")
	var (
		threads, size, inflight, batch *int
		async, keys, first             *bool
		group                          *string
	)
	switch args[0] {
	case "producer":
		threads = fs.Int("w", 0, "sending goroutines (default 64; 1 with -async)")
		size = fs.Int("s", DefaultMessageSize, "message body size in bytes")
		async = fs.Bool("async", false, "send asynchronously, at most -inflight requests outstanding")
		inflight = fs.Int("inflight", DefaultInflight, "with -async: requests outstanding at most")
		batch = fs.Int("batch", 1, "messages per send request (> 1: batches, SEND_BATCH_MESSAGE)")
		keys = fs.Bool("k", false, "set each message's KEYS (the send's unix second), as RocketMQ's -k")
		group = fs.String("g", DefaultProducerGroup, "producer group")
	case "consumer":
		group = fs.String("g", DefaultConsumerGroup, "consumer group")
		first = fs.Bool("first", false, "a new group starts at each queue's first message (default: the last)")
	default:
		fmt.Fprintf(stderr, "mqbench: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *ns == "" {
		*ns = cmp.Or(os.Getenv("NAMESRV_ADDR"), "127.0.0.1:9876")
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mqbench: unexpected arguments %q\n%s", fs.Args(), usage)
		return 2
	}
	if *duration < 0 || *count < 0 {
		fmt.Fprintf(stderr, "mqbench: -d and -count must not be negative\n")
		return 2
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "mqbench: %v\n", err)
			return 1
		}
		defer stopProfile()
	}
	report := stdout
	if *asJSON {
		report = stderr
	}
	var (
		s   Summary
		err error
	)
	run := RunOptions{NamesrvAddr: *ns, Topic: *topic, Group: *group, Duration: *duration, Count: *count,
		Report: report, ReportInterval: time.Second}
	if args[0] == "producer" {
		if *size <= 0 || *inflight <= 0 || *batch <= 0 || *threads < 0 {
			fmt.Fprintf(stderr, "mqbench: -s, -inflight and -batch must be positive, -w not negative\n")
			return 2
		}
		o := ProducerOptions{RunOptions: run, Threads: *threads, MessageSize: *size, Async: *async,
			Inflight: *inflight, Batch: *batch, Keys: *keys}.WithDefaults()
		fmt.Fprintf(report, "topic: %s threadCount: %d messageSize: %d keyEnable: %t asyncEnable: %t inflight: %d batch: %d\n",
			o.Topic, o.Threads, o.MessageSize, o.Keys, o.Async, o.Inflight, o.Batch)
		s, err = RunProducer(ctx, o)
	} else {
		fmt.Fprintf(report, "topic: %s group: %s consumeFromFirst: %t\n", *topic, *group, *first)
		s, err = RunConsumer(ctx, ConsumerOptions{RunOptions: run, FromFirst: *first})
	}
	if err != nil {
		fmt.Fprintf(stderr, "mqbench: %v\n", err)
		return 1
	}
	if *asJSON {
		err = s.WriteJSON(stdout)
	} else {
		err = s.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mqbench: %v\n", err)
		return 1
	}
	return 0
}

// startCPUProfile starts the CPU profile into path; the returned func stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
