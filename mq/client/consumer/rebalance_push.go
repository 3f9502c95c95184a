package consumer

import (
	"context"
	"log/slog"
	"time"

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

// RemoveUnnecessaryMessageQueue persists and forgets the queue's offset.
// Java: RebalancePushImpl#removeUnnecessaryMessageQueue (the orderly unlock is not built).
func (r *rebalancePush) RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, _ *ProcessQueue) bool {
	r.c.offsets.Persist(mq)
	r.c.offsets.RemoveOffset(mq)
	return true
}

// RemoveDirtyOffset forgets the in-memory offset. Java: RebalancePushImpl#removeDirtyOffset.
func (r *rebalancePush) RemoveDirtyOffset(mq primitive.MessageQueue) {
	r.c.offsets.RemoveOffset(mq)
}

// ComputePullFromWhere returns a new queue's first offset: the committed one when there is
// one; otherwise by ConsumeFromWhere — LAST: the queue's max offset (0 for a retry topic),
// FIRST: 0, TIMESTAMP: the offset at ConsumeTimestamp (max offset for a retry topic).
// -1 when the store could not be asked. Java: RebalancePushImpl#computePullFromWhere.
func (r *rebalancePush) ComputePullFromWhere(mq primitive.MessageQueue) int64 {
	c := r.c
	last := c.offsets.ReadOffset(mq, ReadFromStore)
	if last >= 0 {
		return last
	}
	if last != -1 {
		return -1
	}
	switch c.cfg.ConsumeFromWhere {
	case protocol.ConsumeFromFirstOffset:
		return 0
	case protocol.ConsumeFromTimestamp:
		if protocol.IsRetryTopic(mq.Topic) {
			return r.maxOffset(mq)
		}
		ts := c.cfg.ConsumeTimestamp
		if ts.IsZero() {
			ts = c.now().Add(-30 * time.Minute)
		}
		addr := r.addr(mq)
		if addr == "" {
			return -1
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.instance.Config().MQClientAPITimeout)
		defer cancel()
		v, err := c.instance.MQClientAPI().SearchOffset(ctx, addr, mq, ts.UnixMilli())
		if err != nil {
			return -1
		}
		return v
	default:
		if protocol.IsRetryTopic(mq.Topic) {
			return 0
		}
		return r.maxOffset(mq)
	}
}

func (r *rebalancePush) addr(mq primitive.MessageQueue) string {
	inst := r.c.instance
	a := inst.FindBrokerAddressInPublish(mq.BrokerName)
	if a == "" {
		inst.UpdateTopicRouteInfoFromNameServer(mq.Topic)
		a = inst.FindBrokerAddressInPublish(mq.BrokerName)
	}
	return a
}

func (r *rebalancePush) maxOffset(mq primitive.MessageQueue) int64 {
	addr := r.addr(mq)
	if addr == "" {
		return -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.c.instance.Config().MQClientAPITimeout)
	defer cancel()
	v, err := r.c.instance.MQClientAPI().GetMaxOffset(ctx, addr, mq)
	if err != nil {
		r.c.log.Warn("get max offset failed", "mq", mq.String(), "err", err)
		return -1
	}
	return v
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
