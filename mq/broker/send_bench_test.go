package broker

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// BenchmarkSendMessage measures one synchronous SEND_MESSAGE_V2 of a 1 KiB message to queue 0
// over a remoting client on 127.0.0.1 (ASYNC_FLUSH): the header decode, msgCheck, the message
// build, the CommitLog append and the answer; the allocations count both sides (client and
// broker share the process). (A negative queueId is refused by msgCheck: see its Deviation.)
// Run with: go test ./mq/broker -run XXX -bench BenchmarkSendMessage -benchmem
func BenchmarkSendMessage(b *testing.B) {
	tb := startTestBroker(b, nil, func(_ *BrokerConfig, sc storeSetup) {
		sc.MappedFileSizeCommitLog = 64 << 20
		sc.MappedFileSizeConsumeQueue = 300000 * store.ConsumeQueueUnitSize
	})
	body := make([]byte, 1024)
	b.Run("fixedQueue", func(b *testing.B) {
		h := sendHeader("SendBenchTopic", 0, map[string]string{primitive.PropertyTags: "TagA"})
		ext := h.EncodeV2()
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			resp := tb.invoke(b, remoting.NewRequest(protocol.SendMessageV2, ext, body))
			if resp.Code != protocol.Success {
				b.Fatalf("send %d: code %d %s", i, resp.Code, resp.Remark)
			}
		}
	})
}
