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

// TestMsgCheckAllocations: msgCheck on an existing topic and a valid queue — the check every
// send runs — allocates nothing (the topic's config is copied by value, TopicConfigOf), and
// returns the config SelectTopicConfig returns. The channel is only read on the refusing paths,
// so none is needed here.
func TestMsgCheckAllocations(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.createTopic(t, "AllocCheckTopic", 4)
	p := tb.b.sendMessageProcessor
	h := sendHeader("AllocCheckTopic", 3, nil)
	tc, v := p.msgCheck(nil, h)
	require.True(t, v.ok())
	require.Equal(t, tb.b.topicConfigManager.SelectTopicConfig("AllocCheckTopic"), &tc)
	require.Equal(t, int32(4), tc.WriteQueueNums)
	allocs := testing.AllocsPerRun(1000, func() { _, _ = p.msgCheck(nil, h) })
	require.Zero(t, allocs)
}
