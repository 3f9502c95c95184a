package interop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

// The official client sends 100 messages to a topic that does not exist yet (auto-created
// through TBW102), every send returns SEND_OK, and each OffsetMsgID decodes to our broker's
// address and a CommitLog offset that grows; then a push consumer of a new group, from the first
// offset, receives all 100 bodies with their tags, keys and user properties, and nothing more
// within a quiet window.
func TestOfficialClientSendsAndConsumes(t *testing.T) {
	t.Parallel()
	c, p := startWithProducer(t, "interop-producer")
	const topic, n = "InteropTopic", 100

	brokerAddr := c.Brokers[0].BrokerAddr()
	lastOffset := int64(-1)
	for i := 0; i < n; i++ {
		msg := primitive.NewMessage(topic, []byte("body-"+strconv.Itoa(i)))
		msg.WithTag(fmt.Sprintf("Tag%d", i%3))
		msg.WithKeys([]string{"key-" + strconv.Itoa(i)})
		msg.WithProperty("seq", strconv.Itoa(i))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := p.SendSync(ctx, msg)
		cancel()
		require.NoError(t, err, "send %d", i)
		require.Equal(t, primitive.SendOK, res.Status, "send %d", i)
		id, err := primitive.UnmarshalMsgID([]byte(res.OffsetMsgID))
		require.NoError(t, err)
		require.Equal(t, brokerAddr, fmt.Sprintf("%s:%d", id.Addr, id.Port))
		require.Greater(t, id.Offset, lastOffset, "CommitLog offsets grow")
		lastOffset = id.Offset
	}

	type got struct{ tag, keys, seq string }
	var mu sync.Mutex
	received := map[string]got{}
	dup := 0
	newPushConsumer(t, c.NamesrvAddr(), "interop-consumer", topic, consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			if _, ok := received[string(m.Body)]; ok {
				dup++
			}
			received[string(m.Body)] = got{m.GetTags(), m.GetKeys(), m.GetProperty("seq")}
		}
		return consumer.ConsumeSuccess, nil
	})

	count := func() int { mu.Lock(); defer mu.Unlock(); return len(received) }
	require.Eventually(t, func() bool { return count() == n }, 60*time.Second, 50*time.Millisecond)
	time.Sleep(3 * time.Second) // quiet window: nothing more may arrive
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, received, n)
	require.Zero(t, dup, "no message delivered twice")
	for i := 0; i < n; i++ {
		g, ok := received["body-"+strconv.Itoa(i)]
		require.True(t, ok, "message %d", i)
		require.Equal(t, got{fmt.Sprintf("Tag%d", i%3), "key-" + strconv.Itoa(i), strconv.Itoa(i)}, g)
	}
}

// 1,000 sync sends with tags A and B alternating, then 50 with the non-ASCII tag "标签", to a topic
// that does not exist yet: every send is SEND_OK, the topic is auto-created with the client's 4
// queues, and each queue's SendResult.QueueOffset runs 0, 1, 2, ... in send order (Java:
// CommitLog#doAppend takes the queue offset from topicQueueTable under the append lock, so sync
// sends from one producer get consecutive offsets per queue). Then push consumers of new groups
// subscribed to tag A, to "标签" and to "A || B" get exactly their messages, once each (Java:
// the broker filters on the tag hash code in the ConsumeQueue, the client on the tag string).
func TestOfficialClientTagsAndQueueOffsets(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	ns := c.NamesrvAddr()
	const topic, n, nCN, cnTag = "TagTopic", 1000, 50, "标签"
	p := newProducer(t, ns, "tags-producer")

	tags := map[string]string{}
	var wantA, wantAB, wantCN []string
	offsets := map[int][]int64{} // queueId -> QueueOffsets in send order
	send := func(body, tag string) {
		msg := primitive.NewMessage(topic, []byte(body))
		msg.WithTag(tag)
		res := sendSync(t, p, msg)
		require.Equal(t, topic, res.MessageQueue.Topic)
		require.Equal(t, "broker-a", res.MessageQueue.BrokerName)
		offsets[res.MessageQueue.QueueId] = append(offsets[res.MessageQueue.QueueId], res.QueueOffset)
		tags[body] = tag
	}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("m-%04d", i)
		if i%2 == 0 {
			send(body, "A")
			wantA = append(wantA, body)
		} else {
			send(body, "B")
		}
		wantAB = append(wantAB, body)
	}
	for i := 0; i < nCN; i++ {
		body := fmt.Sprintf("cn-%02d", i)
		send(body, cnTag)
		wantCN = append(wantCN, body)
	}

	require.Len(t, offsets, 4, "the topic is auto-created with the client's defaultTopicQueueNums=4")
	total := 0
	for q := 0; q < 4; q++ {
		got := offsets[q]
		require.NotEmpty(t, got, "queue %d got no message", q)
		for j, off := range got {
			require.Equal(t, int64(j), off, "queue %d: the %d-th send's QueueOffset", q, j)
		}
		total += len(got)
	}
	require.Equal(t, n+nCN, total)

	colA, _ := startPushConsumer(t, ns, "tags-consumer-A", topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "A"})
	colCN, _ := startPushConsumer(t, ns, "tags-consumer-CN", topic, consumer.MessageSelector{Type: consumer.TAG, Expression: cnTag})
	colAB, _ := startPushConsumer(t, ns, "tags-consumer-AB", topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "A || B"})
	requireExactlyOnce(t,
		expectation{"tag A", colA, wantA, tags},
		expectation{"tag " + cnTag, colCN, wantCN, tags},
		expectation{"tags A || B", colAB, wantAB, tags},
	)
}

