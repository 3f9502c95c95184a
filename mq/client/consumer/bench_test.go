package consumer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// BenchmarkProduceConsume measures end-to-end throughput over loopback: b.N 1 KiB messages sent
// asynchronously by our producer and received by our push consumer (4 queues, 20 workers);
// the clock stops when the last message reached the listener.
func BenchmarkProduceConsume(b *testing.B) {
	c, topic, p := startTopicProducer(b, "Bench_", 4)
	var got, failed atomic.Int64
	startPushConsumer(b, consumerConfig(b, c, "cg_"+clienttest.Name(b)), topic,
		func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
			got.Add(int64(len(msgs)))
			return ConsumeSuccess
		})
	body := make([]byte, 1024)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		m := &primitive.Message{Topic: topic, Body: body}
		for {
			err := p.SendAsync(context.Background(), m, func(_ *producer.SendResult, err error) {
				if err != nil {
					failed.Add(1)
				}
			})
			if err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for got.Load()+failed.Load() < int64(b.N) {
		require.True(b, time.Now().Before(deadline), "received %d of %d, %d sends failed", got.Load(), b.N, failed.Load())
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(got.Load())/time.Since(start).Seconds(), "msgs/s")
	b.ReportMetric(float64(failed.Load()), "sendFailures")
}
