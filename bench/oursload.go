package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// oursLoad drives our broker with this repository's client through mq/bench, the load of
// mqbench: RunProducer (one producer, one connection; async sends pipelined on it) and
// RunConsumer (a push consumer). Each phase starts its own producer or consumer; their start
// is outside the measured time.
type oursLoad struct {
	ns       string
	instance string
	size     int
	runs     atomic.Int64
}

func newOursLoad(ns, instance string, size int) *oursLoad {
	return &oursLoad{ns: ns, instance: instance, size: size}
}

func (l *oursLoad) runOptions(topic, group string) bench.RunOptions {
	n := l.runs.Add(1)
	return bench.RunOptions{NamesrvAddr: l.ns, Topic: topic, Group: group, InstanceName: fmt.Sprintf("%s-%d", l.instance, n)}
}

func fromSummary(s bench.Summary) figure {
	return figure{Messages: s.Messages, Failed: s.SendFailed + s.ResponseFailed, Elapsed: s.Elapsed, Latency: s.Latency}
}

func (l *oursLoad) publishAsync(ctx context.Context, topic string, count, inflight int) (figure, error) {
	o := bench.ProducerOptions{RunOptions: l.runOptions(topic, "bench_ours_producer"), MessageSize: l.size,
		Async: true, Inflight: inflight}
	o.Count = int64(count)
	s, err := bench.RunProducer(ctx, o)
	f := fromSummary(s)
	f.Latency = bench.Latency{} // async rows report throughput only
	return f, err
}

func (l *oursLoad) publishSync(ctx context.Context, topic string, senders int, d time.Duration) (figure, error) {
	o := bench.ProducerOptions{RunOptions: l.runOptions(topic, "bench_ours_producer"), MessageSize: l.size, Threads: senders}
	o.Duration = d
	s, err := bench.RunProducer(ctx, o)
	return fromSummary(s), err
}

func (l *oursLoad) consume(ctx context.Context, topic string, count int) (figure, error) {
	n := l.runs.Load() + 1
	o := bench.ConsumerOptions{RunOptions: l.runOptions(topic, fmt.Sprintf("bench_ours_consumer_%d", n)), FromFirst: true}
	o.Count = int64(count)
	s, err := bench.RunConsumer(ctx, o)
	if err == nil && s.Messages < int64(count) {
		err = fmt.Errorf("ours consume: %d of %d messages: %w", s.Messages, count, context.DeadlineExceeded)
	}
	f := fromSummary(s)
	f.Latency = bench.Latency{} // born-to-consume is not a figure of this row
	return f, err
}

// consumeLitePull: a DefaultLitePullConsumer of a new group subscribed to topic from the first
// offset (Java's defaults: 10 messages a pull and a Poll; one pull in flight per queue, at most
// 20), polling until count messages came; the clock from the first message to the count-th.
// It reads slower than the push consumer (32 a pull) by the batch size alone: see
// docs/benchmarks.md, "Lite pull against push".
func (l *oursLoad) consumeLitePull(ctx context.Context, topic string, count int) (figure, error) {
	n := l.runs.Add(1)
	cfg := consumer.DefaultLitePullConfig(fmt.Sprintf("bench_ours_lite_%d", n))
	cfg.NamesrvAddr = l.ns
	cfg.InstanceName = fmt.Sprintf("%s-%d", l.instance, n)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	c := consumer.NewDefaultLitePullConsumer(cfg)
	if err := c.Subscribe(topic, "*"); err != nil {
		return figure{}, err
	}
	if err := c.Start(); err != nil {
		return figure{}, fmt.Errorf("lite pull consumer start: %w", err)
	}
	defer c.Shutdown()
	var f figure
	var first time.Time
	for f.Messages < int64(count) {
		if ctx.Err() != nil {
			return figure{}, fmt.Errorf("lite pull: %d of %d messages: %w", f.Messages, count, ctx.Err())
		}
		msgs, err := c.Poll(100 * time.Millisecond)
		if err != nil {
			return figure{}, err
		}
		if len(msgs) > 0 && f.Messages == 0 {
			first = time.Now()
		}
		f.Messages += int64(len(msgs))
	}
	f.Elapsed = time.Since(first)
	return f, nil
}

func (*oursLoad) close() {}
