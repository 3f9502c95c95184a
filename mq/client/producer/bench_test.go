package producer

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// BenchmarkProducerSend sends 1 KiB messages to one embedded broker over loopback (ASYNC_FLUSH
// store): "sync" one Send at a time, "async" with up to 1024 SendAsync in flight. It reports
// msgs/s and allocs/op (the producer's and, in the same process, the broker's).
func BenchmarkProducerSend(b *testing.B) {
	c := startCluster(b, 1)
	body := make([]byte, 1024)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	warm := func(p *DefaultMQProducer) {
		for range 200 {
			if _, err := p.Send(context.Background(), &primitive.Message{Topic: "BenchT", Body: body}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sync", func(b *testing.B) {
		p := startProducer(b, testConfig(b, c.NamesrvAddr()))
		warm(p)
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			if _, err := p.Send(context.Background(), &primitive.Message{Topic: "BenchT", Body: body}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
	})
	b.Run("async", func(b *testing.B) {
		p := startProducer(b, testConfig(b, c.NamesrvAddr()))
		warm(p)
		sendAsyncWindow(b, p, "BenchT", body, 1024)
	})
}

// sendAsyncWindow sends b.N messages of body to topic with SendAsync, at most window in
// flight, timed from its first send to the last callback; it reports allocs and msgs/s.
func sendAsyncWindow(b *testing.B, p *DefaultMQProducer, topic string, body []byte, window int) {
	sem := make(chan struct{}, window)
	var wg sync.WaitGroup
	var failed sync.Once
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		sem <- struct{}{}
		wg.Add(1)
		err := p.SendAsync(context.Background(), &primitive.Message{Topic: topic, Body: body}, func(_ *SendResult, err error) {
			if err != nil {
				failed.Do(func() { b.Error(err) })
			}
			<-sem
			wg.Done()
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkSendAsyncScripted measures the client side of an async send: 1 KiB messages with up
// to 1024 in flight on one connection to a scripted broker that answers every send at once
// (no store), so the figure is our producer's cost per send plus a minimal server's. It reports
// msgs/s and allocs/op (both sides, one process).
func BenchmarkSendAsyncScripted(b *testing.B) {
	br := startScriptedBroker(b, 0)
	cfg := testConfig(b, startScriptedNamesrv(b, map[string]string{"broker-a": br.srv.Addr().String()}))
	p := startProducer(b, cfg)
	body := make([]byte, 1024)
	if _, err := p.Send(context.Background(), &primitive.Message{Topic: "T", Body: body}); err != nil {
		b.Fatal(err)
	}
	sendAsyncWindow(b, p, "T", body, 1024)
}
