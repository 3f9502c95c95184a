package consumer

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func litePullConfig(t testing.TB, c *embedded.Cluster, group, instance string) LitePullConfig {
	cfg := DefaultLitePullConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, instance)
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 200 * time.Millisecond
	cfg.BrokerSuspendMaxTime = time.Second
	cfg.ConsumerTimeoutWhenSuspend = 3 * time.Second
	return cfg
}

// pollAll polls until n messages came (or the deadline) and returns their bodies by queue offset.
func pollAll(t testing.TB, c *DefaultLitePullConsumer, n int) []*primitive.MessageExt {
	t.Helper()
	var got []*primitive.MessageExt
	deadline := time.Now().Add(15 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		msgs, err := c.Poll(200 * time.Millisecond)
		require.NoError(t, err)
		require.LessOrEqual(t, len(msgs), int(c.Config().PullBatchSize), "one poll returns at most pullBatchSize")
		got = append(got, msgs...)
	}
	require.Len(t, got, n)
	return got
}

// TestLitePullSubscribeCommitRestart pins DefaultLitePullConsumerImpl's subscribe flow: the
// rebalance gives the only member every queue, the pull tasks fill the cache, Poll returns each
// message once, CommitSync and Shutdown persist the consume offsets to the broker, and a new
// consumer of the group starts after them (nothing read twice).
func TestLitePullSubscribeCommitRestart(t *testing.T) {
	c, topic, p := startTopicProducer(t, "LP", 2)
	send(t, p, topic, "", 6)
	group := "lp_" + clienttest.Name(t)

	first := NewDefaultLitePullConsumer(litePullConfig(t, c, group, "a"))
	require.NoError(t, first.Subscribe(topic, "*"))
	require.ErrorIs(t, first.Assign([]primitive.MessageQueue{{Topic: topic, BrokerName: "broker-a"}}), ErrSubscriptionConflict)
	require.NoError(t, first.Start())
	require.Len(t, pollAll(t, first, 6), 6)
	require.NoError(t, first.CommitSync())
	first.Shutdown()
	for q := int32(0); q < 2; q++ {
		require.Equal(t, int64(3), int64(c.Brokers[0].ConsumerOffsetManager().QueryOffset(group, topic, q)))
	}

	send(t, p, topic, "", 2)
	second := NewDefaultLitePullConsumer(litePullConfig(t, c, group, "b"))
	require.NoError(t, second.Subscribe(topic, "*"))
	require.NoError(t, second.Start())
	t.Cleanup(second.Shutdown)
	got := pollAll(t, second, 2)
	for _, m := range got {
		require.Equal(t, int64(3), m.QueueOffset, "the restarted consumer starts after the committed offset")
	}
	msgs, err := second.Poll(300 * time.Millisecond)
	require.NoError(t, err)
	require.Empty(t, msgs, "nothing more")
	v, err := second.Committed(primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0})
	require.NoError(t, err)
	require.Equal(t, int64(3), v)
}

// TestLitePullAssignPauseSeek pins assign mode: only the assigned queue is read, a paused queue
// yields nothing until resumed, Seek moves the next poll back, and a seek outside [min, max]
// is refused.
func TestLitePullAssignPauseSeek(t *testing.T) {
	c, topic, p := startTopicProducer(t, "LPA", 2)
	send(t, p, topic, "", 6)
	q0 := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	cons := NewDefaultLitePullConsumer(litePullConfig(t, c, "lpa_"+clienttest.Name(t), "a"))
	require.NoError(t, cons.Assign([]primitive.MessageQueue{q0}))
	require.ErrorIs(t, cons.Subscribe(topic, "*"), ErrSubscriptionConflict)
	_, err := cons.Poll(0)
	require.ErrorIs(t, err, client.ErrServiceState)
	cons.Pause([]primitive.MessageQueue{q0})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	msgs, err := cons.Poll(500 * time.Millisecond)
	require.NoError(t, err)
	require.Empty(t, msgs, "a paused queue yields nothing")
	cons.Resume([]primitive.MessageQueue{q0})
	got := pollAll(t, cons, 3)
	for i, m := range got {
		require.Equal(t, int32(0), m.QueueID)
		require.Equal(t, int64(i), m.QueueOffset)
	}
	require.ErrorIs(t, cons.Seek(q0, 4), ErrSeekOffsetIllegal)
	require.ErrorIs(t, cons.Seek(primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 1}, 0), ErrNotAssigned)
	require.NoError(t, cons.Seek(q0, 1))
	again := pollAll(t, cons, 2)
	require.Equal(t, int64(1), again[0].QueueOffset, "the poll after a seek starts there")
	require.NoError(t, cons.SeekToBegin(q0))
	require.Equal(t, int64(0), pollAll(t, cons, 3)[0].QueueOffset)
	mqs, err := cons.FetchMessageQueues(topic)
	require.NoError(t, err)
	require.Len(t, mqs, 2)
}

