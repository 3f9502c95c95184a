package interop

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	ourconsumer "github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// sendBodies sends n messages "<prefix>-NN" to topic with the official producer, tags
// alternating TagA, TagB, and returns the bodies by tag.
func sendBodies(t *testing.T, namesrv, topic, prefix string, n int) map[string][]string {
	t.Helper()
	p := newProducer(t, namesrv, prefix+"_pg")
	byTag := map[string][]string{}
	for i := range n {
		body := fmt.Sprintf("%s-%02d", prefix, i)
		tag := []string{"TagA", "TagB"}[i%2]
		m := primitive.NewMessage(topic, []byte(body))
		m.WithTag(tag)
		sendSync(t, p, m)
		byTag[tag] = append(byTag[tag], body)
	}
	return byTag
}

// The official Go client's pull consumer (NewPullConsumer, Poll, ACK) reads through our broker
// what the official producer sent: every message exactly once, and after Shutdown the broker
// holds the group's offsets at each queue's end. Java behaviour pinned: DefaultLitePullConsumer
// (subscribe mode) against PULL_MESSAGE with the subscription flag, QUERY/UPDATE_CONSUMER_OFFSET.
func TestOfficialPullConsumerPollAndAck(t *testing.T) {
	c := startCluster(t)
	topic := "InteropLitePull_" + fmt.Sprint(instanceSeq.Add(1))
	byTag := sendBodies(t, c.NamesrvAddr(), topic, "official", 12)
	want := append(byTag["TagA"], byTag["TagB"]...)
	group := "interop_official_pull"

	pc, err := consumer.NewPullConsumer(consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(group), consumer.WithInstance(instance(t)),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(topic, consumer.MessageSelector{}))
	require.NoError(t, pc.Start())
	shut := false
	t.Cleanup(func() {
		if !shut {
			_ = pc.Shutdown()
		}
	})

	got := map[string]int{}
	poll := func(d time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), d+time.Second)
		defer cancel()
		cr, err := pc.Poll(ctx, d)
		if errors.Is(err, consumer.ErrNoNewMsg) {
			return
		}
		require.NoError(t, err)
		for _, m := range cr.GetMsgList() {
			got[string(m.Body)]++
		}
		pc.ACK(ctx, cr, consumer.ConsumeSuccess)
	}
	deadline := time.Now().Add(consumeTimeout)
	for len(got) < len(want) && time.Now().Before(deadline) {
		poll(time.Second)
	}
	for end := time.Now().Add(quietWindow); time.Now().Before(end); {
		poll(500 * time.Millisecond)
	}
	require.Len(t, got, len(want))
	for _, b := range want {
		require.Equal(t, 1, got[b], "body %s delivered %d times", b, got[b])
	}

	require.NoError(t, pc.Shutdown())
	shut = true
	om := c.Brokers[0].ConsumerOffsetManager()
	st := c.Brokers[0].MessageStore()
	require.Eventually(t, func() bool {
		var sum int64
		for q, v := range om.QueryOffsets(group, topic) {
			if v != st.GetMaxOffsetInQueue(topic, q) {
				return false
			}
			sum += int64(v)
		}
		return sum == int64(len(want))
	}, 10*time.Second, 20*time.Millisecond, "the committed offsets reach each queue's end")
}

// Our lite pull consumer reads what the official producer sends: subscribed to TagA, it polls
// every TagA message exactly once (TagB filtered), in queue-offset order per queue; CommitSync and
// Shutdown leave each queue's offset on the broker just after the last message polled of it.
func TestOurLitePullConsumerReadsOfficialProducer(t *testing.T) {
	c := startCluster(t)
	topic := "InteropOurLitePull_" + fmt.Sprint(instanceSeq.Add(1))
	byTag := sendBodies(t, c.NamesrvAddr(), topic, "ours", 16)
	group := "interop_our_lite_pull"

	cfg := ourconsumer.DefaultLitePullConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = instance(t)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 500 * time.Millisecond
	cfg.BrokerSuspendMaxTime = time.Second
	cfg.ConsumerTimeoutWhenSuspend = 5 * time.Second
	cons := ourconsumer.NewDefaultLitePullConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "TagA"))
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)

	got := map[string]int{}
	last := map[int32]int64{}
	poll := func(d time.Duration) {
		msgs, err := cons.Poll(d)
		require.NoError(t, err)
		for _, m := range msgs {
			require.Equal(t, "TagA", m.Tags())
			if prev, ok := last[m.QueueID]; ok {
				require.Greater(t, m.QueueOffset, prev, "queue %d in offset order", m.QueueID)
			}
			last[m.QueueID] = m.QueueOffset
			got[string(m.Body)]++
		}
	}
	deadline := time.Now().Add(consumeTimeout)
	for len(got) < len(byTag["TagA"]) && time.Now().Before(deadline) {
		poll(500 * time.Millisecond)
	}
	for end := time.Now().Add(quietWindow); time.Now().Before(end); {
		poll(500 * time.Millisecond)
	}
	require.Len(t, got, len(byTag["TagA"]))
	for _, b := range byTag["TagA"] {
		require.Equal(t, 1, got[b], "body %s delivered %d times", b, got[b])
	}

	require.NoError(t, cons.CommitSync())
	cons.Shutdown()
	om := c.Brokers[0].ConsumerOffsetManager()
	require.Len(t, cons.Assignment(), 4, "the only member held every queue")
	for _, mq := range cons.Assignment() {
		require.Eventually(t, func() bool {
			return int64(om.QueryOffset(group, topic, mq.QueueID)) == lastTagAOffset(last, mq)
		}, 10*time.Second, 20*time.Millisecond, "queue %d", mq.QueueID)
	}
}

// lastTagAOffset is the offset after the last message polled of mq (0 if none).
func lastTagAOffset(last map[int32]int64, mq ourprim.MessageQueue) int64 {
	if v, ok := last[mq.QueueID]; ok {
		return v + 1
	}
	return 0
}
