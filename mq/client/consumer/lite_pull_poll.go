//go:build !ex_ch10

package consumer

import (
	"log/slog"
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
	if err := c.running(); err != nil {
		return nil, err
	}
	if timeout == PollDefault {
		timeout = c.cfg.PollTimeout
	}
	c.pollMu.Lock()
	defer c.pollMu.Unlock()
	if c.cfg.AutoCommit {
		c.maybeAutoCommit()
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		// Deviation: Java's poll returns a paused queue's cached requests too; here they wait.
		// The paused set is read before the cache's lock is taken (never one lock inside the other).
		paused := c.assigned.pausedQueues()
		r := c.cache.take(func(r *liteConsumeRequest) bool { return paused[r.mq] })
		if r != nil {
			offset := r.pq.RemoveMessage(r.msgs)
			c.assigned.with(r.mq, func(st *messageQueueState) { st.consumeOffset = offset })
			if c.tr.Enabled() {
				c.tr.Step("DefaultLitePullConsumerImpl#poll", slog.String("topic", r.mq.Topic), slog.Int("queueId", int(r.mq.QueueID)),
					slog.Int("messages", len(r.msgs)), slog.Int64("consumeOffset", offset))
			}
			return r.msgs, nil
		}
		if timer == nil {
			return nil, nil
		}
		select {
		case <-c.cache.signal:
		case <-timer:
			return nil, nil
		case <-c.baseCtx.Done():
			return nil, nil
		}
	}
}
