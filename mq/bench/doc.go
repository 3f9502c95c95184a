// Package bench is the load of RocketMQ's benchmark tools (benchmark/producer.sh and
// consumer.sh) on our own client, as a library: RunProducer drives a DefaultMQProducer (sync
// senders, or asynchronous sends with a bounded window of requests outstanding, single messages
// or batches), RunConsumer a DefaultMQPushConsumer; both print RocketMQ's per-second line and
// return a Summary with TPS and latency percentiles. Main is the command line of
// `mq/cmd/mqbench`, a thin main over it; the side-by-side harness under bench/ imports it.
//
// Java: org.apache.rocketmq.example.benchmark.Producer, Consumer, StatsBenchmarkProducer,
// StatsBenchmarkConsumer. Deviations: the per-second line prints max RT with fractions of a
// millisecond (Java: whole ms, which reads 0 on loopback), every second (recent Java versions
// average over 10 s); a run ends with percentiles from a histogram (Java prints averages only);
// -batch has no Java counterpart; an async sender's window counts requests outstanding (Java
// polls its executor's queue length).
//
// # Files in reading order
//
//	options.go    RunOptions: what both runs share (name server, topic, group, duration, count, report)
//	cli.go        Main: mqbench's command line (producer, consumer) over RunProducer and RunConsumer
//	producer.go   ProducerOptions, RunProducer: senders, the async window, Count shares, failures
//	consumer.go   ConsumerOptions, RunConsumer: the listener's born- and store-to-consume samples
//	summary.go    Summary and Latency (the JSON shape), the final text
//	meter.go      meter: one latency series and its per-interval figures; the per-second reporter
//	histogram.go  Histogram: log-linear buckets for percentiles
//
// Tests: histogram_test.go (layout, percentile error bound), run_test.go and cli_test.go (runs
// against an embedded cluster), pipeline_test.go (async sends pipelined on one connection, up
// to the window), alloc_test.go, bench_test.go (BenchmarkHistogramRecord).
//
// # The histogram
//
// Durations in nanoseconds. 0 … 255 ns have a bucket each; above, every power of two
// [2^k, 2^(k+1)) has 128 equal buckets (width 2^(k-7)), so a bucket is at most 0.78 % of the
// values it holds wide, up to 2^48 ns (about 78 hours; larger values share the last bucket).
// 5376 counters, 43 KiB, updated with atomic adds. A percentile is the upper bound of the
// bucket holding its rank, capped at the exact maximum: never below the exact figure, at most
// 0.78 % above.
//
// # Goroutines and locks
//
// RunProducer: Threads senders and the per-second reporter, all returned before it returns;
// its counters are atomics. Async sends complete on the client's callback goroutines; the
// window channel (capacity Inflight) holds one token per request outstanding, and a WaitGroup
// waits for the last answers. RunConsumer: the push consumer's goroutines (stopped by
// Shutdown) and the reporter. Figures: docs/benchmarks.md.
package bench
