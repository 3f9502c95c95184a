package interop

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Our push consumer receives what the official Go producer sends: every TagA message exactly
// once (TagB filtered out by the broker's tag hash and the client's tag check), bodies the
// official client compressed (≥ 4 KiB) come back decompressed, keys and tags intact.
// Java behaviour pinned: DefaultMQPushConsumer with subscription "TagA", CONSUME_FROM_FIRST_OFFSET.
func TestOurConsumerReceivesOfficialProducer(t *testing.T) {
	c := startCluster(t)
	topic := "InteropConsume_" + fmt.Sprint(instanceSeq.Add(1))
	p := newProducer(t, c.NamesrvAddr(), "interop_consume_pg")
	want := map[string]bool{}
	for i := range 20 {
		body := fmt.Sprintf("msg-%02d", i)
		if i == 4 {
			body += strings.Repeat("x", 5000) // compressed by the official producer
		}
		m := primitive.NewMessage(topic, []byte(body))
		tag := []string{"TagA", "TagB"}[i%2]
		m.WithTag(tag)
		m.WithKeys([]string{fmt.Sprintf("K%02d", i)})
		sendSync(t, p, m)
		if tag == "TagA" {
			want[body] = true
		}
	}

	var mu sync.Mutex
	got := map[string]int{}
	bad := 0
	startOurPushConsumer(t, c.NamesrvAddr(), "interop_our_consumer", topic, "TagA", func(msgs []*ourprim.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			if m.Tags() != "TagA" || m.Keys() == "" {
				bad++
			}
			got[string(m.Body)]++
		}
		return consumer.ConsumeSuccess
	})
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == len(want) }, 30*time.Second, 20*time.Millisecond)
	time.Sleep(quietWindow)
	mu.Lock()
	defer mu.Unlock()
	require.Zero(t, bad, "messages without TagA or keys")
	for b, n := range got {
		require.True(t, want[b], "unexpected body %.10q", b)
		require.Equal(t, 1, n, "body %.10q delivered %d times", b, n)
	}
}
