package main

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func queues(n int) []primitive.MessageQueue {
	out := make([]primitive.MessageQueue, n)
	for i := range out {
		out[i] = primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: int32(i)}
	}
	return out
}

func ids(mqs []primitive.MessageQueue) []int32 {
	out := []int32{}
	for _, q := range mqs {
		out = append(out, q.QueueID)
	}
	return out
}

// allocateAmongThree answers the queue ids strategy gives each of the consumers c1, c2 and c3
// of 8 queues, in that order.
func allocateAmongThree(strategy consumer.AllocateMessageQueueStrategy) [][]int32 {
	cids := []string{"c1", "c2", "c3"}
	var got [][]int32
	for _, cid := range cids {
		got = append(got, ids(strategy.Allocate("g", cid, queues(8), cids)))
	}
	return got
}

// TestExercise1_AveragelySplitsEightQueuesThreeThreeTwo asks: how does
// AllocateMessageQueueAveragely split 8 queues among 3 consumers? It proves each consumer gets
// a contiguous block and the first 8 mod 3 = 2 consumers one queue more: 0-2, 3-5, 6-7.
func TestExercise1_AveragelySplitsEightQueuesThreeThreeTwo(t *testing.T) {
	require.Equal(t, [][]int32{{0, 1, 2}, {3, 4, 5}, {6, 7}}, allocateAmongThree(consumer.AllocateMessageQueueAveragely{}))
}

// TestExercise2_ByCircleDealsQueuesLikeCards asks: what does AllocateMessageQueueAveragelyByCircle
// give the same 3 consumers? It proves consumer i gets queues i, i+3, i+6: 0,3,6 / 1,4,7 / 2,5.
func TestExercise2_ByCircleDealsQueuesLikeCards(t *testing.T) {
	require.Equal(t, [][]int32{{0, 3, 6}, {1, 4, 7}, {2, 5}}, allocateAmongThree(consumer.AllocateMessageQueueAveragelyByCircle{}))
}

// TestExercise3_CommittedOffsetIsTheSmallestUnconsumed asks: when offsets 1 and 2 finish before
// offset 0, what offset may the consumer commit? It proves ProcessQueue#removeMessage answers
// the smallest offset still held (0) until 0 itself is done, then queueOffsetMax+1 (3): a
// restart never skips a message still being consumed.
func TestExercise3_CommittedOffsetIsTheSmallestUnconsumed(t *testing.T) {
	pq := consumer.NewProcessQueue(epoch)
	msgs := make([]*primitive.MessageExt, 3)
	for i := range msgs {
		msgs[i] = &primitive.MessageExt{QueueOffset: int64(i), Message: primitive.Message{Body: []byte("x")}}
	}
	pq.PutMessage(msgs)
	require.Equal(t, int64(0), pq.RemoveMessage(msgs[2:3]))
	require.Equal(t, int64(0), pq.RemoveMessage(msgs[1:2]))
	require.Equal(t, int64(3), pq.RemoveMessage(msgs[0:1]))
}

// exercise runs the chapter's cluster for one test with a recorder on every component.
func startExercise(t *testing.T, levels string) (*scenario, *trace.Recorder) {
	t.Helper()
	rec := trace.NewRecorder()
	s, err := newScenario(t.TempDir(), config{MessageDelayLevel: levels}, slog.New(rec), clock.NewManual(epoch))
	require.NoError(t, err)
	t.Cleanup(s.shutdown)
	require.NoError(t, s.produce(4))
	return s, rec
}

var seq atomic.Int64

func count(rec *trace.Recorder, label string) int {
	n := 0
	for _, l := range rec.Labels() {
		if l == label {
			n++
		}
	}
	return n
}

// TestExercise4_AckIndexSplitsABatch asks: a listener gets a batch of 2 and answers
// CONSUME_SUCCESS with ackIndex 0 — what happens to the second message? It proves
// processConsumeResult sends exactly the messages after ackIndex back to the broker and still
// moves the offset past the whole batch (the sent-back copy lives on in %RETRY%).
func TestExercise4_AckIndexSplitsABatch(t *testing.T) {
	s, rec := startExercise(t, "")
	cfg := s.consumerConfig(clusterGroup, fmt.Sprintf("ex4-%d", seq.Add(1)))
	cfg.Options.Logger = s.logger
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.ConsumeMessageBatchMaxSize = 2
	var batch []int
	c, err := s.startPushConsumer(cfg, topicName, "*", func(msgs []*primitive.MessageExt, ctx *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		batch = append(batch, len(msgs))
		ctx.AckIndex = 0
		return consumer.ConsumeSuccess
	})
	require.NoError(t, err)
	c.Instance().DoRebalance()
	mq := primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: 0}
	require.True(t, c.PullMessageService().DoPullQueue(mq))
	require.Equal(t, []int{2}, batch)
	require.Equal(t, 1, count(rec, "ConsumeMessageConcurrentlyService#sendMessageBack"))
	require.Equal(t, int64(2), c.OffsetStore().ReadOffset(mq, consumer.ReadFromMemory))
}