// TestLitePullShutdownCancelsAHeldPull pins Shutdown's order: a pull task whose long poll the
// broker holds (nothing new in the queue, brokerSuspendMaxTime 20 s) is cancelled, so Shutdown
// returns at once rather than after the hold (it waits for the task goroutines, so without the
// cancellation it would take the 20 s), and leaves no task behind; a message sent while the pull
// is held reaches Poll at once (the broker answers the held pull).
func TestLitePullShutdownCancelsAHeldPull(t *testing.T) {
	c, topic, p := startTopicProducer(t, "LPS", 1)
	cfg := litePullConfig(t, c, "lps_"+clienttest.Name(t), "a")
	cfg.BrokerSuspendMaxTime = 20 * time.Second
	cfg.ConsumerTimeoutWhenSuspend = 30 * time.Second
	cons := NewDefaultLitePullConsumer(cfg)
	q0 := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	require.NoError(t, cons.Assign([]primitive.MessageQueue{q0}))
	require.NoError(t, cons.Start())
	time.Sleep(300 * time.Millisecond) // the first pull is held by the broker
	send(t, p, topic, "", 1)
	got := pollAll(t, cons, 1)
	require.Equal(t, int64(0), got[0].QueueOffset)

	time.Sleep(300 * time.Millisecond) // the next pull, from offset 1, is held again
	start := time.Now()
	cons.Shutdown()
	require.Less(t, time.Since(start), 5*time.Second, "Shutdown waits for no long poll")
	cons.tasksMu.Lock()
	defer cons.tasksMu.Unlock()
	require.Empty(t, cons.taskTable)
}

// TestLitePullPauseResumeWhilePollingNoDeadlock pins the lock order of the lite pull consumer:
// a pull task storing its result and Poll choosing a request must never hold the queue table's
// lock and the consume request cache's lock at once in opposite orders. The test keeps four pull
// tasks filling the cache (one message per pull), toggles Pause and Resume on two queues and
// polls, and seeks back to the start when everything has been read, for 1.5 s; each Poll
// must return within a few seconds. With the old order (the pull task putting into the cache
// inside AssignedMessageQueue's lock, Poll asking IsPaused inside the cache's lock) the
// goroutines deadlocked within a few hundred passes.
func TestLitePullPauseResumeWhilePollingNoDeadlock(t *testing.T) {
	const queues, perQueue = 4, 50
	c, topic, p := startTopicProducer(t, "LPD", queues)
	send(t, p, topic, "", queues*perQueue)
	cfg := litePullConfig(t, c, "lpd_"+clienttest.Name(t), "a")
	cfg.PullBatchSize = 1
	cons := NewDefaultLitePullConsumer(cfg)
	var mqs []primitive.MessageQueue
	for q := range int32(queues) {
		mqs = append(mqs, primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: q})
	}
	require.NoError(t, cons.Assign(mqs))
	require.NoError(t, cons.Start())
	var stuck atomic.Bool
	t.Cleanup(func() {
		if !stuck.Load() { // a deadlocked consumer's tasks never stop: leave it
			cons.Shutdown()
		}
	})

	stop := make(chan struct{})
	toggled := make(chan int)
	go func() { // pause and resume queues 0 and 1, as fast as it goes
		n := 0
		for {
			select {
			case <-stop:
				toggled <- n
				return
			default:
			}
			cons.Pause(mqs[:2])
			cons.Resume(mqs[:2])
			n++
		}
	}()

	polled := make(chan int, 1)
	progress := make(chan struct{}, 1)
	go func() {
		n, got := 0, 0
		for until := time.Now().Add(1500 * time.Millisecond); time.Now().Before(until); {
			msgs, err := cons.Poll(50 * time.Millisecond)
			if err != nil {
				break
			}
			got += len(msgs)
			n++
			select {
			case progress <- struct{}{}:
			default:
			}
			if got == queues*perQueue {
				for _, q := range mqs {
					if cons.Seek(q, 0) != nil {
						break
					}
				}
				got = 0
			}
		}
		polled <- n
	}()

	var polls int
	for done := false; !done; {
		select {
		case polls = <-polled:
			done = true
		case <-progress:
		case <-time.After(5 * time.Second):
			stuck.Store(true)
			close(stop)
			t.Fatal("deadlock: no Poll returned within 5 s while pull tasks stored results and queues were paused and resumed " +
				"(a pull task and Poll hold AssignedMessageQueue's and the consume request cache's locks in opposite orders)")
		}
	}
	close(stop)
	select {
	case n := <-toggled:
		require.Positive(t, n, "the pause/resume goroutine ran")
	case <-time.After(5 * time.Second):
		stuck.Store(true)
		t.Fatal("deadlock: Pause/Resume did not return within 5 s")
	}
	require.Positive(t, polls)
}

// TestLitePullShutdownEndsTheRebalancePassBeforeUnregistering: the lite pull consumer's
// Shutdown, like the push consumer's, waits for a rebalance pass in flight before it
// unregisters: no GET_CONSUMER_LIST_BY_GROUP follows the UNREGISTER_CLIENT and none is answered
// SYSTEM_ERROR (a lite pull consumer subscribes no retry topic: the pass has the two topics).
func TestLitePullShutdownEndsTheRebalancePassBeforeUnregistering(t *testing.T) {
	requireNoRebalanceAfterUnregister(t, func(c *embedded.Cluster, topics []string, opts client.Options, strategy AllocateMessageQueueStrategy) leavingConsumer {
		cfg := litePullConfig(t, c, "cg_"+clienttest.Name(t), "lp")
		cfg.Options, cfg.AllocateMessageQueueStrategy = opts, strategy
		cons := NewDefaultLitePullConsumer(cfg)
		subscribeAll(t, cons.Subscribe, topics)
		require.NoError(t, cons.Start())
		t.Cleanup(cons.Shutdown)
		return leavingConsumer{instance: cons.Instance(), shutdown: cons.Shutdown, passTopics: topics}
	})
}
