package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsStream is the harness's stream: file storage, every "bench.>" subject.
const natsStream = "BENCH"

// natsLoad drives NATS JetStream over one connection with nats.go's jetstream API.
type natsLoad struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	failed atomic.Int64 // async publishes that failed (the error handler counts them)
	body   []byte
}

// newNATSLoad connects to url and creates the stream (file storage).
func newNATSLoad(ctx context.Context, url string, body []byte, inflight int) (*natsLoad, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, fmt.Errorf("nats connect %s: %w", url, err)
	}
	l := &natsLoad{nc: nc, body: body}
	l.js, err = jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(inflight),
		jetstream.WithPublishAsyncErrHandler(func(jetstream.JetStream, *nats.Msg, error) { l.failed.Add(1) }))
	if err != nil {
		nc.Close()
		return nil, err
	}
	if _, err := l.js.CreateStream(ctx, jetstream.StreamConfig{Name: natsStream, Subjects: []string{"bench.>"},
		Storage: jetstream.FileStorage}); err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats create stream: %w", err)
	}
	return l, nil
}

func subject(topic string) string { return "bench." + topic }

// publishAsync: PublishAsync, at most inflight pending (WithPublishAsyncMaxPending makes
// PublishAsync wait when the window is full), then PublishAsyncComplete.
func (l *natsLoad) publishAsync(ctx context.Context, topic string, count, _ int) (figure, error) {
	subj := subject(topic)
	l.failed.Store(0)
	start := time.Now()
	var refused int64
	for range count {
		if _, err := l.js.PublishAsync(subj, l.body); err != nil {
			refused++
		}
	}
	select {
	case <-l.js.PublishAsyncComplete():
	case <-ctx.Done():
		return figure{}, fmt.Errorf("nats async publish: %w", ctx.Err())
	}
	failed := l.failed.Load() + refused
	return figure{Messages: int64(count) - failed, Failed: failed, Elapsed: time.Since(start)}, nil
}

func (l *natsLoad) publishSync(ctx context.Context, topic string, senders int, d time.Duration) (figure, error) {
	subj := subject(topic)
	return syncSenders(ctx, senders, d, func(ctx context.Context) error {
		_, err := l.js.Publish(ctx, subj, l.body)
		return err
	}), nil
}

// consume: an ephemeral pull consumer without acks (AckNone) from the first message, read
// with Messages (nats.go's default prefetch of 500).
func (l *natsLoad) consume(ctx context.Context, topic string, count int) (figure, error) {
	c, err := l.js.CreateConsumer(ctx, natsStream, jetstream.ConsumerConfig{
		AckPolicy: jetstream.AckNonePolicy, DeliverPolicy: jetstream.DeliverAllPolicy, FilterSubject: subject(topic)})
	if err != nil {
		return figure{}, fmt.Errorf("nats create consumer: %w", err)
	}
	it, err := c.Messages()
	if err != nil {
		return figure{}, err
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	var f figure
	var first time.Time
	for f.Messages < int64(count) {
		if _, err := it.Next(); err != nil {
			return figure{}, fmt.Errorf("nats consume after %d messages: %w", f.Messages, err)
		}
		if f.Messages == 0 {
			first = time.Now()
		}
		f.Messages++
	}
	f.Elapsed = time.Since(first)
	return f, nil
}

func (l *natsLoad) close() { l.nc.Close() }
