//go:build ex_ch10

package consumer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"

	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Poll returns the messages of the oldest consume request in the cache — at most
// PullBatchSize, all of one queue, in queue-offset order — waiting up to timeout (PollDefault:
// PollTimeout) for one to arrive; none when the time runs out. A paused queue's requests stay
// in the cache until it is resumed. With AutoCommit it first commits (commitAll) when
// AutoCommitInterval has passed since the last commit. The queue's consume offset moves past
// the messages returned. Errors: client.ErrServiceState. Java: DefaultLitePullConsumerImpl#poll.
func (c *DefaultLitePullConsumer) Poll(timeout time.Duration) ([]*primitive.MessageExt, error) {
	// Hint: refuse a consumer not running (c.running()); PollDefault means c.cfg.PollTimeout.
	// Hold c.pollMu; with AutoCommit, c.maybeAutoCommit() first. Then loop: read the paused
	// queues (c.assigned.pausedQueues(), before the cache's lock: calling IsPaused inside take's
	// skip would take the queue table's lock under the cache's, the reverse of a pull task's
	// order, and deadlock), then take the oldest request of a queue not paused from the consume
	// request cache (c.cache.take with a skip that looks r.mq up in that set). One found: r.pq.RemoveMessage(r.msgs) gives the queue's new consume
	// offset, which goes into c.assigned (with(r.mq, ...): st.consumeOffset); log the step
	// "DefaultLitePullConsumerImpl#poll" (topic, queueId, messages, consumeOffset) and return
	// r.msgs. None: wait for c.cache.signal, the timer of timeout (timeout 0: return at once), or
	// c.baseCtx.Done() — the last two return nil, nil.
	return nil, exercise.NotImplemented("ch10", "tutorial/ch10-litepull.md §DefaultLitePullConsumerImpl#poll",
		"write DefaultLitePullConsumer.Poll (mq/client/consumer/lite_pull_poll_stub.go): take the oldest cached request of a queue not paused, move its consume offset, or wait for one")
}