// SendAsync, SendOneWay and batch sends (SendSync with several messages: SEND_BATCH_MESSAGE)
// all store their messages: a push consumer gets every one of them exactly once, batch members
// as separate messages with their own tags. Each async callback reports SEND_OK; a batch's
// result is SEND_OK and its OffsetMsgID lists one id per member, at growing CommitLog offsets
// (Java: SendMessageProcessor#sendBatchMessage answers the members' msgIds joined by commas).
func TestOfficialClientAsyncOnewayBatch(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	ns := c.NamesrvAddr()
	const topic, nAsync, nOneway, nBatches, batchSize = "ModesTopic", 100, 100, 10, 10
	p := newProducer(t, ns, "modes-producer")
	brokerAddr := c.Brokers[0].BrokerAddr()

	// The topic is created by the first sync send; async and oneway sends do not retry a
	// missing route the way sendSync does.
	want := []string{"first"}
	tags := map[string]string{"first": "S"}
	first := primitive.NewMessage(topic, []byte("first"))
	first.WithTag("S")
	sendSync(t, p, first)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var asyncErrs []error
	for i := 0; i < nAsync; i++ {
		body := fmt.Sprintf("async-%03d", i)
		msg := primitive.NewMessage(topic, []byte(body))
		msg.WithTag("Async")
		want, tags[body] = append(want, body), "Async"
		wg.Add(1)
		err := p.SendAsync(context.Background(), func(_ context.Context, res *primitive.SendResult, err error) {
			defer wg.Done()
			if err == nil && res.Status != primitive.SendOK {
				err = fmt.Errorf("status %d", res.Status)
			}
			if err != nil {
				mu.Lock()
				asyncErrs = append(asyncErrs, fmt.Errorf("%s: %w", body, err))
				mu.Unlock()
			}
		}, msg)
		if err != nil {
			wg.Done()
			require.NoError(t, err, "SendAsync %s", body)
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("async send callbacks did not all run within 30 s")
	}
	require.Empty(t, asyncErrs)

	for i := 0; i < nOneway; i++ {
		body := fmt.Sprintf("oneway-%03d", i)
		msg := primitive.NewMessage(topic, []byte(body))
		msg.WithTag("Oneway")
		want, tags[body] = append(want, body), "Oneway"
		require.NoError(t, p.SendOneWay(context.Background(), msg), body)
	}

	for b := 0; b < nBatches; b++ {
		var msgs []*primitive.Message
		for k := 0; k < batchSize; k++ {
			body := fmt.Sprintf("batch-%02d-%02d", b, k)
			msg := primitive.NewMessage(topic, []byte(body))
			tag := fmt.Sprintf("Batch%d", k%2)
			msg.WithTag(tag)
			msgs = append(msgs, msg)
			want, tags[body] = append(want, body), tag
		}
		res := sendSync(t, p, msgs...)
		ids := strings.Split(res.OffsetMsgID, ",")
		require.Len(t, ids, batchSize, "one offsetMsgId per batch member: %q", res.OffsetMsgID)
		last := int64(-1)
		for _, s := range ids {
			id, err := primitive.UnmarshalMsgID([]byte(s))
			require.NoError(t, err, s)
			require.Equal(t, brokerAddr, fmt.Sprintf("%s:%d", id.Addr, id.Port))
			require.Greater(t, id.Offset, last, "batch members are stored one after another")
			last = id.Offset
		}
	}

	col, _ := startPushConsumer(t, ns, "modes-consumer", topic, consumer.MessageSelector{})
	requireExactlyOnce(t, expectation{"all modes", col, want, tags})
}
