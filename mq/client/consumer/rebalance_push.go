package consumer

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// rebalancePush is the push consumer's part of a rebalance.
// Mirrors org.apache.rocketmq.client.impl.consumer.RebalancePushImpl.
type rebalancePush struct {
	c *DefaultMQPushConsumer
}

// ConsumeType is CONSUME_PASSIVELY. Java: RebalancePushImpl#consumeType.
func (r *rebalancePush) ConsumeType() protocol.ConsumeType { return protocol.ConsumePassively }

// MessageQueueChanged tells the brokers at once (a heartbeat). Java: RebalancePushImpl#messageQueueChanged.
func (r *rebalancePush) MessageQueueChanged(string, []primitive.MessageQueue, []primitive.MessageQueue) {
	r.c.instance.SendHeartbeatToAllBrokerWithLock()
}

// RemoveUnnecessaryMessageQueue persists and forgets the queue's offset; an orderly consumer
// (CLUSTERING) then releases the broker lock once no batch holds the consume lock
// (Rebalance.removeOrderlyQueue). Java: RebalancePushImpl#removeUnnecessaryMessageQueue.
func (r *rebalancePush) RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, pq *ProcessQueue) bool {
	r.c.offsets.Persist(mq)
	r.c.offsets.RemoveOffset(mq)
	if r.c.consumeOrderly() && r.c.cfg.MessageModel == protocol.Clustering {
		return r.c.rebalance.removeOrderlyQueue(mq, pq, r.c.cfg.UnlockDelayTime, r.c.orderlyLater)
	}
	return true
}

// RemoveDirtyOffset forgets the in-memory offset. Java: RebalancePushImpl#removeDirtyOffset.
func (r *rebalancePush) RemoveDirtyOffset(mq primitive.MessageQueue) {
	r.c.offsets.RemoveOffset(mq)
}

// ComputePullFromWhere returns a new queue's first offset by the consumer's ConsumeFromWhere
// and ConsumeTimestamp (see startOffset.compute). Java: RebalancePushImpl#computePullFromWhere.
func (r *rebalancePush) ComputePullFromWhere(mq primitive.MessageQueue) int64 {
	c := r.c
	return startOffset{instance: c.instance, offsets: c.offsets, from: c.cfg.ConsumeFromWhere,
		timestamp: c.cfg.ConsumeTimestamp, now: c.now}.compute(mq)
}

// DispatchPullRequest queues each new queue's first pull. Java: RebalancePushImpl#dispatchPullRequest.
func (r *rebalancePush) DispatchPullRequest(reqs []*PullRequest) {
	for _, req := range reqs {
		if tr := r.c.instance.Tracer(); tr.Enabled() {
			tr.Step("RebalancePushImpl#dispatchPullRequest", slog.String("topic", req.MessageQueue.Topic),
				slog.String("brokerName", req.MessageQueue.BrokerName), slog.Int("queueId", int(req.MessageQueue.QueueID)),
				slog.Int64("nextOffset", req.NextOffset()))
		}
		r.c.pull.ExecutePullRequestImmediately(req)
	}
}
