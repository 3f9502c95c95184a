package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// newExercise starts the chapter's cluster (steps not printed) with 8 messages sent, two per
// queue; everything is shut down at the test's end.
func newExercise(t *testing.T) *scenario {
	t.Helper()
	var sc *scenario
	mqtest.ExerciseStage(t, false, func(stage *mqtest.Stage) (func(), error) {
		var err error
		sc, err = newScenario(stage)
		return func() { sc.shutdown() }, err
	})
	require.NoError(t, sc.produce(8))
	return sc
}

func subscribe(c *consumer.DefaultLitePullConsumer) error { return c.Subscribe(topicName, "*") }

// startSubscriber starts a subscribe-mode consumer of subGroup named name, rebalances it (it is
// the group's only member: it gets every queue) and runs each pull task once.
func (s *scenario) startSubscriber(t *testing.T, name string, tune ...func(*consumer.LitePullConfig)) *consumer.DefaultLitePullConsumer {
	t.Helper()
	c, err := s.startConsumer(subGroup, name, subscribe, tune...)
	require.NoError(t, err)
	c.Instance().DoRebalance()
	require.Len(t, c.Assignment(), queueNums)
	for _, q := range c.Assignment() {
		_, ok := c.RunPullTask(q)
		require.True(t, ok)
	}
	return c
}

// offsetsOf lists "queue/offset" of msgs.
func offsetsOf(msgs []*primitive.MessageExt) [][2]int64 {
	out := [][2]int64{}
	for _, m := range msgs {
		out = append(out, [2]int64{int64(m.QueueID), m.QueueOffset})
	}
	return out
}

// TestExercise1_PollSkipsAPausedQueue asks: what does Pause do to messages already in the
// cache? It proves poll never returns a paused queue's messages — not those pulled before the
// pause either, and its task does not pull — and that Resume hands them out again.
func TestExercise1_PollSkipsAPausedQueue(t *testing.T) {
	sc := newExercise(t)
	c := sc.startSubscriber(t, "ex1")
	q0 := queues(0)
	c.Pause(q0)
	got := sc.pollTimes(c, 4)
	require.Len(t, got, 6)
	for _, m := range got {
		require.NotEqual(t, int32(0), m.QueueID, "no message of the paused queue")
	}
	d, _ := c.RunPullTask(q0[0])
	require.Equal(t, time.Second, d, "a paused queue's task only waits (PULL_TIME_DELAY_MILLS_WHEN_PAUSE)")
	c.Resume(q0)
	require.Equal(t, [][2]int64{{0, 0}, {0, 1}}, offsetsOf(sc.pollTimes(c, 1)))
}

// TestExercise2_SeekMovesTheNextPoll asks: where does the poll after Seek(mq, offset) start?
// It proves the next poll of the queue starts at offset (what the cache held of it is dropped),
// and that an offset outside the queue's [min, max] is refused.
func TestExercise2_SeekMovesTheNextPoll(t *testing.T) {
	sc := newExercise(t)
	c, err := sc.startConsumer(assignGroup, "ex2", func(c *consumer.DefaultLitePullConsumer) error { return c.Assign(queues(2)) })
	require.NoError(t, err)
	q2 := queues(2)[0]
	c.RunPullTask(q2)
	require.NoError(t, c.Seek(q2, 1))
	all, _ := c.CachedMessages(q2)
	require.Zero(t, all, "the seek dropped the cached messages of the queue")
	c.RunPullTask(q2)
	require.Equal(t, [][2]int64{{2, 1}}, offsetsOf(sc.pollTimes(c, 1)))
	require.ErrorIs(t, c.Seek(q2, 3), consumer.ErrSeekOffsetIllegal, "max offset is 2")
	require.ErrorIs(t, c.Seek(queues(0)[0], 0), consumer.ErrNotAssigned)
}

// TestExercise3_ARestartedConsumerStartsAfterTheCommit asks: after CommitSync and Shutdown,
// where does the group's next consumer start? It proves it starts at the committed offsets:
// queues 0 and 1 (polled and committed) after their two messages, queues 2 and 3 (never
// polled) from the start — nothing committed is read twice, nothing uncommitted is lost.
func TestExercise3_ARestartedConsumerStartsAfterTheCommit(t *testing.T) {
	sc := newExercise(t)
	first := sc.startSubscriber(t, "ex3a")
	require.Equal(t, [][2]int64{{0, 0}, {0, 1}, {1, 0}, {1, 1}}, offsetsOf(sc.pollTimes(first, 2)))
	require.NoError(t, first.CommitSync())
	first.Shutdown()
	require.NoError(t, mqtest.WaitCommitted(sc.Cluster.Brokers[0], subGroup, topicName, map[int32]int64{0: 2, 1: 2}))
	require.NoError(t, mqtest.WaitUntil(10*time.Second, func() bool { // its UNREGISTER_CLIENT has landed
		g := sc.Cluster.Brokers[0].ConsumerManager().GetConsumerGroupInfo(subGroup)
		return g == nil || len(g.AllClientIDs()) == 0
	}))
	require.NoError(t, sc.produce(4)) // one more per queue, so no pull waits for news

	second := sc.startSubscriber(t, "ex3b")
	got := offsetsOf(sc.pollTimes(second, 4))
	require.Equal(t, [][2]int64{{0, 2}, {1, 2}, {2, 0}, {2, 1}, {2, 2}, {3, 0}, {3, 1}, {3, 2}}, got)
}

