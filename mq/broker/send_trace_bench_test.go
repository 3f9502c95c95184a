package broker

import (
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// BenchmarkSendMessageTraced is BenchmarkSendMessage's fixed-queue send with the broker's
// tracer as mqbroker -dashboard sets it up: "noTracer" (mqbroker without a console),
// "idleHub" (a console, no live trace page open: the same cost) and "watchedHub" (one page
// watching: every step built and handed to it). Run with:
// go test ./mq/broker -run XXX -bench BenchmarkSendMessageTraced
func BenchmarkSendMessageTraced(b *testing.B) {
	for _, c := range []struct {
		name  string
		watch bool
		hub   bool
	}{{"noTracer", false, false}, {"idleHub", false, true}, {"watchedHub", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			var tr *trace.Tracer
			var steps atomic.Int64
			if c.hub {
				hub := trace.NewHub(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
				tr = trace.New(slog.New(hub), "broker-a")
				if c.watch {
					b.Cleanup(hub.Subscribe(func(slog.Record) { steps.Add(1) }))
				}
			}
			tb := startTestBroker(b, tr, func(_ *BrokerConfig, sc storeSetup) {
				sc.MappedFileSizeCommitLog = 64 << 20
				sc.MappedFileSizeConsumeQueue = 300000 * store.ConsumeQueueUnitSize
			})
			body := make([]byte, 1024)
			ext := sendHeader("SendBenchTopic", 0, map[string]string{primitive.PropertyTags: "TagA"}).EncodeV2()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if resp := tb.invoke(b, remoting.NewRequest(protocol.SendMessageV2, ext, body)); resp.Code != protocol.Success {
					b.Fatalf("send %d: code %d %s", i, resp.Code, resp.Remark)
				}
			}
			b.ReportMetric(float64(steps.Load())/float64(b.N), "steps/op")
		})
	}
}
