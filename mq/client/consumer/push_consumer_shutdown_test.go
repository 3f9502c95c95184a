package consumer

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestShutdownPersistsThenUnregistersFromMasterAndSlave pins DefaultMQPushConsumerImpl#shutdown
// with MQClientInstance#unregisterClient: a consumer's heartbeats reach the master and the
// slave of its broker (both register the group), and when Shutdown returns both have forgotten
// it (UNREGISTER_CLIENT went to every broker address, synchronously), and the master holds the
// offsets it consumed up to, which only Shutdown's persist sent (no scheduled task runs, and
// the only pulls carried nothing to commit).
func TestShutdownPersistsThenUnregistersFromMasterAndSlave(t *testing.T) {
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Slaves: true,
		Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) { embedded.SmallFiles(sc) }})
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	topic := "Shutdown" + clienttest.Name(t)
	createTopic(t, c, topic, 2)
	p := startProducer(t, c)
	send(t, p, topic, "", 6)
	master, slave := c.Brokers[0], c.Slaves[0]

	group := "cg_" + clienttest.Name(t)
	cfg := consumerConfig(t, c, group)
	cfg.Options.DisableScheduledTasks = true // the test plays the rebalance and the pulls
	var got atomic.Int32
	cons := NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		got.Add(int32(len(msgs)))
		return ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	cons.Instance().DoRebalance()
	for _, q := range []int32{0, 1} { // first pulls: they carry no offset to commit
		require.True(t, cons.PullMessageService().DoPullQueue(primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: q}))
	}
	require.Equal(t, int32(6), got.Load())
	require.Eventually(t, func() bool { // the slave is in the route once it registered: the next heartbeat reaches it
		cons.Instance().UpdateTopicRouteInfoFromNameServer(topic)
		cons.Instance().SendHeartbeatToAllBrokerWithLock()
		return slave.ConsumerManager().GetConsumerGroupInfo(group) != nil
	}, 10*time.Second, 50*time.Millisecond, "the consumer heartbeats to the slave too")
	require.NotNil(t, master.ConsumerManager().GetConsumerGroupInfo(group))
	require.Equal(t, int64(-1), int64(master.ConsumerOffsetManager().QueryOffset(group, topic, 0)), "nothing committed yet")

	cons.Shutdown()
	require.Nil(t, master.ConsumerManager().GetConsumerGroupInfo(group), "the master forgot the group")
	require.Nil(t, slave.ConsumerManager().GetConsumerGroupInfo(group), "the slave forgot the group")
	require.Eventually(t, func() bool {
		om := master.ConsumerOffsetManager()
		return om.QueryOffset(group, topic, 0)+om.QueryOffset(group, topic, 1) == 6
	}, 5*time.Second, 10*time.Millisecond, "the offsets consumed up to reached the master")
}

