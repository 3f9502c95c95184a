package consumer

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
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

// benchConsumeCount is how many 1 KiB messages BenchmarkConsumeFromFirst stores and each of
// its iterations consumes.
const benchConsumeCount = 100_000

// BenchmarkConsumeFromFirst measures what the bench harness's consume rows measure, over
// loopback against one embedded broker: a consumer of a new group reads benchConsumeCount
// stored 1 KiB messages (4 queues) from the first offset, with its defaults; the clock runs
// from the first message to the last. push: DefaultMQPushConsumer (20 workers, the listener
// counting; pullBatchSize 32); lite: DefaultLitePullConsumer, one goroutine calling Poll
// (pullBatchSize 10, Java's default); lite-batch32: the same with the push consumer's 32 per
// pull, which shows the gap between the first two is the batch size (each queue's pull task
// pulls one batch per round trip, so 10 a pull takes 3.2 times the round trips of 32).
func BenchmarkConsumeFromFirst(b *testing.B) {
	c := clienttest.StartCluster(b, 1, func(sc *store.MessageStoreConfig) { sc.MappedFileSizeCommitLog = 64 << 20 })
	topic := "BenchConsume_" + clienttest.Name(b)
	createTopic(b, c, topic, 4)
	p := startProducer(b, c)
	body := make([]byte, 1024)
	var acked, failed atomic.Int64
	for range benchConsumeCount {
		for p.SendAsync(context.Background(), &primitive.Message{Topic: topic, Body: body}, func(_ *producer.SendResult, err error) {
			if err != nil {
				failed.Add(1)
			}
			acked.Add(1)
		}) != nil {
			time.Sleep(time.Millisecond)
		}
	}
	require.Eventually(b, func() bool { return acked.Load() == benchConsumeCount }, 60*time.Second, 10*time.Millisecond,
		"every send of the setup answered")
	require.Zero(b, failed.Load(), "failed sends")
	var round atomic.Int64
	group := func() string { return fmt.Sprintf("cg_%s_%d", clienttest.Name(b), round.Add(1)) }

	b.Run("push", func(b *testing.B) {
		var elapsed time.Duration
		for range b.N {
			var got atomic.Int64
			var first atomic.Int64
			done := make(chan struct{})
			cons := startPushConsumer(b, consumerConfig(b, c, group()), topic,
				func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
					first.CompareAndSwap(0, time.Now().UnixNano())
					if got.Add(int64(len(msgs))) == benchConsumeCount {
						close(done)
					}
					return ConsumeSuccess
				})
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				b.Fatalf("push: %d of %d messages", got.Load(), benchConsumeCount)
			}
			elapsed += time.Duration(time.Now().UnixNano() - first.Load())
			cons.Shutdown()
		}
		b.ReportMetric(float64(benchConsumeCount*b.N)/elapsed.Seconds(), "msgs/s")
	})
	lite := func(batch int32) func(b *testing.B) {
		return func(b *testing.B) {
			var elapsed time.Duration
			for range b.N {
				cfg := DefaultLitePullConfig(group())
				cfg.NamesrvAddr = c.NamesrvAddr()
				cfg.InstanceName = clienttest.InstanceName(b, "lite")
				cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
				if batch > 0 {
					cfg.PullBatchSize = batch
				}
				cons := NewDefaultLitePullConsumer(cfg)
				require.NoError(b, cons.Subscribe(topic, "*"))
				require.NoError(b, cons.Start())
				var got int
				var first time.Time
				deadline := time.Now().Add(60 * time.Second)
				for got < benchConsumeCount {
					require.True(b, time.Now().Before(deadline), "lite: %d of %d messages", got, benchConsumeCount)
					msgs, err := cons.Poll(100 * time.Millisecond)
					require.NoError(b, err)
					if len(msgs) > 0 && got == 0 {
						first = time.Now()
					}
					got += len(msgs)
				}
				elapsed += time.Since(first)
				cons.Shutdown()
			}
			b.ReportMetric(float64(benchConsumeCount*b.N)/elapsed.Seconds(), "msgs/s")
		}
	}
	b.Run("lite", lite(0))
	b.Run("lite-batch32", lite(32))
}