// TestExercise5_DelayLevelThreeWaitsTenSeconds asks: a message sent back with delay level 3
// (10 s) — when does it reach %RETRY%group? It proves ScheduleMessageService delivers nothing
// 9 s after the send-back and delivers it once the store's clock reaches 10 s.
func TestExercise5_DelayLevelThreeWaitsTenSeconds(t *testing.T) {
	s, rec := startExercise(t, "")
	var mu sync.Mutex
	c, err := s.startConsumer(clusterGroup, protocol.Clustering, func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		if msgs[0].ReconsumeTimes == 0 && msgs[0].QueueID == 0 && msgs[0].QueueOffset == 0 {
			return consumer.ReconsumeLater
		}
		return consumer.ConsumeSuccess
	})
	require.NoError(t, err)
	c.Instance().DoRebalance()
	c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: 0})
	st := s.Master().MessageStore()
	st.DoReput()
	s.clk.Advance(9 * time.Second)
	require.Zero(t, s.Master().ScheduleMessageService().DoDeliver())
	s.clk.Advance(time.Second)
	require.Equal(t, 1, s.Master().ScheduleMessageService().DoDeliver())
	require.Equal(t, 1, count(rec, "ScheduleMessageService#deliverMessage"))
}

// TestExercise6_BroadcastingConsumersEachGetEveryMessage asks: two BROADCASTING consumers of one
// group — who gets what? It proves each takes every queue (no allocation) and so each receives
// all 4 messages, keeping its own offsets in its own file.
func TestExercise6_BroadcastingConsumersEachGetEveryMessage(t *testing.T) {
	s, _ := startExercise(t, "")
	got := [2]int{}
	var cs []*consumer.DefaultMQPushConsumer
	for i := range 2 {
		cfg := s.consumerConfig(broadcastGroup, fmt.Sprintf("ex6-%d", seq.Add(1)))
		cfg.MessageModel = protocol.Broadcasting
		cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
		cfg.OffsetStoreDir = s.offsetDir
		c, err := s.startPushConsumer(cfg, topicName, "*", func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
			got[i] += len(msgs)
			return consumer.ConsumeSuccess
		})
		require.NoError(t, err)
		cs = append(cs, c)
	}
	for _, c := range cs {
		c.Instance().DoRebalance()
		for q := int32(0); q < 2; q++ {
			require.True(t, c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: q}))
		}
		c.Instance().RunPersistConsumerOffsetTask()
	}
	require.Equal(t, [2]int{4, 4}, got)
	require.NotEqual(t, cs[0].Instance().ClientID(), cs[1].Instance().ClientID())
}

