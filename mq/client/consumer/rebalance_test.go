package consumer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// fakeRebalanceHooks records what a Rebalance asks of its consumer kind.
type fakeRebalanceHooks struct {
	consumeType protocol.ConsumeType
	removed     []primitive.MessageQueue
	dispatched  []*PullRequest
}

func (h *fakeRebalanceHooks) ConsumeType() protocol.ConsumeType { return h.consumeType }
func (h *fakeRebalanceHooks) MessageQueueChanged(string, []primitive.MessageQueue, []primitive.MessageQueue) {
}
func (h *fakeRebalanceHooks) RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, _ *ProcessQueue) bool {
	h.removed = append(h.removed, mq)
	return true
}
func (h *fakeRebalanceHooks) ComputePullFromWhere(primitive.MessageQueue) int64 { return 0 }
func (h *fakeRebalanceHooks) DispatchPullRequest(reqs []*PullRequest) {
	h.dispatched = append(h.dispatched, reqs...)
}
func (h *fakeRebalanceHooks) RemoveDirtyOffset(primitive.MessageQueue) {}

// A queue nobody pulled for PullMaxIdleTime is dropped and assigned afresh for a push consumer
// (CONSUME_PASSIVELY), and kept for a pull consumer (CONSUME_ACTIVELY), whose application
// decides when to pull. Java: RebalanceImpl#updateProcessQueueTableInRebalance, isPullExpired.
func TestRebalanceDropsIdleQueuesOnlyForPushConsumers(t *testing.T) {
	for _, tc := range []struct {
		consumeType protocol.ConsumeType
		dropped     bool
	}{
		{protocol.ConsumePassively, true},
		{protocol.ConsumeActively, false},
	} {
		t.Run(string(tc.consumeType), func(t *testing.T) {
			clk := clock.NewManualMillis(1_700_000_000_000)
			inst := client.NewMQClientInstance(client.ClientConfig{ClientIP: "127.0.0.1"}, client.Options{DisableScheduledTasks: true, Clock: clk}, 0, "x")
			hooks := &fakeRebalanceHooks{consumeType: tc.consumeType}
			r := NewRebalance("g", protocol.Broadcasting, AllocateMessageQueueAveragely{}, inst, hooks)
			r.PutSubscription(&protocol.SubscriptionData{Topic: "T", SubString: "*"})
			mq := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 0}
			r.SetTopicSubscribeInfo("T", []primitive.MessageQueue{mq})

			r.DoRebalance(false)
			require.Len(t, hooks.dispatched, 1, "the new queue's first pull is dispatched")
			_, pqs := r.ProcessQueues()
			first := pqs[0]

			clk.Advance(PullMaxIdleTime + time.Millisecond)
			r.DoRebalance(false)
			_, pqs = r.ProcessQueues()
			require.Len(t, pqs, 1, "the queue stays assigned")
			require.Equal(t, tc.dropped, first.Dropped())
			if tc.dropped {
				require.Equal(t, []primitive.MessageQueue{mq}, hooks.removed)
				require.NotSame(t, first, pqs[0], "a fresh ProcessQueue replaces the idle one")
				require.Len(t, hooks.dispatched, 2)
			} else {
				require.Empty(t, hooks.removed)
				require.Same(t, first, pqs[0])
				require.Len(t, hooks.dispatched, 1)
			}
		})
	}
}

// planHooks is fakeRebalanceHooks with per-queue answers: the start offset of each new queue
// (missing: -1, "could not ask the broker") and the queues RemoveUnnecessaryMessageQueue
// refuses to let go; it notes whether each removed queue was already marked dropped.
type planHooks struct {
	fakeRebalanceHooks
	start         map[primitive.MessageQueue]int64
	keep          map[primitive.MessageQueue]bool
	droppedAtCall []bool
}

func (h *planHooks) RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, pq *ProcessQueue) bool {
	h.droppedAtCall = append(h.droppedAtCall, pq.Dropped())
	if h.keep[mq] {
		return false
	}
	h.removed = append(h.removed, mq)
	return true
}

func (h *planHooks) ComputePullFromWhere(mq primitive.MessageQueue) int64 {
	if v, ok := h.start[mq]; ok {
		return v
	}
	return -1
}

// updateProcessQueueTableInRebalance, Java's way: a queue no longer assigned is marked dropped
// before RemoveUnnecessaryMessageQueue persists it (so its pulls and consume results stop
// counting while its offset goes out), then leaves the table — unless the hook refuses (Java
// keeps it, as for an orderly queue it cannot unlock); a queue kept keeps its ProcessQueue and
// gets no new pull; a new queue starts at ComputePullFromWhere's offset, and one whose offset
// cannot be computed (< 0) is left for the next pass.
func TestUpdateProcessQueueTableInRebalanceDropsAndAdds(t *testing.T) {
	inst := client.NewMQClientInstance(client.ClientConfig{ClientIP: "127.0.0.1"}, client.Options{DisableScheduledTasks: true}, 0, "x")
	q := func(id int32) primitive.MessageQueue {
		return primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: id}
	}
	hooks := &planHooks{fakeRebalanceHooks: fakeRebalanceHooks{consumeType: protocol.ConsumePassively},
		start: map[primitive.MessageQueue]int64{q(0): 5, q(1): 7, q(2): 9, q(3): 11},
		keep:  map[primitive.MessageQueue]bool{q(3): true}}
	r := NewRebalance("g", protocol.Broadcasting, AllocateMessageQueueAveragely{}, inst, hooks)
	r.PutSubscription(&protocol.SubscriptionData{Topic: "T", SubString: "*"})
	r.SetTopicSubscribeInfo("T", []primitive.MessageQueue{q(0), q(1), q(2), q(3)})
	r.DoRebalance(false)
	require.Len(t, hooks.dispatched, 4)
	for i, req := range hooks.dispatched {
		require.Equal(t, hooks.start[req.MessageQueue], req.NextOffset(), "queue %d starts at its computed offset", i)
	}
	mqs, pqs := r.ProcessQueues()
	before := map[primitive.MessageQueue]*ProcessQueue{}
	for i, m := range mqs {
		before[m] = pqs[i]
	}

	// The route now lists queues 0, 1, 3 and a new 4 whose start offset cannot be computed.
	r.SetTopicSubscribeInfo("T", []primitive.MessageQueue{q(0), q(1), q(4)})
	r.DoRebalance(false)
	require.Equal(t, []primitive.MessageQueue{q(2)}, hooks.removed, "queue 2 left; queue 3's hook refused")
	require.Equal(t, []bool{true, true}, hooks.droppedAtCall, "marked dropped before the hook persists it")
	require.True(t, before[q(2)].Dropped())
	mqs, pqs = r.ProcessQueues()
	require.Equal(t, []primitive.MessageQueue{q(0), q(1), q(3)}, mqs, "4 waits for the next pass; 3 stays in the table")
	require.Same(t, before[q(0)], pqs[0], "a kept queue keeps its ProcessQueue")
	require.False(t, pqs[0].Dropped())
	require.Len(t, hooks.dispatched, 4, "no new pull for kept queues, none for queue 4")

	hooks.start[q(4)] = 13
	r.DoRebalance(false)
	require.Len(t, hooks.dispatched, 5)
	require.Equal(t, q(4), hooks.dispatched[4].MessageQueue)
	require.Equal(t, int64(13), hooks.dispatched[4].NextOffset())
}
