package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// rbScenario is the chapter's scenario for an exercise: its log goes to a buffer (printed when
// the test fails), the gate open so that the turnstiles see the notifications.
func rbScenario(t *testing.T) *scenario {
	s, _ := rbScenarioLog(t)
	return s
}

// rbScenarioLog is rbScenario that also returns the log.
func rbScenarioLog(t *testing.T) (*scenario, *trace.SyncWriter) {
	t.Helper()
	var sc *scenario
	stage := mqtest.ExerciseStage(t, true, func(stage *mqtest.Stage) (func(), error) {
		var err error
		sc, err = newScenario(stage)
		return func() { sc.shutdown() }, err
	})
	return sc, stage.Out
}

// change arms the turnstiles of the members already running, runs what changes the group, lets
// every member told of it through (newcomers are armed by startMember) and plays one
// rebalance pass of every running member, in start order.
func (s *scenario) change(t *testing.T, what func() []*member) {
	t.Helper()
	s.mu.Lock()
	before := s.members.All()
	s.mu.Unlock()
	for _, m := range before {
		m.arm()
	}
	told := what()
	require.NoError(t, s.letThrough(told...))
	s.mu.Lock()
	now := s.members.All()
	s.mu.Unlock()
	for _, m := range now {
		m.c.Instance().DoRebalance()
	}
}

// requireOneOwnerEach asserts that every queue of TopicTest is held by exactly one running
// member, and that the members named in want (queueId → member) are those owners.
func requireOneOwnerEach(t *testing.T, s *scenario, want map[int32]string) {
	t.Helper()
	owners := s.owners()
	for q := int32(0); q < queueNums; q++ {
		require.Len(t, owners[q], 1, "queue %d must have exactly one owner", q)
		require.Equal(t, want[q], owners[q][0].name, "owner of queue %d", q)
	}
}

// TestExercise1_EveryQueueHasExactlyOneOwnerAfterEachJoinAndLeave — after a consumer joins or
// leaves, and every member has played one rebalance pass (the one the notification wakes), is
// any queue held by two consumers, or by none? The assertion proves that after each of A's
// start, B's and C's joins, and B's and A's leaves, every queue is held by exactly one live
// member, the one AllocateMessageQueueAveragely names for its place in the sorted clientIds.
func TestExercise1_EveryQueueHasExactlyOneOwnerAfterEachJoinAndLeave(t *testing.T) {
	s := rbScenario(t)
	start := func(name string) func() []*member {
		return func() []*member {
			_, err := s.startMember(name)
			require.NoError(t, err)
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.members.All() // the broker tells every member, the newcomer too
		}
	}
	leave := func(name string) func() []*member {
		return func() []*member {
			m := s.members.Get(name)
			m.c.Shutdown()
			s.members.Remove(m.name)
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.members.All()
		}
	}
	s.change(t, start("A"))
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "A", 3: "A"})
	s.change(t, start("B"))
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "B", 3: "B"})
	s.change(t, start("C")) // 4 queues over 3: the first member gets the remainder
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "B", 3: "C"})
	s.change(t, leave("B"))
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "C", 3: "C"})
	s.change(t, leave("A"))
	requireOneOwnerEach(t, s, map[int32]string{0: "C", 1: "C", 2: "C", 3: "C"})
}

// TestExercise2_NoAcknowledgedMessageIsConsumedTwiceAcrossJoinAndLeave — when a queue moves from
// A to B (B joins) and back to B's sole ownership (A leaves), does B start where A stopped, or
// does it consume again what A had acknowledged? The assertion proves that the queue's new owner
// starts at the offset A committed on dropping it (2 after B joins, 3 after A leaves), and that
// over the whole run every message is consumed exactly once. Without the persist in
// RemoveUnnecessaryMessageQueue and in shutdown, B would start from the first offset
// (CONSUME_FROM_FIRST_OFFSET) and consume messages 3, 4, 7, 8 again.
func TestExercise2_NoAcknowledgedMessageIsConsumedTwiceAcrossJoinAndLeave(t *testing.T) {
	s := rbScenario(t)
	require.NoError(t, s.produce(8))
	require.NoError(t, s.aloneA())
	require.NoError(t, s.consumeA())
	require.NoError(t, s.joinB())
	b := s.members.Get("B")
	for q := int32(2); q < queueNums; q++ {
		require.Equal(t, "2", pendingOffset(b, queue(q)), "B starts queue %d where A stopped", q)
	}
	require.NoError(t, s.moreMessages())
	require.NoError(t, s.leaveA())
	for q := int32(0); q < 2; q++ {
		require.Equal(t, "3", pendingOffset(b, queue(q)), "B starts queue %d where A stopped", q)
	}
	require.NoError(t, s.produce(4))
	s.pullAll(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Equal(t, 16, s.sent)
	for i := 1; i <= s.sent; i++ {
		body := "message " + strconv.Itoa(i)
		require.Len(t, s.consumed[body], 1, "%s must be consumed exactly once, got %v", body, s.consumed[body])
	}
}

// queue is TopicTest's queue q on broker-a.
func queue(q int32) primitive.MessageQueue {
	return primitive.MessageQueue{Topic: topicName, BrokerName: brokerName, QueueID: q}
}

// TestExercise3_AClosedChannelLeavesTheGroupAndTheOthersAreTold — a consumer's connection closes
// without UNREGISTER_CLIENT (a crash, a network cut): does the group keep it until its heartbeat
// expires (120 s)? The assertion proves that the broker removes it at once (its channel-close
// event: ConsumerManager#doChannelCloseEvent), lists only the remaining member, and notifies it,
// whose next rebalance takes every queue.
func TestExercise3_AClosedChannelLeavesTheGroupAndTheOthersAreTold(t *testing.T) {
	s := rbScenario(t)
	s.change(t, func() []*member { return []*member{mustStart(t, s, "A")} })
	s.change(t, func() []*member { b := mustStart(t, s, "B"); return []*member{s.members.Get("A"), b} })
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "B", 3: "B"})

	a, b := s.members.Get("A"), s.members.Get("B")
	a.arm()
	b.c.Instance().MQClientAPI().RemotingClient().CloseChannel(s.Master().BrokerAddr()) // no UNREGISTER_CLIENT
	require.NoError(t, s.letThrough(a), "A is told the group changed")
	gi := s.Master().ConsumerManager().GetConsumerGroupInfo(group)
	require.NotNil(t, gi)
	require.Equal(t, []string{a.c.Instance().ClientID()}, gi.AllClientIDs(), "B's closed channel left the group")
	s.members.Remove(b.name)
	a.c.Instance().DoRebalance()
	requireOneOwnerEach(t, s, map[int32]string{0: "A", 1: "A", 2: "A", 3: "A"})
	b.ts.Open()
	b.c.Shutdown()
}