// TestExercise7_SixteenRetriesThenTheDLQ asks: a listener that always answers RECONSUME_LATER —
// how often does the message come back, and where does it end? It proves the broker redelivers
// it through %RETRY%group 16 times (reconsumeTimes 1…16, delay level 3 + reconsumeTimes, here
// shortened to 1 s each) and, when the 16th retry fails too (stored reconsumeTimes 16 ≥
// maxReconsumeTimes 16), writes it to %DLQ%group queue 0 with reconsumeTimes 17, the original
// topic in RETRY_TOPIC and no delay — and nothing more reaches the retry topic.
// Java: SendMessageProcessor#asyncConsumerSendMsgBack, ConsumeMessageConcurrentlyService#processConsumeResult.
func TestExercise7_SixteenRetriesThenTheDLQ(t *testing.T) {
	s, _ := startExercise(t, strings.TrimSpace(strings.Repeat("1s ", 18)))
	var mu sync.Mutex
	var seen []int32 // reconsumeTimes of each delivery of the poisoned message
	c, err := s.startConsumer(clusterGroup, protocol.Clustering, func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			if string(m.Body) == "Hello RocketMQ 1" {
				seen = append(seen, m.ReconsumeTimes)
				return consumer.ReconsumeLater
			}
		}
		return consumer.ConsumeSuccess
	})
	require.NoError(t, err)
	inst := c.Instance()
	inst.DoRebalance()
	for q := int32(0); q < 2; q++ {
		require.True(t, c.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topicName, BrokerName: "broker-a", QueueID: q}))
	}
	retry := primitive.MessageQueue{Topic: protocol.GetRetryTopic(clusterGroup), BrokerName: "broker-a", QueueID: 0}
	for i := range 16 {
		require.NoError(t, s.deliverDelayed(time.Second), "retry %d", i+1)
		require.True(t, c.PullMessageService().DoPullQueue(retry), "retry %d", i+1)
	}
	st := s.Master().MessageStore()
	st.DoReput()

	want := []int32{0}
	for i := int32(1); i <= 16; i++ {
		want = append(want, i)
	}
	mu.Lock()
	require.Equal(t, want, seen)
	mu.Unlock()

	dlq := protocol.GetDLQTopic(clusterGroup)
	require.Equal(t, store.QueueOffset(1), st.GetMaxOffsetInQueue(dlq, 0), "one dead letter")
	u, ok := st.ReadConsumeQueueUnit(dlq, 0, 0)
	require.True(t, ok)
	m, err := st.LookMessageByOffset(u.CommitLogOffset)
	require.NoError(t, err)
	require.Equal(t, "Hello RocketMQ 1", string(m.Body))
	require.Equal(t, int32(17), m.ReconsumeTimes)
	require.Equal(t, topicName, m.Properties[primitive.PropertyRetryTopic])
	require.Equal(t, "0", m.Properties[primitive.PropertyDelayTimeLevel])
	// Nothing is parked for a 17th retry.
	require.Zero(t, s.Master().ScheduleMessageService().DoDeliver())
}

// TestExercise8_ThreeLiveConsumersShareEightQueues asks: three consumers of one group, each in
// its own client instance, subscribe to a topic with 8 queues — what does each one pull? It
// proves each rebalance asks the broker for the group's members (GET_CONSUMER_LIST_BY_GROUP,
// the three clientIds registered by their heartbeats), sorts them, and the averaging strategy
// gives 3, 3 and 2 queues: disjoint, covering all 8, in contiguous blocks.
// Java: RebalanceImpl#rebalanceByTopic, AllocateMessageQueueAveragely.
func TestExercise8_ThreeLiveConsumersShareEightQueues(t *testing.T) {
	s, _ := startExercise(t, "")
	const topic, group = "TopicEight", "ch05_ex8_group"
	require.NoError(t, mqtest.CreateRoutedTopics(s.Client, s.Master().BrokerAddr(), s.Cluster.NamesrvAddr(), mqtest.Topic{Name: topic, Queues: 8}))
	var cs []*consumer.DefaultMQPushConsumer
	for i := range 3 {
		c, err := s.startPushConsumer(s.consumerConfig(group, fmt.Sprintf("ex8-%d", i)), topic, "*",
			func([]*primitive.MessageExt, *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
				return consumer.ConsumeSuccess
			})
		require.NoError(t, err)
		cs = append(cs, c)
	}
	ids0, err := cs[0].Instance().FindConsumerIDList(topic, group)
	require.NoError(t, err)
	require.Len(t, ids0, 3, "every heartbeat registered its clientId")

	got := map[string][]int32{}
	owner := map[int32]string{}
	for _, c := range cs {
		c.Instance().DoRebalance()
		mqs, _ := c.Rebalance().ProcessQueues()
		var qs []int32
		for _, mq := range mqs {
			if mq.Topic == topic {
				qs = append(qs, mq.QueueID)
				require.NotContains(t, owner, mq.QueueID, "queue %d assigned twice", mq.QueueID)
				owner[mq.QueueID] = c.Instance().ClientID()
			}
		}
		slices.Sort(qs)
		got[c.Instance().ClientID()] = qs
	}
	require.Len(t, owner, 8, "every queue has an owner")
	cids := make([]string, 0, 3)
	for cid := range got {
		cids = append(cids, cid)
	}
	slices.Sort(cids)
	require.Equal(t, [][]int32{{0, 1, 2}, {3, 4, 5}, {6, 7}}, [][]int32{got[cids[0]], got[cids[1]], got[cids[2]]})
}
