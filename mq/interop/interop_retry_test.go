package interop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	ourprimitive "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// shortDelayLevels keeps the 18 levels but makes them short: level 2 is 2 s, every other
// level 1 s, so retries (levels 3, 4, ...) come back within seconds.
const shortDelayLevels = "1s 2s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s"

// shortDelays gives a store shortDelayLevels (an option of startCluster).
func shortDelays(sc *store.MessageStoreConfig) { sc.MessageDelayLevel = shortDelayLevels }

// seen is one delivery to a consumer callback.
type seen struct {
	at             time.Time
	topic, body    string
	reconsumeTimes int32
	msgID          string // UNIQ_KEY
	offsetMsgID    string
	originMsgID    string // ORIGIN_MESSAGE_ID property
}

// recorder keeps deliveries and answers every one with result.
type recorder struct {
	mu     sync.Mutex
	got    []seen
	result consumer.ConsumeResult
}

func (r *recorder) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		r.got = append(r.got, seen{at: time.Now(), topic: m.Topic, body: string(m.Body), reconsumeTimes: m.ReconsumeTimes,
			msgID: m.MsgId, offsetMsgID: m.OffsetMsgId, originMsgID: m.GetProperty(primitive.PropertyOriginMessageId)})
	}
	return r.result, nil
}

func (r *recorder) deliveries() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.got...)
}

// startRecordingConsumer starts an official push consumer of group on topic, from the first
// offset, answering every delivery with result; extra options are appended.
func startRecordingConsumer(t *testing.T, namesrv, group, topic string, result consumer.ConsumeResult,
	opts ...consumer.Option) *recorder {
	t.Helper()
	rec := &recorder{result: result}
	newPushConsumer(t, namesrv, group, topic, consumer.MessageSelector{}, rec.consume, opts...)
	return rec
}

// maxOffset asks the broker for a queue's max offset with GET_MAX_OFFSET (30).
func maxOffset(t *testing.T, addr, topic string, queueID int32) int64 {
	t.Helper()
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer c.Shutdown()
	h := protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: queueID}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.InvokeSync(ctx, addr, remoting.NewRequest(protocol.GetMaxOffset, protocol.EncodeHeader(&h), nil))
	require.NoError(t, err)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	var rh protocol.GetMaxOffsetResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	return rh.Offset
}

