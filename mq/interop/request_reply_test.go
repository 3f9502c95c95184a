package interop

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	mqprimitive "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestOfficialRequestReply runs the shape of the official client's rpc examples
// (examples/producer/rpc/{sync,async}, examples/consumer/rpc) against our broker: a consumer
// answers each request with consumer.CreateReplyMessage sent by a second producer
// (SEND_REPLY_MESSAGE, 324); the broker pushes the reply to the requester
// (PUSH_REPLY_MESSAGE_TO_CLIENT, 326), whose Request returns it (sync) or whose callback gets
// it (async), matched by CORRELATION_ID. Java: ReplyMessageProcessor#pushReplyMessage.
func TestOfficialRequestReply(t *testing.T) {
	c := startCluster(t)
	ns := c.NamesrvAddr()
	const topic = "RequestTopic"
	createRoutedTopic(t, c, topic)
	requester := newProducer(t, ns, "rpc-requester")
	// The official producer's first heartbeat goes out 1 s after Start, to the brokers it knows
	// by then, and the next 30 s later; the broker finds the requester's channel only once a
	// heartbeat registered it (the rpc example's consumer sleeps for this reason). A send right
	// after Start makes the first heartbeat reach our broker.
	sendSync(t, requester, &primitive.Message{Topic: topic, Body: []byte("warm-up")})
	require.Eventually(t, func() bool { return c.Brokers[0].ProducerManager().GroupChannelCount("rpc-requester") == 1 },
		45*time.Second, 20*time.Millisecond, "the requester never registered")
	replier := newProducer(t, ns, "rpc-replier")
	var seen atomic.Int64
	newPushConsumer(t, ns, "rpc-consumer", topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
		func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, m := range msgs {
				seen.Add(1)
				if consumer.GetReplyToClient(m) == "" {
					continue // the warm-up message is no request
				}
				reply, err := consumer.CreateReplyMessage(m, nil)
				if err != nil {
					return consumer.ConsumeRetryLater, err
				}
				// The client's CreateReplyMessage leaves the body empty; the example's
				// content goes in here so the test can see it arrive.
				reply.Body = append([]byte("reply to "), m.Body...)
				if _, err := replier.SendSync(context.Background(), reply); err != nil {
					return consumer.ConsumeRetryLater, err
				}
			}
			return consumer.ConsumeSuccess, nil
		})
	// The warm-up message shows the consumer is subscribed and rebalanced before the first request.
	require.Eventually(t, func() bool { return seen.Load() >= 1 }, consumeTimeout, 20*time.Millisecond)

	resp, err := requester.Request(context.Background(), 10*time.Second, &primitive.Message{Topic: topic, Body: []byte("sync")})
	require.NoError(t, err)
	require.Equal(t, "reply to sync", string(resp.Body))
	require.Equal(t, c.Brokers[0].BrokerConfig().BrokerClusterName+"_REPLY_TOPIC", resp.Topic)

	got := make(chan string, 1)
	err = requester.RequestAsync(context.Background(), 10*time.Second, func(_ context.Context, m *primitive.Message, err error) {
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(m.Body)
	}, &primitive.Message{Topic: topic, Body: []byte("async")})
	require.NoError(t, err)
	select {
	case s := <-got:
		require.Equal(t, "reply to async", s)
	case <-time.After(15 * time.Second):
		t.Fatal("async reply never arrived")
	}
}

// createRoutedTopic creates topic (4 queues, read and write) on the cluster's first broker and
// waits until the name server routes it.
func createRoutedTopic(t *testing.T, c *embedded.Cluster, topic string) {
	t.Helper()
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(admin.Shutdown)
	require.NoError(t, mqtest.CreateTopic(admin, c.Brokers[0].BrokerAddr(), topic, 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, mqtest.WaitRouted(admin, c.NamesrvAddr(), topic, 1))
}

// TestReplyBadInput sends SEND_REPLY_MESSAGE by hand: a reply without REPLY_TO_CLIENT, and one
// naming a client the broker does not know, are answered SYSTEM_ERROR with a remark saying
// which, and the broker goes on serving.
func TestReplyBadInput(t *testing.T) {
	c := startCluster(t)
	conn := dialRaw(t, c.Brokers[0].BrokerAddr())
	replyTopic := c.Brokers[0].BrokerConfig().BrokerClusterName + "_REPLY_TOPIC"
	send := func(props map[string]string, code int32) *remoting.RemotingCommand {
		h := protocol.SendMessageRequestHeader{ProducerGroup: "g", Topic: replyTopic, DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 4, QueueID: 0, BornTimestamp: 1, Properties: mqprimitive.MarshalProperties(props)}
		ext := protocol.EncodeHeader(&h)
		if code == protocol.SendReplyMessageV2 {
			ext = h.EncodeV2()
		}
		return conn.invoke(t, remoting.NewRequest(code, ext, []byte("r")))
	}
	for _, code := range []int32{protocol.SendReplyMessage, protocol.SendReplyMessageV2} {
		resp := send(map[string]string{"CORRELATION_ID": "x", "MSG_TYPE": "reply"}, code)
		require.Equal(t, int32(protocol.SystemError), resp.Code)
		require.Equal(t, "REPLY_TO_CLIENT is null, can not reply message", resp.Remark)

		resp = send(map[string]string{"CORRELATION_ID": "x", "REPLY_TO_CLIENT": "10.0.0.9@nobody"}, code)
		require.Equal(t, int32(protocol.SystemError), resp.Code)
		require.Equal(t, "push reply message fail, channel of <10.0.0.9@nobody> not found.", resp.Remark)
	}
	resp := conn.invoke(t, remoting.NewRequest(protocol.SendReplyMessage, map[string]string{"topic": replyTopic}, nil))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "producerGroup")
}
