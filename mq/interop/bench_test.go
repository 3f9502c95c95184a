package interop

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// benchMaxInFlight caps the official producer's outstanding SendAsync calls, so a large b.N
// does not queue unbounded requests (and time out in the client) before the broker answers.
const benchMaxInFlight = 1024

// benchBodySize is the body of each benchmarked message (1 KiB).
const benchBodySize = 1024

// BenchmarkOfficialClientProduceConsume measures end-to-end throughput through an embedded
// name server and broker with the unmodified official client: an official producer sends b.N
// 1 KiB messages with SendAsync (at most benchMaxInFlight outstanding) to a fresh 4-queue topic,
// and an official push consumer (ConsumeFromFirstOffset, client defaults: 32 per pull, 20
// consume goroutines) receives every one. The clock runs from the first send until the last
// distinct message is consumed; cluster start, topic creation and the consumer's first
// rebalance (proved by a warm-up message delivered before the clock starts) are excluded.
// Run with: go test ./mq/interop -run XXX -bench BenchmarkOfficialClientProduceConsume
func BenchmarkOfficialClientProduceConsume(b *testing.B) {
	c := mqtest.StartCluster(b, embedded.Config{Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		sc.MappedFileSizeCommitLog = 32 << 20
		sc.MappedFileSizeConsumeQueue = 100_000 * store.ConsumeQueueUnitSize
	}})
	const topic, group = "BenchTopic", "bench-consumer"

	// Create the topic up front (the broker registers it with the name server at once), so the
	// consumer's first route lookup finds it.
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	b.Cleanup(admin.Shutdown)
	require.NoError(b, mqtest.CreateTopic(admin, c.Brokers[0].BrokerAddr(), topic, 4, protocol.PermRead|protocol.PermWrite))
	p := newProducer(b, c.NamesrvAddr(), "bench-producer")

	// Message i (0..b.N-1) carries i in its first 8 bytes; the warm-up message is 8 bytes of 0xff.
	seen := make([]atomic.Bool, b.N)
	var distinct atomic.Int64
	allIn := make(chan struct{})
	warm := make(chan struct{})
	var warmOnce sync.Once
	newPushConsumer(b, c.NamesrvAddr(), group, topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range msgs {
			if len(m.Body) < 8 {
				continue
			}
			i := binary.BigEndian.Uint64(m.Body)
			if i == ^uint64(0) {
				warmOnce.Do(func() { close(warm) })
				continue
			}
			if i < uint64(len(seen)) && !seen[i].Swap(true) && distinct.Add(1) == int64(len(seen)) {
				close(allIn)
			}
		}
		return consumer.ConsumeSuccess, nil
	})

	warmBody := make([]byte, benchBodySize)
	binary.BigEndian.PutUint64(warmBody, ^uint64(0))
	sendSync(b, p, primitive.NewMessage(topic, warmBody))
	select {
	case <-warm:
	case <-time.After(consumeTimeout):
		b.Fatal("the push consumer never received the warm-up message")
	}

	bodies := make([][]byte, b.N)
	for i := range bodies {
		bodies[i] = make([]byte, benchBodySize)
		binary.BigEndian.PutUint64(bodies[i], uint64(i))
	}
	sem := make(chan struct{}, benchMaxInFlight)
	var sendErr atomic.Pointer[error]
	var sends sync.WaitGroup
	b.SetBytes(benchBodySize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sem <- struct{}{}
		sends.Add(1)
		err := p.SendAsync(context.Background(), func(_ context.Context, res *primitive.SendResult, err error) {
			defer func() { <-sem; sends.Done() }()
			if err == nil && res.Status != primitive.SendOK {
				err = fmt.Errorf("send status %d", res.Status)
			}
			if err != nil {
				sendErr.CompareAndSwap(nil, &err)
			}
		}, primitive.NewMessage(topic, bodies[i]))
		if err != nil {
			b.Fatalf("SendAsync %d: %v", i, err)
		}
		if e := sendErr.Load(); e != nil {
			b.Fatalf("async send failed: %v", *e)
		}
	}
	sends.Wait()
	if e := sendErr.Load(); e != nil {
		b.Fatalf("async send failed: %v", *e)
	}
	select {
	case <-allIn:
	case <-time.After(consumeTimeout + time.Duration(b.N)*time.Millisecond):
		b.Fatalf("only %d of %d messages consumed", distinct.Load(), b.N)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