// TestExercise4_TheCacheStaysUnderItsThresholds asks: what stops a pull task from filling
// memory when nobody polls? It proves a queue holding more than pullThresholdForQueue messages
// is not pulled, and that no queue is pulled while the consume request cache holds more than
// pullThresholdForAll messages (cached requests × pullBatchSize); the task waits 50 ms instead.
func TestExercise4_TheCacheStaysUnderItsThresholds(t *testing.T) {
	sc := newExercise(t)
	require.NoError(t, sc.produce(8)) // four per queue
	c, err := sc.startConsumer(assignGroup, "ex4", func(c *consumer.DefaultLitePullConsumer) error { return c.Assign(queues(0, 1, 2)) },
		func(cfg *consumer.LitePullConfig) {
			cfg.PullBatchSize = 2
			cfg.PullThresholdForQueue = 1
			cfg.PullThresholdForAll = 3
		})
	require.NoError(t, err)
	q0, q1, q2 := queues(0)[0], queues(1)[0], queues(2)[0]
	require.Equal(t, time.Duration(0), must(c.RunPullTask(q0)), "FOUND: pull again at once")
	require.Equal(t, 50*time.Millisecond, must(c.RunPullTask(q0)), "2 cached > pullThresholdForQueue 1")
	_, queue := c.CachedMessages(q0)
	require.Equal(t, int64(2), queue)
	require.Equal(t, time.Duration(0), must(c.RunPullTask(q1)))
	require.Equal(t, 50*time.Millisecond, must(c.RunPullTask(q2)), "2 requests × 2 > pullThresholdForAll 3")
	all, _ := c.CachedMessages(q2)
	require.Equal(t, int64(4), all)
	sc.pollTimes(c, 1)
	require.Equal(t, time.Duration(0), must(c.RunPullTask(q2)), "below the thresholds after a poll")
}

func must(d time.Duration, ok bool) time.Duration {
	if !ok {
		return -1
	}
	return d
}

// TestExercise5_AssignIgnoresTheGroupsRebalance asks: what does a rebalance do to an assigning
// consumer? It proves nothing: two assign-mode members of one group that chose overlapping
// queues both read the shared queue whole, and a rebalance leaves each assignment as chosen.
func TestExercise5_AssignIgnoresTheGroupsRebalance(t *testing.T) {
	sc := newExercise(t)
	x, err := sc.startConsumer(assignGroup, "ex5x", func(c *consumer.DefaultLitePullConsumer) error { return c.Assign(queues(0, 1)) })
	require.NoError(t, err)
	y, err := sc.startConsumer(assignGroup, "ex5y", func(c *consumer.DefaultLitePullConsumer) error { return c.Assign(queues(1)) })
	require.NoError(t, err)
	x.Instance().SendHeartbeatToAllBrokerWithLock()
	y.Instance().SendHeartbeatToAllBrokerWithLock()
	x.Instance().DoRebalance()
	y.Instance().DoRebalance()
	require.Equal(t, queues(0, 1), x.Assignment())
	require.Equal(t, queues(1), y.Assignment())
	for _, c := range []*consumer.DefaultLitePullConsumer{x, y} {
		for _, q := range c.Assignment() {
			c.RunPullTask(q)
		}
	}
	require.Equal(t, [][2]int64{{0, 0}, {0, 1}, {1, 0}, {1, 1}}, offsetsOf(sc.pollTimes(x, 2)))
	require.Equal(t, [][2]int64{{1, 0}, {1, 1}}, offsetsOf(sc.pollTimes(y, 1)))
}

// TestExercise6_AutoCommitWaitsForItsInterval asks: when does auto-commit commit? It proves
// Poll commits the offsets of what earlier polls returned once autoCommitIntervalMillis has
// passed since the last commit (on the consumer's clock), not before.
func TestExercise6_AutoCommitWaitsForItsInterval(t *testing.T) {
	sc := newExercise(t)
	c := sc.startSubscriber(t, "ex6", func(cfg *consumer.LitePullConfig) { cfg.AutoCommit = true })
	q0 := queues(0)[0]
	sc.pollTimes(c, 1) // the first poll commits (nothing yet), then returns queue 0's messages
	sc.pollTimes(c, 1)
	require.Equal(t, int64(0), c.OffsetStore().ReadOffset(q0, consumer.ReadFromMemory),
		"not committed before the interval: still the start offset the rebalance read from the broker")
	sc.clk.Advance(5 * time.Second)
	sc.pollTimes(c, 1)
	require.Equal(t, int64(2), c.OffsetStore().ReadOffset(q0, consumer.ReadFromMemory), "committed by the poll after 5 s")
}
