package main

import (
	"context"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
)

// figure is what one side did in one measured phase.
type figure struct {
	// Messages acknowledged (published) or received (consumed); Failed sends.
	Messages int64
	Failed   int64
	// Elapsed is the measured time: first send to last answer, or first message received to
	// the last one counted.
	Elapsed time.Duration
	// Latency of each send's round trip (sync rows only; zero otherwise).
	Latency bench.Latency
}

// tps is Messages per second of Elapsed.
func (f figure) tps() float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.Messages) / f.Elapsed.Seconds()
}

// load is one client driving one side: NATS (nats.go) or our broker (the official RocketMQ
// Go client, or our own through mq/bench). topic names a RocketMQ topic or, for NATS, the
// subject "bench.<topic>" of the harness's one stream. Every body is body. A method returns an
// error only when the phase could not run (no connection, a client that does not start);
// failed sends are counted in the figure.
type load interface {
	// publishAsync sends count messages without waiting for each answer, at most inflight
	// outstanding at once, and waits for the last answer.
	publishAsync(ctx context.Context, topic string, count, inflight int) (figure, error)
	// publishSync runs senders goroutines, each sending one message at a time and waiting for
	// its answer, for d.
	publishSync(ctx context.Context, topic string, senders int, d time.Duration) (figure, error)
	// consume reads count messages of topic from its first one.
	consume(ctx context.Context, topic string, count int) (figure, error)
	close()
}

// litePuller is a load with a lite pull consumer (ours: DefaultLitePullConsumer), which has a
// row of its own; the NATS column of that row repeats NATS's pull consume.
type litePuller interface {
	// consumeLitePull reads count messages of topic from its first one with Poll.
	consumeLitePull(ctx context.Context, topic string, count int) (figure, error)
}

// loadNames are the values of -load, and the rows' load column.
const (
	loadNATS     = "nats.go"
	loadOfficial = "official"
	loadOurs     = "ours"
)

// syncSenders runs senders goroutines, each calling send in a loop until d has passed, and
// returns the figure: messages acknowledged, failures, the elapsed time, and each send's
// latency. Shared by the NATS and official loads (ours runs through mq/bench).
func syncSenders(ctx context.Context, senders int, d time.Duration, send func(context.Context) error) figure {
	h := bench.NewHistogram()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type count struct{ ok, failed int64 }
	counts := make(chan count, senders)
	start := time.Now()
	for range senders {
		go func() {
			var c count
			for ctx.Err() == nil {
				t := time.Now()
				if err := send(context.WithoutCancel(ctx)); err != nil {
					c.failed++
					continue
				}
				h.Record(time.Since(t))
				c.ok++
			}
			counts <- c
		}()
	}
	var f figure
	for range senders {
		c := <-counts
		f.Messages += c.ok
		f.Failed += c.failed
	}
	f.Elapsed = time.Since(start)
	f.Latency = h.Latency()
	return f
}
