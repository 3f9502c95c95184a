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
