package consumer

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
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
	cfg := producer.DefaultConfig("pg_" + clienttest.Name(t))
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "p")
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
