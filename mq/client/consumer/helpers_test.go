package consumer

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

var instanceSeq atomic.Int64

// startCluster starts one broker whose delay levels are all 1 s, so retries come back fast.
func startCluster(t testing.TB, levels string) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Brokers: 1,
		Customize: func(_ int, bc *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			bc.WaitTimeMillsInSendQueue = 10 * time.Second
			sc.MappedFileSizeCommitLog = 1 << 20
			sc.MappedFileSizeConsumeQueue = 1000 * 20
			if levels != "" {
				sc.MessageDelayLevel = levels
			}
		}})
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	return c
}

func safeName(t testing.TB) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, t.Name())
}

func createTopic(t testing.TB, c *embedded.Cluster, topic string, queues int32) {
	t.Helper()
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: queues, WriteQueueNums: queues, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: protocol.SingleTag}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cl.InvokeSync(ctx, c.Brokers[0].BrokerAddr(), remoting.NewRequest(protocol.UpdateAndCreateTopic, h.Encode(), nil))
	require.NoError(t, err)
	require.NoError(t, resp.Err())
	c.Brokers[0].RegisterBrokerAll()
}

func startProducer(t testing.TB, c *embedded.Cluster) *producer.DefaultMQProducer {
	t.Helper()
	cfg := producer.DefaultConfig("pg_" + safeName(t))
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = fmt.Sprintf("p-%s-%d", t.Name(), instanceSeq.Add(1))
	cfg.Options.DisableScheduledTasks = true
	p := producer.NewDefaultMQProducer(cfg)
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	return p
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
	topic := prefix + safeName(t)
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
	cfg.InstanceName = fmt.Sprintf("c-%s-%d", t.Name(), instanceSeq.Add(1))
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 200 * time.Millisecond
	cfg.PersistConsumerOffsetInterval = 200 * time.Millisecond
	return cfg
}
