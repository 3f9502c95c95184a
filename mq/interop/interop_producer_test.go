package interop

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	goprimitive "github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// received is what the official consumer was given for one message id (our "id" property).
type received struct {
	msgID, offsetMsgID, tags, keys, color string
	body                                  []byte
	sysFlag                               int32
	count                                 int
}

// fullCollector keeps every delivered message by its "id" property.
type fullCollector struct {
	mu  sync.Mutex
	got map[string]*received
}

func (c *fullCollector) consume(_ context.Context, msgs ...*goprimitive.MessageExt) (consumer.ConsumeResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		id := m.GetProperty("id")
		r := c.got[id]
		if r == nil {
			r = &received{msgID: m.MsgId, offsetMsgID: m.OffsetMsgId, tags: m.GetTags(), keys: m.GetKeys(),
				color: m.GetProperty("color"), body: bytes.Clone(m.Body), sysFlag: m.SysFlag}
			c.got[id] = r
		}
		r.count++
	}
	return consumer.ConsumeSuccess, nil
}

func (c *fullCollector) has(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.got) >= n
}

// sentMessage is what our producer sent and what its SendResult said.
type sentMessage struct {
	msg              *primitive.Message
	msgID, offsetIDs string
	batch            bool
}

// Messages sent by our producer (mq/client/producer) — sync, async, oneway, batch, to a chosen
// queue, with a selector, small and zlib-compressed (≥ 4 KiB, sysFlag 0x301) — reach the
// official Go client's push consumer intact: body bytes (inflated), tags, keys, a user property,
// and the ids our SendResult gave (MsgId = UNIQ_KEY, OffsetMsgId = the broker's), each message
// exactly once.
func TestOfficialConsumerReceivesOurProducersMessages(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	ns := c.NamesrvAddr()
	const topic = "OurProducerTopic"

	p := startOurProducer(t, ns, "our-producer")
	ctx := context.Background()

	var mu sync.Mutex
	sent := map[string]*sentMessage{}
	newMsg := func(id string, size int) *primitive.Message {
		body := []byte(id + ":" + strings.Repeat(fmt.Sprintf("<%s>", id), size/(len(id)+2)+1))[:max(size, len(id))]
		m := &primitive.Message{Topic: topic, Body: body}
		m.PutProperty("id", id)
		m.PutProperty(primitive.PropertyTags, "Tag"+id[:1])
		m.PutProperty(primitive.PropertyKeys, "key-"+id+" order-"+id)
		m.PutProperty("color", "blue-"+id)
		mu.Lock()
		sent[id] = &sentMessage{msg: m}
		mu.Unlock()
		return m
	}
	record := func(id string, res *producer.SendResult) {
		mu.Lock()
		sent[id].msgID, sent[id].offsetIDs = res.MsgID, res.OffsetMsgID
		mu.Unlock()
	}

	for i := range 10 {
		id := fmt.Sprintf("s%02d", i)
		size := 100
		if i%3 == 0 {
			size = 9000 // compressed
		}
		res, err := p.Send(ctx, newMsg(id, size))
		require.NoError(t, err)
		record(id, res)
	}
	var wg sync.WaitGroup
	for i := range 10 {
		id := fmt.Sprintf("a%02d", i)
		wg.Add(1)
		require.NoError(t, p.SendAsync(ctx, newMsg(id, 5000+i), func(res *producer.SendResult, err error) {
			defer wg.Done()
			if err == nil {
				record(id, res)
			}
		}))
	}
	wg.Wait()
	for i := range 3 {
		require.NoError(t, p.SendOneway(ctx, newMsg(fmt.Sprintf("o%02d", i), 64)))
	}
	batch := []*primitive.Message{newMsg("b00", 10), newMsg("b01", 6000), newMsg("b02", 30)}
	br, err := p.SendBatch(ctx, batch)
	require.NoError(t, err)
	ids, offs := strings.Split(br.MsgID, ","), strings.Split(br.OffsetMsgID, ",")
	for i := range batch {
		record(fmt.Sprintf("b%02d", i), &producer.SendResult{MsgID: ids[i], OffsetMsgID: offs[i]})
		sent[fmt.Sprintf("b%02d", i)].batch = true
	}
	for i := range 4 {
		id := fmt.Sprintf("q%02d", i)
		res, err := p.SendWithSelector(ctx, newMsg(id, 200), producer.SelectMessageQueueByHash{}, "same-order")
		require.NoError(t, err)
		record(id, res)
	}

	col := &fullCollector{got: map[string]*received{}}
	newPushConsumer(t, ns, "our-producer-consumer", topic, consumer.MessageSelector{}, col.consume)

	require.Eventually(t, func() bool { return col.has(len(sent)) }, consumeTimeout, 20*time.Millisecond)
	time.Sleep(quietWindow) // nothing more may arrive
	col.mu.Lock()
	defer col.mu.Unlock()
	require.Len(t, col.got, len(sent))
	for id, s := range sent {
		r := col.got[id]
		require.NotNil(t, r, "%s never delivered", id)
		require.Equal(t, 1, r.count, "%s delivered more than once", id)
		require.Equal(t, s.msg.Body, r.body, "%s: body", id)
		require.Equal(t, s.msg.Tags(), r.tags, id)
		require.Equal(t, s.msg.Keys(), r.keys, id)
		require.Equal(t, s.msg.GetProperty("color"), r.color, id)
		require.Equal(t, s.msg.GetProperty("UNIQ_KEY"), r.msgID, "%s: MsgId is our UNIQ_KEY", id)
		if !strings.HasPrefix(id, "o") {
			require.Equal(t, s.msgID, r.msgID, id)
			require.Equal(t, s.offsetIDs, r.offsetMsgID, id)
		}
		compressed := !s.batch && len(s.msg.Body) >= 4096
		require.Equal(t, compressed, r.sysFlag&1 == 1, "%s: compressed flag", id)
		if compressed {
			require.Equal(t, int32(0x301), r.sysFlag&0x301, "%s: zlib type bits", id)
		}
	}
}
