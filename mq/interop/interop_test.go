package interop

import (
	"context"
	"fmt"
	"strconv"
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