// TestShutdownMidConsumeCommitsWhatTheListenerAcknowledged: a consumer shut down while its
// listener is still consuming a message — does that message's acknowledgement get lost, so the
// group's next member consumes it again? The assertion proves that Shutdown waits for the
// consume requests in flight (it returns only after the listener did), that the offset it
// persists covers every message the listener acknowledged, and that the next member of the
// group starts after them: it gets only a message sent later, once. (Java's shutdown, with
// its default awaitTerminationMillisWhenShutdown of 0, does not wait: the message in flight is
// not committed and is consumed again.)
func TestShutdownMidConsumeCommitsWhatTheListenerAcknowledged(t *testing.T) {
	c, topic, p := startTopicProducer(t, "MidConsume", 1)
	send(t, p, topic, "", 3)
	group := "cg_" + clienttest.Name(t)

	entered, release := make(chan struct{}), make(chan struct{})
	var consumedA atomic.Int32
	cfgA := consumerConfig(t, c, group)
	cfgA.PersistConsumerOffsetInterval = time.Hour // only Shutdown's persist commits
	a := startPushConsumer(t, cfgA, topic, func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		for _, m := range msgs {
			if string(m.Body) == "msg-1" {
				close(entered)
				<-release
			}
			consumedA.Add(1)
		}
		return ConsumeSuccess
	})
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("A never consumed msg-1")
	}
	// The precondition: msg-1 is the only message in flight. msg-2 may still be on its way to the
	// listener (the broker's reput had not indexed it at A's first pull, or the pull callback
	// had not submitted its batch yet): a Shutdown begun before then rightly refuses it.
	require.Eventually(t, func() bool { return consumedA.Load() == 2 }, 10*time.Second, 10*time.Millisecond,
		"A consumed msg-0 and msg-2 while msg-1 is in its listener")
	done := make(chan struct{})
	go func() { a.Shutdown(); close(done) }()
	require.Never(t, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, 300*time.Millisecond, 10*time.Millisecond, "Shutdown returned while the listener was still consuming")
	close(release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return after the listener did")
	}
	require.Equal(t, int32(3), consumedA.Load())
	require.Eventually(t, func() bool {
		return c.Brokers[0].ConsumerOffsetManager().QueryOffset(group, topic, 0) == 3
	}, 5*time.Second, 10*time.Millisecond, "the persisted offset covers every acknowledged message")

	var gotB []string
	var mu sync.Mutex
	cfgB := consumerConfig(t, c, group)
	cfgB.InstanceName = clienttest.InstanceName(t, "b")
	startPushConsumer(t, cfgB, topic, func(msgs []*primitive.MessageExt, _ *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			gotB = append(gotB, string(m.Body))
		}
		return ConsumeSuccess
	})
	res, err := p.Send(context.Background(), &primitive.Message{Topic: topic, Body: []byte("after")})
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, res.SendStatus)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(gotB) > 0
	}, 10*time.Second, 10*time.Millisecond, "B consumes the new message")
	time.Sleep(time.Second) // the quiet window: nothing of A's may come again
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"after"}, gotB, "B starts after what A acknowledged")
}

// TestShutdownEndsTheRebalancePassBeforeUnregistering: a push consumer leaves while a rebalance
// pass of it is half done (the broker's NOTIFY_CONSUMER_IDS_CHANGED for its own arrival woke
// one, say) — does the pass go on asking the broker for the group's members after the group's
// only member unregistered? The assertion proves that Shutdown first waits for the pass in
// flight (Rebalance.Stop), so every GET_CONSUMER_LIST_BY_GROUP reaches the broker before the
// UNREGISTER_CLIENT and lists the consumer, and no request is answered SYSTEM_ERROR "no
// consumer for this group" (which rocketmq_responses_total{code="1"} counted before).
func TestShutdownEndsTheRebalancePassBeforeUnregistering(t *testing.T) {
	requireNoRebalanceAfterUnregister(t, func(c *embedded.Cluster, topics []string, opts client.Options, strategy AllocateMessageQueueStrategy) leavingConsumer {
		cfg := consumerConfig(t, c, "cg_"+clienttest.Name(t))
		cfg.Options, cfg.AllocateMessageQueueStrategy = opts, strategy
		cons := NewDefaultMQPushConsumer(cfg)
		subscribeAll(t, cons.Subscribe, topics)
		cons.RegisterMessageListener(func([]*primitive.MessageExt, *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus {
			return ConsumeSuccess
		})
		require.NoError(t, cons.Start())
		t.Cleanup(cons.Shutdown)
		// The heartbeat created the retry topic on the broker; once the name server has its
		// route, the pass asks the broker about it too (without a route it asks nobody).
		retry := protocol.GetRetryTopic(cfg.ConsumerGroup)
		c.Brokers[0].RegisterBrokerAll()
		require.True(t, cons.Instance().UpdateTopicRouteInfoFromNameServer(retry))
		return leavingConsumer{instance: cons.Instance(), shutdown: cons.Shutdown, passTopics: append([]string{retry}, topics...)}
	})
}
