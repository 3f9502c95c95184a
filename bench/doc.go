// Command bench is the side-by-side harness of issue 18: it measures NATS JetStream and this
// repository's broker on the same machine, in the same sitting, with the same load shapes, and
// prints one table of medians with the ratio per row and each side's server CPU per message.
// It is a module of its own (bench/go.mod, with a replace directive pointing at this checkout),
// so the product's go.mod never gains the NATS modules. Run it from this directory:
//
//	go run . -runs 3 -load both
//	go run . -runs 1 -load ours -rows async,sync   # only those rows
//
// # What runs where
//
// Each side's server is a separate process, so /proc/<pid> shows its CPU alone: our broker is
// mq/cmd/broker, built from the checkout (go build; -broker gives a built one), started with
// RocketMQ 4.9's defaults (1 GiB CommitLog files, ASYNC_FLUSH) on a fresh store, loopback and
// ephemeral ports, its name server in its own process (the broker starts one when none is
// given); NATS is nats-server v2.15 (the Go module) with JetStream and a file store in a fresh
// directory, run by this binary itself re-executed in its NATS child mode. Each run starts both
// afresh twice: with default flushing, then with an fsync on every write (our broker
// SYNC_FLUSH, NATS `sync_interval: always`). The side that goes first alternates from run to
// run, and so do the two loads against our broker.
//
// # Rows
//
// A warm-up of up to 1000 async sends precedes each side's phases (not measured). Then, with
// 1 KiB bodies by default: async publish (-count messages, at most -inflight 4000 outstanding);
// consume -count messages from the first offset (NATS: an ephemeral pull consumer without acks;
// ours: a push consumer of a new group, and with -load ours also our DefaultLitePullConsumer);
// sync publish, one at a time for -d (p50, p99). With fsync on every write: one sync sender
// for -d, and -senders (64) concurrent sync senders for -d. The harness itself measures the
// disk's floor: a 1 KiB pwrite + fdatasync into a file written and synced beforehand (no block
// allocation or extent conversion in the loop). NATS is driven with the NATS Go client's
// jetstream package over one connection; our broker with the official Apache RocketMQ Go
// client (-load official) and/or our own client through mq/bench, mqbench's load (-load ours).
// Server CPU per message is the server process's CPU time during the phase (the sum of its
// threads' schedstat, nanoseconds) divided by the messages the phase counted.
//
// # Heap while storing
//
// `go run . -heap 10` replaces the table with one run against our broker alone: 10 GiB of
// 1 KiB messages from our client (async, -inflight outstanding) into a fresh store with the
// default 1 GiB CommitLog files, while the broker's RssAnon (/proc/<pid>/status: heap, stacks
// and the runtime's memory, not the mapped files) is sampled every 200 ms; a line per 1 Mi
// messages on stderr, and the start, end and maximum on stdout.
//
// # Files in reading order
//
//	main.go           the command line, the heading line and the table on stdout
//	harness.go        config, the rows, the runs (servers started afresh, sides alternating), medians
//	servers.go        the child processes: the broker binary, the NATS child; readiness, stop
//	natschild.go      the NATS child mode: nats-server in-process with JetStream, until SIGTERM
//	procstat.go       procCPU: a process's CPU time from /proc
//	load.go           figure, the load interface, syncSenders (the sync rows' goroutines)
//	natsload.go       NATS: PublishAsync, Publish, a pull consumer without acks
//	officialload.go   the official client: SendAsync with a window, SendSync, a push consumer
//	oursload.go       our client: mq/bench's RunProducer and RunConsumer
//	fsync.go          rawFdatasync: the disk's write+fdatasync reference
//	heap.go           the -heap run: GiB stored, the broker's RssAnon sampled
//	table.go          the medians as table rows, the table (tablewriter), units
//
// Tests: harness_test.go (a tiny run of every row, both loads; medians, flags, units, /proc).
// The figures measured, with the command and the date, are in the README's Benchmarks section
// and docs/benchmarks.md. Linux only (/proc, fdatasync).
package main
