package consumer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// The pull loop driven by hand (DisableScheduledTasks): requests wait in arrival order,
// DoPullQueue takes the named queue's request out of the middle and DoPull the head, each
// returning only once the pull said it was done; a delayed request (flow control, errors) is
// queued at once instead of on a timer; after shutdown nothing is queued any more.
// Java: PullMessageService#executePullRequestImmediately/#executePullRequestLater.
func TestPullMessageServiceManual(t *testing.T) {
	var pulled []int32
	s := newPullMessageService(nil, true, func(req *PullRequest, done func()) {
		pulled = append(pulled, req.MessageQueue.QueueID)
		done()
	})
	s.start()
	mq := func(id int32) primitive.MessageQueue {
		return primitive.MessageQueue{Topic: "T", BrokerName: "b", QueueID: id}
	}
	for id := range int32(3) {
		s.ExecutePullRequestImmediately(&PullRequest{MessageQueue: mq(id)})
	}
	s.ExecutePullRequestLater(&PullRequest{MessageQueue: mq(3)}, time.Hour)
	require.Equal(t, []primitive.MessageQueue{mq(0), mq(1), mq(2), mq(3)}, s.Pending())

	require.True(t, s.DoPullQueue(mq(2)))
	require.True(t, s.DoPull())
	require.Equal(t, []int32{2, 0}, pulled)
	require.Equal(t, []primitive.MessageQueue{mq(1), mq(3)}, s.Pending())
	require.False(t, s.DoPullQueue(mq(7)), "no request of that queue is queued")

	s.shutdown()
	s.ExecutePullRequestImmediately(&PullRequest{MessageQueue: mq(4)})
	require.Equal(t, []primitive.MessageQueue{mq(1), mq(3)}, s.Pending(), "a closed loop takes nothing")
}

// With its goroutine running, the loop hands each queued request to the pull at once, and a
// request put back later comes round after its delay; shutdown stops the pending timer.
func TestPullMessageServiceLoop(t *testing.T) {
	got := make(chan int32, 4)
	s := newPullMessageService(nil, false, func(req *PullRequest, done func()) {
		got <- req.MessageQueue.QueueID
		done()
	})
	s.start()
	s.ExecutePullRequestImmediately(&PullRequest{MessageQueue: primitive.MessageQueue{QueueID: 1}})
	require.Equal(t, int32(1), <-got)
	s.ExecutePullRequestLater(&PullRequest{MessageQueue: primitive.MessageQueue{QueueID: 2}}, 20*time.Millisecond)
	select {
	case id := <-got:
		require.Equal(t, int32(2), id)
	case <-time.After(10 * time.Second):
		t.Fatal("the delayed request never came round")
	}
	s.ExecutePullRequestLater(&PullRequest{MessageQueue: primitive.MessageQueue{QueueID: 3}}, time.Hour)
	s.shutdown()
	require.Empty(t, s.Pending())
	require.Empty(t, got)
}
