package bench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ConsumerOptions shape a consumer run. Zero fields take the defaults named.
type ConsumerOptions struct {
	RunOptions
	// FromFirst starts a group without a committed offset at each queue's first message;
	// false starts it at the last (Java's tool: CONSUME_FROM_LAST_OFFSET).
	FromFirst bool
	// Configure, if set, adjusts the push consumer's config before it starts.
	Configure func(*consumer.Config)
}

// RunConsumer consumes opts.Topic with a DefaultMQPushConsumer (CLUSTERING, the listener
// acknowledging every message) until opts.Count messages arrived, opts.Duration passed or ctx
// is done, then shuts the consumer down (committing its offsets) and returns the Summary.
// With a Count the summary holds exactly Count messages: the consume goroutines call the
// listener concurrently (with batches of ConsumeMessageBatchMaxSize) and go on until the
// consumer has stopped, so messages past the Count are acknowledged but not counted, as a
// benchmark of N messages measures N. Elapsed runs from the first message consumed to the
// Count-th (Count), or to the end of the run, so the time a rebalance takes to hand out the
// queues does not dilute TPS. Latencies are
// born-to-consume and store-to-consume: now minus the message's BornTimestamp or StoreTimestamp,
// which are milliseconds, so a figure may read up to 1 ms high. The error is for a run that
// cannot start. Java: org.apache.rocketmq.example.benchmark.Consumer#main.
func RunConsumer(ctx context.Context, opts ConsumerOptions) (Summary, error) {
	opts.RunOptions = opts.RunOptions.withDefaults(DefaultConsumerGroup)
	ctx, cancel, err := opts.begin(ctx)
	if err != nil {
		return Summary{}, err
	}
	defer cancel()
	cfg := consumer.DefaultConfig(opts.Group)
	cfg.NamesrvAddr = opts.NamesrvAddr
	cfg.InstanceName = opts.InstanceName
	if opts.FromFirst {
		cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	var (
		b2c, s2c  meter
		taken     atomic.Int64 // messages handed to the listener, counted or not (with a Count)
		firstNs   atomic.Int64 // unix ns of the first message consumed
		lastNs    atomic.Int64 // unix ns of the last message consumed
		reached   = make(chan struct{})
		reachOnce sync.Once
	)
	c := consumer.NewDefaultMQPushConsumer(cfg)
	if err := c.Subscribe(opts.Topic, "*"); err != nil {
		return Summary{}, fmt.Errorf("bench: subscribe %s: %w", opts.Topic, err)
	}
	c.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		now := wall.Now()
		nowNs := now.UnixNano()
		if opts.Count > 0 {
			n := taken.Add(int64(len(msgs)))
			if over := n - opts.Count; over > 0 { // past the Count: not counted
				msgs = msgs[:max(int64(len(msgs))-over, 0)]
			}
			if len(msgs) == 0 {
				return consumer.ConsumeSuccess
			}
		}
		firstNs.CompareAndSwap(0, nowNs)
		for _, m := range msgs {
			b2c.observe(1, time.Duration(nowNs-m.BornTimestamp*int64(time.Millisecond)))
			s2c.observe(1, time.Duration(nowNs-m.StoreTimestamp*int64(time.Millisecond)))
		}
		for cur := lastNs.Load(); nowNs > cur && !lastNs.CompareAndSwap(cur, nowNs); cur = lastNs.Load() {
		}
		if opts.Count > 0 && b2c.messages.Load() >= opts.Count { // every batch within the Count observed
			reachOnce.Do(func() { close(reached) })
		}
		return consumer.ConsumeSuccess
	})
	if err := c.Start(); err != nil {
		return Summary{}, fmt.Errorf("bench: start consumer: %w", err)
	}
	var prev, prevS snapshot
	stop := reportEvery(ctx, opts.Report, opts.ReportInterval, func(w io.Writer, now time.Time, period time.Duration) {
		cur, curS := b2c.snapshot(), s2c.snapshot()
		iv, ivS := b2c.since(prev, cur), s2c.since(prevS, curS)
		prev, prevS = cur, curS
		writeConsumerLine(w, now, period, iv, ivS)
	})
	select {
	case <-reached:
	case <-ctx.Done():
	}
	end := wall.Now().UnixNano()
	stop()
	c.Shutdown()
	if opts.Count > 0 && b2c.messages.Load() >= opts.Count {
		end = lastNs.Load()
	}
	s := Summary{Mode: ModeConsume, Messages: b2c.messages.Load(), Latency: b2c.hist.Latency()}
	st := s2c.hist.Latency()
	s.StoreToConsume = &st
	if first := firstNs.Load(); first != 0 {
		s.Elapsed = time.Duration(end - first)
	}
	s.TPS = tps(s.Messages, s.Elapsed)
	return s, nil
}

// writeConsumerLine prints one interval as RocketMQ's benchmark consumer does: messages per
// second, average and max born-to-consume (B2C) and store-to-consume (S2C) latency in ms.
func writeConsumerLine(w io.Writer, now time.Time, period time.Duration, b2c, s2c interval) {
	printf(w, "Current Time: %s Consume TPS: %d Average(B2C) RT(ms): %7.3f Max(B2C) RT(ms): %.3f Average(S2C) RT(ms): %7.3f Max(S2C) RT(ms): %.3f\n",
		now.Format(timeLayout), perSecond(b2c.messages, period), ms(b2c.mean), ms(b2c.max), ms(s2c.mean), ms(s2c.max))
}
