package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// startCluster starts one broker; levels, if set, are its delay levels (all 1 s makes retries
// come back fast).
func startCluster(t testing.TB, levels string) *embedded.Cluster {
	return clienttest.StartCluster(t, 1, func(sc *store.MessageStoreConfig) {
		if levels != "" {
			sc.MessageDelayLevel = levels
		}
	})
}

func createTopic(t testing.TB, c *embedded.Cluster, topic string, queues int32) {
	t.Helper()
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: queues, WriteQueueNums: queues, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: protocol.SingleTag}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cl.InvokeSync(ctx, c.Brokers[0].BrokerAddr(), remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	require.NoError(t, err)
	require.NoError(t, resp.Err())
	c.Brokers[0].RegisterBrokerAll()
}

func startProducer(t testing.TB, c *embedded.Cluster) *producer.DefaultMQProducer {
	t.Helper()
	return mqtest.MustStartProducer(t, mqtest.ProducerConfig("pg_"+clienttest.Name(t), c.NamesrvAddr(), clienttest.InstanceName(t, "p")))
}

func send(t testing.TB, p *producer.DefaultMQProducer, topic, tag string, n int) {
	t.Helper()
	for i := range n {
		m := &primitive.Message{Topic: topic, Body: []byte(fmt.Sprintf("msg-%d", i))}
		if tag != "" {
			m.PutProperty(primitive.PropertyTags, tag)
		}
		res, err := p.Send(context.Background(), m)
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, res.SendStatus)
	}
}

// startTopicProducer starts a cluster with the default delay levels, creates the topic prefix
// + the test's name with the given number of queues, and starts a producer: the opening of
// every test that sends before it consumes.
func startTopicProducer(t testing.TB, prefix string, queues int32) (*embedded.Cluster, string, *producer.DefaultMQProducer) {
	t.Helper()
	c := startCluster(t, "")
	topic := prefix + clienttest.Name(t)
	createTopic(t, c, topic, queues)
	return c, topic, startProducer(t, c)
}

// startPushConsumer starts a push consumer of cfg subscribed to every tag of topic, with
// listener l; it is shut down at the test's cleanup.
func startPushConsumer(t testing.TB, cfg Config, topic string, l MessageListenerConcurrently) *DefaultMQPushConsumer {
	t.Helper()
	cons := NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	cons.RegisterMessageListener(l)
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	return cons
}

func consumerConfig(t testing.TB, c *embedded.Cluster, group string) Config {
	cfg := DefaultConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "c")
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 200 * time.Millisecond
	cfg.PersistConsumerOffsetInterval = 200 * time.Millisecond
	return cfg
}

// blockingAllocate is AllocateMessageQueueAveragely whose first Allocate call, which a
// rebalance pass makes after its GET_CONSUMER_LIST_BY_GROUP of that topic, closes entered and
// waits for release: it holds a pass in the middle of its topics.
type blockingAllocate struct {
	AllocateMessageQueueAveragely
	once             sync.Once
	entered, release chan struct{}
}

func (b *blockingAllocate) Allocate(group, cid string, mqAll []primitive.MessageQueue, cidAll []string) []primitive.MessageQueue {
	b.once.Do(func() {
		close(b.entered)
		<-b.release
	})
	return b.AllocateMessageQueueAveragely.Allocate(group, cid, mqAll, cidAll)
}

// onStep is a slog.Handler passing every record to next and closing seen when a step of label
// with attribute key=value passes.
type onStep struct {
	next              slog.Handler
	label, key, value string
	once              *sync.Once
	seen              chan struct{}
}

func (h onStep) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }
func (h onStep) WithAttrs(a []slog.Attr) slog.Handler           { h.next = h.next.WithAttrs(a); return h }
func (h onStep) WithGroup(g string) slog.Handler                { h.next = h.next.WithGroup(g); return h }
func (h onStep) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.label {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == h.key && a.Value.String() == h.value {
				h.once.Do(func() { close(h.seen) })
			}
			return true
		})
	}
	return h.next.Handle(ctx, r)
}