func mustStart(t *testing.T, s *scenario, name string) *member {
	t.Helper()
	m, err := s.startMember(name)
	require.NoError(t, err)
	return m
}

// TestExercise4_ADroppedQueueIsNoLongerPulled — A held queue 2 and had its next pull queued when
// B joined; after A's rebalance dropped the queue, does that queued pull still fetch messages
// for A? The assertion proves that it does not: the ProcessQueue is marked dropped, the pull
// loop discards the request without sending it (it is not queued again), A consumes nothing of
// queue 2, and B, the new owner, consumes the new message.
func TestExercise4_ADroppedQueueIsNoLongerPulled(t *testing.T) {
	s := rbScenario(t)
	require.NoError(t, s.produce(8))
	require.NoError(t, s.aloneA())
	require.NoError(t, s.consumeA())
	a := s.members.Get("A")
	require.Contains(t, a.c.PullMessageService().Pending(), queue(2), "A's next pull of queue 2 is queued")
	_, pqs := a.c.Rebalance().ProcessQueues()
	var pq2 = pqs[slices.Index(mustQueues(a), queue(2))]
	require.NoError(t, s.joinB())
	require.True(t, pq2.Dropped(), "A's rebalance dropped queue 2")
	require.NoError(t, s.produce(4)) // one more message per queue
	s.mu.Lock()
	before := len(s.consumed)
	s.mu.Unlock()
	require.True(t, a.c.PullMessageService().DoPullQueue(queue(2)), "the stale request is run")
	require.NotContains(t, a.c.PullMessageService().Pending(), queue(2), "and not queued again")
	s.mu.Lock()
	require.Equal(t, before, len(s.consumed), "A consumed nothing of the dropped queue")
	s.mu.Unlock()
	b := s.members.Get("B")
	require.True(t, b.c.PullMessageService().DoPullQueue(queue(2)))
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Equal(t, []string{"B"}, s.consumed["message 11"], "the new owner consumes the new message of queue 2")
}

func mustQueues(m *member) []primitive.MessageQueue {
	mqs, _ := m.c.Rebalance().ProcessQueues()
	return mqs
}

// TestExercise5_ShutdownPersistsItsOffsetsThenUnregisters — what does a consumer that shuts down
// tell its broker, and in which order? The assertion proves that DefaultMQPushConsumerImpl#shutdown
// persists the offsets of the queues it holds (RemoteBrokerOffsetStore#persistAll) before it
// sends UNREGISTER_CLIENT (MQClientAPIImpl#unregisterClient), that the broker forgets it at once
// (the group lists only B when Shutdown returns) and commits A's last offsets.
func TestExercise5_ShutdownPersistsItsOffsetsThenUnregisters(t *testing.T) {
	s, log := rbScenarioLog(t)
	require.NoError(t, s.produce(8))
	s.change(t, func() []*member { return []*member{mustStart(t, s, "A")} })
	s.change(t, func() []*member { b := mustStart(t, s, "B"); return []*member{s.members.Get("A"), b} })
	a, b := s.members.Get("A"), s.members.Get("B")
	s.pullAll(a)
	last := map[int32]int64{}
	for q, v := range a.c.OffsetStore().CloneOffsetTable(topicName) {
		last[q.QueueID] = v
	}
	require.Equal(t, map[int32]int64{0: 2, 1: 2}, last, "A consumed its two queues")

	b.arm()
	a.c.Shutdown()
	s.members.Remove(a.name)
	gi := s.Master().ConsumerManager().GetConsumerGroupInfo(group)
	require.NotNil(t, gi)
	require.Equal(t, []string{b.c.Instance().ClientID()}, gi.AllClientIDs(), "the broker forgot A when Shutdown returned")
	require.NoError(t, s.letThrough(b))
	require.NoError(t, s.waitCommitted(last), "A's last offsets are committed")
	text := log.String()
	shutdown := strings.Index(text, "DefaultMQPushConsumerImpl#shutdown")
	persist := strings.Index(text[shutdown:], "RemoteBrokerOffsetStore#persistAll")
	unregister := strings.Index(text[shutdown:], "MQClientAPIImpl#unregisterClient")
	require.GreaterOrEqual(t, shutdown, 0, "A's shutdown is logged")
	require.GreaterOrEqual(t, persist, 0, "A persisted its offsets on the way out")
	require.Greater(t, unregister, persist, "A unregistered after persisting")
}
