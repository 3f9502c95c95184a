package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

// officialLoad drives our broker with the official Apache RocketMQ Go client
// (rocketmq-client-go/v2): one producer (one connection to the broker), client defaults
// (3 s send timeout, 2 retries), and a push consumer per consume phase.
type officialLoad struct {
	ns       primitive.NamesrvAddr
	instance string
	p        rocketmq.Producer
	body     []byte
	groups   atomic.Int64
}

// newOfficialLoad starts an official producer against the name server ns; instance names the
// client (the official client keeps one client per instance name and process).
func newOfficialLoad(ns, instance string, body []byte) (*officialLoad, error) {
	l := &officialLoad{ns: primitive.NamesrvAddr{ns}, instance: instance, body: body}
	p, err := rocketmq.NewProducer(producer.WithNameServer(l.ns), producer.WithGroupName("bench_official_producer"),
		producer.WithInstanceName(instance))
	if err != nil {
		return nil, err
	}
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("official producer start: %w", err)
	}
	l.p = p
	return l, nil
}

// errSendStatus is a send answered with a status other than SEND_OK.
var errSendStatus = errors.New("send status not SEND_OK")

// publishAsync: SendAsync, a semaphore of inflight slots released by the callbacks.
func (l *officialLoad) publishAsync(ctx context.Context, topic string, count, inflight int) (figure, error) {
	sem := make(chan struct{}, inflight)
	var wg sync.WaitGroup
	var ok, failed atomic.Int64
	start := time.Now()
	for range count {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return figure{}, fmt.Errorf("official async publish: %w", ctx.Err())
		}
		wg.Add(1)
		err := l.p.SendAsync(context.Background(), func(_ context.Context, res *primitive.SendResult, err error) {
			if err == nil && res.Status == primitive.SendOK {
				ok.Add(1)
			} else {
				failed.Add(1)
			}
			<-sem
			wg.Done()
		}, primitive.NewMessage(topic, l.body))
		if err != nil { // refused before it went out: the callback never runs
			failed.Add(1)
			<-sem
			wg.Done()
		}
	}
	wg.Wait()
	return figure{Messages: ok.Load(), Failed: failed.Load(), Elapsed: time.Since(start)}, nil
}

func (l *officialLoad) publishSync(ctx context.Context, topic string, senders int, d time.Duration) (figure, error) {
	return syncSenders(ctx, senders, d, func(ctx context.Context) error {
		res, err := l.p.SendSync(ctx, primitive.NewMessage(topic, l.body))
		if err == nil && res.Status != primitive.SendOK {
			err = errSendStatus
		}
		return err
	}), nil
}

// consume: a push consumer of a new group from the first offset (client defaults: 32 messages
// a pull, one message a listener call), the clock from the first message to the count-th.
func (l *officialLoad) consume(ctx context.Context, topic string, count int) (figure, error) {
	n := l.groups.Add(1)
	var got atomic.Int64
	var first, last atomic.Int64 // unix ns
	reached := make(chan struct{})
	var once sync.Once
	c, err := rocketmq.NewPushConsumer(consumer.WithNameServer(l.ns),
		consumer.WithGroupName(fmt.Sprintf("bench_official_consumer_%d", n)),
		consumer.WithInstance(fmt.Sprintf("%s-c%d", l.instance, n)),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		return figure{}, err
	}
	err = c.Subscribe(topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		now := time.Now().UnixNano()
		first.CompareAndSwap(0, now)
		if v := got.Add(int64(len(msgs))); v >= int64(count) && v-int64(len(msgs)) < int64(count) {
			last.Store(now)
			once.Do(func() { close(reached) })
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		return figure{}, err
	}
	if err := c.Start(); err != nil {
		return figure{}, fmt.Errorf("official push consumer start: %w", err)
	}
	defer func() { _ = c.Shutdown() }()
	select {
	case <-reached:
	case <-ctx.Done():
		return figure{}, fmt.Errorf("official consume: %d of %d messages: %w", got.Load(), count, ctx.Err())
	}
	return figure{Messages: int64(count), Elapsed: time.Duration(last.Load() - first.Load())}, nil
}

func (l *officialLoad) close() { _ = l.p.Shutdown() }
