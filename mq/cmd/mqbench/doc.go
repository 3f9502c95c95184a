// Command mqbench is RocketMQ's benchmark tools (benchmark/producer.sh and consumer.sh) for
// this broker, on our own client: a producer that sends as fast as it can and a consumer that
// takes what arrives, each printing RocketMQ's per-second line and ending with a summary with
// p50/p99/p999 latency.
//
//	go run ./mq/cmd/mqbench producer -n 127.0.0.1:9876 -t BenchmarkTest -w 64 -s 1024 -d 10s
//	go run ./mq/cmd/mqbench producer -async -inflight 1024 -s 1024 -count 200000 -json
//	go run ./mq/cmd/mqbench producer -async -batch 32 -s 1024 -d 10s
//	go run ./mq/cmd/mqbench consumer -n 127.0.0.1:9876 -t BenchmarkTest -g benchmark_consumer -first -count 200000
//
// Producer options: -w sending goroutines (64; 1 with -async), -s body bytes (128), -async
// with -inflight requests outstanding at most (1024), -batch messages per request (1), -k
// keys, -g group (benchmark_producer). Consumer options: -g group (benchmark_consumer), -first
// (a new group starts at the first message, not the last). Both: -n name servers
// ($NAMESRV_ADDR, else 127.0.0.1:9876), -t topic (BenchmarkTest), -d duration or -count
// messages (neither: until Ctrl-C), -json (the summary as one JSON object on stdout, the
// per-second lines on stderr), -cpuprofile FILE (this client's CPU profile, for go tool pprof:
// the client side of a run against a broker in another process). Exit status: 0 the run finished (failures are counted in the
// summary), 1 it could not start, 2 a bad command line.
//
// Java: org.apache.rocketmq.example.benchmark.Producer and Consumer. The load and the
// command line live in mq/bench (bench.Main), so tests, the README's test and the side-by-side
// harness run them in-process; this command only passes SIGINT and SIGTERM, which end a run
// early with its summary. Figures: docs/benchmarks.md.
//
// # Files
//
//	main.go  main: bench.Main over os.Args, stdout and stderr, ended by a signal (main_test.go
//	         runs the test binary as mqbench: its usage, and SIGINT ending a run)
package main
