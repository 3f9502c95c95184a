package consumer

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// MessageQueueListener is told when a rebalance changes a subscribed topic's queues: mqAll
// are the topic's readable queues, mqDivided this consumer's share. A lite pull consumer in
// subscribe mode installs its own (which updates its pull tasks); Java:
// org.apache.rocketmq.client.consumer.MessageQueueListener.
type MessageQueueListener interface {
	MessageQueueChanged(topic string, mqAll, mqDivided []primitive.MessageQueue)
}

// rebalanceLitePull is the lite pull consumer's part of a rebalance: queues are pulled when
// the application polls (CONSUME_ACTIVELY: an idle queue is never dropped), a change goes to
// the MessageQueueListener, and no PullRequest is dispatched (the pull tasks pull).
// Mirrors org.apache.rocketmq.client.impl.consumer.RebalanceLitePullImpl.
type rebalanceLitePull struct {
	c *DefaultLitePullConsumer
}

// ConsumeType is CONSUME_ACTIVELY. Java: RebalanceLitePullImpl#consumeType.
func (r *rebalanceLitePull) ConsumeType() protocol.ConsumeType { return protocol.ConsumeActively }

// MessageQueueChanged hands the new assignment to the consumer's MessageQueueListener.
// Java: RebalanceLitePullImpl#messageQueueChanged.
func (r *rebalanceLitePull) MessageQueueChanged(topic string, mqAll, mqDivided []primitive.MessageQueue) {
	if tr := r.c.instance.Tracer(); tr.Enabled() {
		tr.Step("RebalanceLitePullImpl#messageQueueChanged", slog.String("topic", topic),
			slog.String("mqAll", queueIDs(mqAll)), slog.String("mqDivided", queueIDs(mqDivided)))
	}
	if l := r.c.messageQueueListener(); l != nil {
		l.MessageQueueChanged(topic, mqAll, mqDivided)
	}
}

// RemoveUnnecessaryMessageQueue persists and forgets the queue's offset.
// Java: RebalanceLitePullImpl#removeUnnecessaryMessageQueue.
func (r *rebalanceLitePull) RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, _ *ProcessQueue) bool {
	r.c.offsets.Persist(mq)
	r.c.offsets.RemoveOffset(mq)
	return true
}

// RemoveDirtyOffset forgets the in-memory offset. Java: RebalanceLitePullImpl#removeDirtyOffset.
func (r *rebalanceLitePull) RemoveDirtyOffset(mq primitive.MessageQueue) {
	r.c.offsets.RemoveOffset(mq)
}

// ComputePullFromWhere is the push consumer's rule (startOffset.compute).
// Java: RebalanceLitePullImpl#computePullFromWhere.
func (r *rebalanceLitePull) ComputePullFromWhere(mq primitive.MessageQueue) int64 {
	return r.c.startOffset().compute(mq)
}

// DispatchPullRequest does nothing: the pull tasks pull. Java: RebalanceLitePullImpl#dispatchPullRequest.
func (r *rebalanceLitePull) DispatchPullRequest([]*PullRequest) {}
