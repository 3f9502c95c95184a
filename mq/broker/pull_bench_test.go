package broker

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// pullBenchMsgs is how many messages each benchmarked PULL_MESSAGE returns (client-go's
// pullBatchSize default, and the header's MaxMsgNums in pullHeader).
const pullBenchMsgs = 32

// storePullFixture creates topic (one queue) and stores pullBenchMsgs 1 KiB messages in queue 0,
// waiting until the ConsumeQueue holds them all.
func storePullFixture(b *testing.B, tb *testBroker, topic string) {
	b.Helper()
	tb.createTopic(b, topic, 1)
	body := make([]byte, 1024)
	for i := 0; i < pullBenchMsgs; i++ {
		props := map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "BENCH" + strconv.Itoa(i),
			primitive.PropertyTags: "TagA"}
		resp := tb.invoke(b, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(sendHeader(topic, 0, props)), body))
		require.Equal(b, int32(protocol.Success), resp.Code, resp.Remark)
	}
	require.Eventually(b, func() bool { return tb.b.MessageStore().GetMaxOffsetInQueue(topic, 0) == pullBenchMsgs },
		5*time.Second, time.Millisecond, "dispatch of %d messages", pullBenchMsgs)
}

// BenchmarkPullMessage measures one PULL_MESSAGE of 32 stored 1 KiB messages from offset 0
// (subscription "*" carried in the request, no suspend, no commit offset — the flags a consumer
// sends on its first pull). "processor" calls PullMessageProcessor.processRequest directly with a
// decoded request (no channel: the FOUND path never touches it), so allocs/msg is the broker's own
// figure (header decode, subscription build, store read, response header encode, body copy);
// "loopback" is the whole round trip over a remoting client on 127.0.0.1, client allocations
// included. Run with: go test ./mq/broker -run XXX -bench BenchmarkPullMessage
func BenchmarkPullMessage(b *testing.B) {
	tb := startTestBroker(b, nil, func(_ *BrokerConfig, sc storeSetup) {
		sc.MappedFileSizeCommitLog = 1 << 20 // the fixture fits in one file
		sc.MappedFileSizeConsumeQueue = 1000 * store.ConsumeQueueUnitSize
	})
	const topic = "PullBenchTopic"
	storePullFixture(b, tb, topic)
	h := pullHeader("bench-group", topic, 0, 0, protocol.PullFlagSubscription, 0, "*")

	check := func(b *testing.B, resp *remoting.RemotingCommand) {
		require.NotNil(b, resp)
		require.Equal(b, int32(protocol.Success), resp.Code, resp.Remark)
		require.Greater(b, len(resp.Body), pullBenchMsgs*1024, "32 messages of 1 KiB each")
	}

	b.Run("processor", func(b *testing.B) {
		p := tb.b.pullMessageProcessor
		req := remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil)
		check(b, p.processRequest(nil, req, true))
		b.ReportAllocs()
		b.SetBytes(int64(pullBenchMsgs * 1024))
		allocs := measureAllocs(b, func() {
			for i := 0; i < b.N; i++ {
				if resp := p.processRequest(nil, req, true); resp == nil || resp.Code != protocol.Success {
					b.Fatalf("pull %d: %v", i, resp)
				}
			}
		})
		b.ReportMetric(float64(allocs)/float64(b.N*pullBenchMsgs), "allocs/msg")
	})

	b.Run("loopback", func(b *testing.B) {
		check(b, tb.invoke(b, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil)))
		b.ReportAllocs()
		b.SetBytes(int64(pullBenchMsgs * 1024))
		allocs := measureAllocs(b, func() {
			for i := 0; i < b.N; i++ {
				resp := tb.invoke(b, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
				if resp.Code != protocol.Success {
					b.Fatalf("pull %d: %d %s", i, resp.Code, resp.Remark)
				}
			}
		})
		b.ReportMetric(float64(allocs)/float64(b.N*pullBenchMsgs), "allocs/msg")
	})
}

// measureAllocs resets the timer, runs f and returns the heap allocations made meanwhile
// (process-wide: background services of the broker count too, which over a short loop is noise).
func measureAllocs(b *testing.B, f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	f()
	b.StopTimer()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