// leavingConsumer is what requireNoRebalanceAfterUnregister drives: a consumer started with
// the given strategy and logger (scheduled tasks off), its instance, its Shutdown, and the
// topics a rebalance pass of it goes through, in order.
type leavingConsumer struct {
	instance   *client.MQClientInstance
	shutdown   func()
	passTopics []string
}

// requireNoRebalanceAfterUnregister holds a rebalance pass of the group's only consumer in the
// middle of its topics (two topics, and the retry topic of a push consumer), shuts the consumer down meanwhile, and
// lets the pass go on once the broker has unregistered the group (or 200 ms after Shutdown
// began, if Shutdown waits for the pass). It requires that every rebalanceByTopic step of the
// consumer came before the broker's unregisterConsumer step and found the consumer a member
// (cidAll=1), and that the broker answered no request SYSTEM_ERROR (what it answers
// GET_CONSUMER_LIST_BY_GROUP for a group it has forgotten).
//
// start starts the consumer with opts (scheduled tasks off: the test plays the rebalance; the
// recording logger) and strategy, subscribed to topics.
func requireNoRebalanceAfterUnregister(t *testing.T, start func(c *embedded.Cluster, topics []string, opts client.Options, strategy AllocateMessageQueueStrategy) leavingConsumer) {
	rec := trace.NewRecorder()
	group := "cg_" + clienttest.Name(t)
	unregistered := make(chan struct{})
	lg := slog.New(onStep{next: rec, label: "ConsumerManager#unregisterConsumer", key: "group", value: group,
		once: new(sync.Once), seen: unregistered})
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Logger: lg,
		Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) { embedded.SmallFiles(sc) }})
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	topics := []string{"A" + clienttest.Name(t), "B" + clienttest.Name(t)}
	for _, topic := range topics {
		createTopic(t, c, topic, 1)
	}
	strategy := &blockingAllocate{entered: make(chan struct{}), release: make(chan struct{})}
	lc := start(c, topics, client.Options{DisableScheduledTasks: true, Logger: lg}, strategy)
	require.NotNil(t, c.Brokers[0].ConsumerManager().GetConsumerGroupInfo(group), "the start's heartbeat registered the group")

	passDone := make(chan struct{})
	go func() { lc.instance.DoRebalance(); close(passDone) }()
	select {
	case <-strategy.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the rebalance pass never allocated")
	}
	shutDone := make(chan struct{})
	go func() { lc.shutdown(); close(shutDone) }()
	select {
	case <-unregistered:
	case <-time.After(200 * time.Millisecond):
	}
	close(strategy.release)
	for _, ch := range []chan struct{}{passDone, shutDone} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("the pass or the Shutdown never returned")
		}
	}
	require.Nil(t, c.Brokers[0].ConsumerManager().GetConsumerGroupInfo(group), "Shutdown unregistered the group")

	var byTopic []string
	seenUnregister := false
	for _, s := range rec.Steps() {
		switch {
		case s.Label == "ConsumerManager#unregisterConsumer" && s.Attrs["group"] == group:
			seenUnregister = true
		case s.Label == "RebalanceImpl#rebalanceByTopic" && s.Component == "client":
			require.False(t, seenUnregister, "rebalanceByTopic %s ran after the broker unregistered the group", s.Attrs["topic"])
			require.Equal(t, "1", s.Attrs["cidAll"], "the broker listed the consumer for %s", s.Attrs["topic"])
			byTopic = append(byTopic, s.Attrs["topic"])
		}
	}
	require.True(t, seenUnregister)
	require.Equal(t, lc.passTopics, byTopic, "the pass held went through its topics")
	require.Zero(t, c.Brokers[0].Metrics().Responses(protocol.SystemError), "no request was answered SYSTEM_ERROR (no consumer for this group)")
}

// subscribeAll subscribes every topic with "*".
func subscribeAll(t testing.TB, subscribe func(topic, subExpression string) error, topics []string) {
	for _, topic := range topics {
		require.NoError(t, subscribe(topic, "*"))
	}
}