// The official push consumer answers ConsumeRetryLater every time, with MaxReconsumeTimes(2):
// it gets the message three times (reconsumeTimes 0, 1, 2), the two redeliveries through our
// broker's CONSUMER_SEND_MSG_BACK → SCHEDULE_TOPIC_XXXX → %RETRY%<group> path (their
// ORIGIN_MESSAGE_ID is the first delivery's offsetMsgId, which only the broker's path sets —
// client-go's own fallback would put the UNIQ_KEY there); the third failure sends it to
// %DLQ%<group>, whose queue 0 then holds it (GET_MAX_OFFSET = 1), and nothing more arrives.
func TestOfficialConsumerRetryThenDLQ(t *testing.T) {
	t.Parallel()
	c := startCluster(t, shortDelays)
	const topic, group = "RetryTopic", "retry-group"
	p := newProducer(t, c.NamesrvAddr(), "retry-producer")
	res := sendSync(t, p, primitive.NewMessage(topic, []byte("retry-me")))

	// The broker creates %RETRY%<group> at the group's first heartbeat (as Java does), after
	// the client's first route lookup, so the client would only see it at its next rebalance
	// (20 s). Creating it first, as an earlier run of the group would have, keeps this test
	// about the retry path itself.
	b := c.Brokers[0]
	b.TopicConfigManager().CreateTopicInSendMessageBackMethod(protocol.GetRetryTopic(group), 1,
		protocol.PermRead|protocol.PermWrite, 0)
	b.RegisterBrokerAll()
	rec := startRecordingConsumer(t, c.NamesrvAddr(), group, topic, consumer.ConsumeRetryLater,
		consumer.WithMaxReconsumeTimes(2))
	dlq := protocol.GetDLQTopic(group)
	addr := c.Brokers[0].BrokerAddr()
	require.Eventually(t, func() bool {
		return c.Brokers[0].TopicConfigManager().SelectTopicConfig(dlq) != nil && maxOffset(t, addr, dlq, 0) == 1
	}, consumeTimeout, 50*time.Millisecond, "the message reaches %s", dlq)
	time.Sleep(quietWindow) // nothing more may arrive

	got := rec.deliveries()
	require.Len(t, got, 3, "first delivery and two retries: %+v", got)
	for i, d := range got {
		require.Equal(t, topic, d.topic, "delivery %d: the client shows the original topic", i)
		require.Equal(t, "retry-me", d.body)
		require.Equal(t, int32(i), d.reconsumeTimes, "delivery %d", i)
		require.Equal(t, res.MsgID, d.msgID, "delivery %d keeps the UNIQ_KEY", i)
	}
	require.Equal(t, res.OffsetMsgID, got[0].offsetMsgID)
	require.Empty(t, got[0].originMsgID)
	require.Equal(t, res.OffsetMsgID, got[1].originMsgID, "set by the broker's send-back")
	require.Equal(t, res.OffsetMsgID, got[2].originMsgID, "kept along the retry chain")
	require.GreaterOrEqual(t, got[1].at.Sub(got[0].at), 900*time.Millisecond, "level 3 is 1 s here")

	ms := c.Brokers[0].MessageStore()
	r := ms.GetMessage("check", dlq, 0, 0, 1, nil)
	require.NotNil(t, r)
	msgs, err := ourprimitive.DecodeMessages(r.Body())
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	dead := msgs[0]
	require.Equal(t, "retry-me", string(dead.Body))
	require.Equal(t, int32(3), dead.ReconsumeTimes)
	require.Equal(t, topic, dead.Properties[ourprimitive.PropertyRetryTopic])
	require.Equal(t, res.OffsetMsgID, dead.Properties[ourprimitive.PropertyOriginMessageID])
	require.Equal(t, int32(6), c.Brokers[0].TopicConfigManager().SelectTopicConfig(dlq).Perm)
}

// The official producer's delay level is honoured: with level 2 = 2 s, a consumer that is
// already consuming the topic gets the delayed message no sooner than 2 s after it was sent
// (until then it sits in SCHEDULE_TOPIC_XXXX queue 1, not in its topic), and gets it once.
func TestOfficialProducerDelayLevel(t *testing.T) {
	t.Parallel()
	c := startCluster(t, shortDelays)
	const topic = "DelayTopic"
	p := newProducer(t, c.NamesrvAddr(), "delay-producer")
	sendSync(t, p, primitive.NewMessage(topic, []byte("warm-up")))
	rec := startRecordingConsumer(t, c.NamesrvAddr(), "delay-group", topic, consumer.ConsumeSuccess)
	require.Eventually(t, func() bool { return len(rec.deliveries()) == 1 }, consumeTimeout, 20*time.Millisecond,
		"the consumer is consuming")

	ms := c.Brokers[0].MessageStore()
	inTopic := func() int64 {
		var n int64
		for q := int32(0); q < 4; q++ {
			n += int64(ms.GetMaxOffsetInQueue(topic, q))
		}
		return n
	}
	msg := primitive.NewMessage(topic, []byte("delayed"))
	msg.WithDelayTimeLevel(2)
	sent := time.Now()
	sendSync(t, p, msg)
	require.Eventually(t, func() bool { return ms.GetMaxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 1) == 1 },
		5*time.Second, 5*time.Millisecond, "parked in SCHEDULE_TOPIC_XXXX queue 1 (level 2)")
	require.Equal(t, int64(1), inTopic(), "only the warm-up message is in the topic yet")

	require.Eventually(t, func() bool { return len(rec.deliveries()) == 2 }, 15*time.Second, 10*time.Millisecond)
	d := rec.deliveries()[1]
	require.Equal(t, "delayed", d.body)
	require.GreaterOrEqual(t, d.at.Sub(sent), 1990*time.Millisecond, "not delivered before the level's 2 s")
	time.Sleep(quietWindow)
	require.Len(t, rec.deliveries(), 2, "delivered once")
}
