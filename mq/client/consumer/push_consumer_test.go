package consumer

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// A clustering push consumer with the instance's background services receives every message
// once, and its committed offsets reach the broker (RemoteBrokerOffsetStore#persistAll sends
// UPDATE_CONSUMER_OFFSET for every held queue).
func TestPushConsumerReceivesAllAndCommits(t *testing.T) {
	c := startCluster(t, "")
	topic := "T_" + safeName(t)
	createTopic(t, c, topic, 4)
	p := startProducer(t, c)
	send(t, p, topic, "TagA", 40)

	group := "cg_" + safeName(t)
	cons := NewDefaultMQPushConsumer(consumerConfig(t, c, group))
	require.NoError(t, cons.Subscribe(topic, "*"))
	var mu sync.Mutex
	got := map[string]int{}
	cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			got[string(m.Body)]++
		}
		return ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 40 }, 20*time.Second, 10*time.Millisecond)
	// committed: the sum over the 4 queues of the broker's offsets is 40.
	om := c.Brokers[0].ConsumerOffsetManager()
	require.Eventually(t, func() bool {
		cons.Instance().PersistAllConsumerOffset() // the scheduled task's first pass is 10 s away
		var sum int64
		for q := int32(0); q < 4; q++ {
			if v := om.QueryOffset(group, topic, q); v > 0 {
				sum += int64(v)
			}
		}
		return sum == 40
	}, 10*time.Second, 20*time.Millisecond)
	mu.Lock()
	for _, n := range got {
		require.Equal(t, 1, n)
	}
	mu.Unlock()
	_ = protocol.Clustering
}
