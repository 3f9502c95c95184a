package interop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	ourprim "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// startOurProducer starts our producer of group with a unique instance name; shut down at cleanup.
func startOurProducer(t *testing.T, ns, group string) *producer.DefaultMQProducer {
	t.Helper()
	cfg := producer.DefaultConfig(group)
	cfg.NamesrvAddr = ns
	cfg.InstanceName = instance(t)
	return mqtest.MustStartProducer(t, cfg)
}

// startOurPushConsumer starts our push consumer of group on topic (subExpression), from the
// first offset, rebalancing every 500 ms, consuming with l, its config changed by tune; shut
// down at cleanup.
func startOurPushConsumer(t *testing.T, ns, group, topic, subExpression string, l consumer.MessageListenerConcurrently,
	tune ...func(*consumer.Config)) *consumer.DefaultMQPushConsumer {
	t.Helper()
	cfg := consumer.DefaultConfig(group)
	cfg.NamesrvAddr = ns
	cfg.InstanceName = instance(t)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 500 * time.Millisecond
	for _, f := range tune {
		f(&cfg)
	}
	cons := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, subExpression))
	cons.RegisterMessageListener(l)
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	return cons
}

// Our request/reply end to end: our producer's Request and RequestAsync, our push consumer
// answering with client.CreateReplyMessage through a second producer (SEND_REPLY_MESSAGE_V2).
// Request's first send looks the route up and sends a heartbeat (Java:
// DefaultMQProducerImpl#prepareSendRequest), so the broker knows the requester's channel
// before the reply comes: no wait for the periodic heartbeat. A request nobody answers ends
// with a *client.RequestTimeoutError after its timeout, and leaves no future behind.
func TestOurRequestReply(t *testing.T) {
	c := startCluster(t)
	ns := c.NamesrvAddr()
	const topic = "OurRequestTopic"
	createRoutedTopic(t, c, topic)

	requester := startOurProducer(t, ns, "our-requester")
	ctx := context.Background()
	// Nobody consumes yet: the request times out.
	_, err := requester.Request(ctx, &ourprim.Message{Topic: topic, Body: []byte("unanswered")}, 300*time.Millisecond)
	var te *client.RequestTimeoutError
	require.True(t, errors.As(err, &te), "got %v", err)
	require.Equal(t, "send request message to OurRequestTopic OK, but wait reply message timeout 300 ms", err.Error())
	require.Zero(t, client.Requests().Len())

	replier := startOurProducer(t, ns, "our-replier")
	var replied atomic.Int64
	startOurPushConsumer(t, ns, "our-rpc-consumer", topic, "*", func(msgs []*ourprim.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		for _, m := range msgs {
			reply, err := client.CreateReplyMessage(m, append([]byte("reply to "), m.Body...))
			if err != nil {
				return consumer.ReconsumeLater
			}
			if _, err := replier.Send(context.Background(), reply); err != nil {
				continue // the unanswered request's requester is gone: the broker says so
			}
			replied.Add(1)
		}
		return consumer.ConsumeSuccess
	})

	var reply *ourprim.Message
	require.Eventually(t, func() bool { // the first request may come before the rebalance
		reply, err = requester.Request(ctx, &ourprim.Message{Topic: topic, Body: []byte("sync")}, 2*time.Second)
		return err == nil
	}, consumeTimeout, 10*time.Millisecond, "no reply: %v", err)
	require.Equal(t, "reply to sync", string(reply.Body))
	require.Equal(t, protocol.GetReplyTopic(c.Brokers[0].BrokerConfig().BrokerClusterName), reply.Topic)
	require.NotEmpty(t, reply.GetProperty(ourprim.PropertyPushReplyTime))

	got := make(chan string, 1)
	require.NoError(t, requester.RequestAsync(ctx, &ourprim.Message{Topic: topic, Body: []byte("async")}, 10*time.Second,
		func(m *ourprim.Message, err error) {
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- string(m.Body)
		}))
	select {
	case s := <-got:
		require.Equal(t, "reply to async", s)
	case <-time.After(15 * time.Second):
		t.Fatal("async reply never arrived")
	}
	require.Zero(t, client.Requests().Len())
}

// CreateReplyMessage refuses a request without CLUSTER (not stored by a broker) and nil.
func TestCreateReplyMessageBadInput(t *testing.T) {
	_, err := client.CreateReplyMessage(nil, nil)
	require.Error(t, err)
	_, err = client.CreateReplyMessage(&ourprim.MessageExt{}, nil)
	require.EqualError(t, err, "create reply message fail, requestMessage error, property[CLUSTER] is null")
}
