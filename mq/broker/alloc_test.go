//go:build !race

package broker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestInstrumentedPutAllocations: what the send path adds for the metrics — recordPut on a
// stored message's result, with its latency read from the broker's clock — allocates nothing,
// so the put's allocation budget (store.TestHotPathAllocations, BenchmarkSendMessage) holds.
func TestInstrumentedPutAllocations(t *testing.T) {
	tb := startTestBroker(t, nil)
	r := store.PutMessageResult{PutMessageStatus: store.PutOK,
		AppendMessageResult: &store.AppendMessageResult{Status: store.AppendPutOK, MsgNum: 1, WroteBytes: 1200}}
	start := tb.b.clock.Now()
	tb.b.recordPut("AllocTopic", r, start) // the topic's first put creates its counters
	allocs := testing.AllocsPerRun(1000, func() { tb.b.recordPut("AllocTopic", r, start) })
	require.Zero(t, allocs)
	require.Equal(t, uint64(1+1+1000), tb.b.Metrics().PutMessages("AllocTopic"))
}
