package admin

import (
	"context"
	"errors"
	"maps"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ResetOffsetByTimestamp asks every master of topic's route to reset group's offsets on topic
// to timestamp (ms) (INVOKE_BROKER_TO_RESET_OFFSET, 222): each broker computes the queue
// offsets and pushes them to the group's online consumers (RESET_CONSUMER_CLIENT_OFFSET), which
// then re-consume from there. Without isForce an offset only moves back. It returns the
// offsets set; an error with code CONSUMER_NOT_ONLINE (206) means no consumer of the group is
// connected (ResetOffsetByTimestampOld then does the reset on the brokers alone).
// Java: DefaultMQAdminExt#resetOffsetByTimestamp.
func (a *DefaultMQAdminExt) ResetOffsetByTimestamp(ctx context.Context, topic, group string, timestamp int64, isForce bool) (map[primitive.MessageQueue]int64, error) {
	h := protocol.ResetOffsetRequestHeader{Topic: topic, Group: group, Timestamp: timestamp, IsForce: isForce}
	out := map[primitive.MessageQueue]int64{}
	err := a.askBrokers(ctx, topic, protocol.InvokeBrokerToResetOffset, protocol.EncodeHeader(&h), func(_ string, resp *remoting.RemotingCommand) error {
		body, err := protocol.DecodeResetOffsetBody(resp.Body)
		if err == nil {
			maps.Copy(out, body.OffsetTable)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IsConsumerNotOnline reports whether err is a broker's CONSUMER_NOT_ONLINE (206) answer.
func IsConsumerNotOnline(err error) bool {
	var re *remoting.RemoteError
	return errors.As(err, &re) && re.Code == protocol.ConsumerNotOnline
}

// IsTopicNotExist reports whether err is a name server's TOPIC_NOT_EXIST (17) answer: no broker
// serves the topic's route ("no route info of this topic"). For a group's %RETRY% topic it means
// no broker knows the group.
func IsTopicNotExist(err error) bool {
	var re *remoting.RemoteError
	return errors.As(err, &re) && re.Code == protocol.TopicNotExist
}

// RollbackStats is one queue of ResetOffsetByTimestampOld: the broker's max offset, the
// group's offset before, the offset stored at the timestamp, and the offset set (queue
// offsets, ConsumeQueue units). Mirrors org.apache.rocketmq.common.admin.RollbackStats.
type RollbackStats struct {
	BrokerName      string
	QueueID         int32
	BrokerOffset    int64
	ConsumerOffset  int64
	TimestampOffset int64
	RollbackOffset  int64
}

// ResetOffsetByTimestampOld resets group's offsets on topic to timestamp (ms) on the brokers
// alone, for a group with no consumer online: per queue of GET_CONSUME_STATS it searches the
// offset at the timestamp (SEARCH_OFFSET_BY_TIMESTAMP) and, when isForce or when it is below
// the group's offset, commits it (UPDATE_CONSUMER_OFFSET). Java: DefaultMQAdminExt#resetOffsetByTimestampOld.
func (a *DefaultMQAdminExt) ResetOffsetByTimestampOld(ctx context.Context, group, topic string, timestamp int64, isForce bool) ([]RollbackStats, error) {
	brokers, err := a.brokersOf(ctx, topic)
	if err != nil {
		return nil, err
	}
	var out []RollbackStats
	for _, name := range sortedKeys(brokers) {
		addr := brokers[name]
		h := protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}
		resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.GetConsumeStats, protocol.EncodeHeader(&h), nil))
		if err != nil {
			return nil, err
		}
		cs, err := protocol.DecodeConsumeStats(resp.Body)
		if err != nil {
			return nil, err
		}
		for _, mq := range protocol.SortedQueues(cs.OffsetTable) {
			o := cs.OffsetTable[mq]
			cctx, cancel := a.ctx(ctx)
			at, err := a.api.SearchOffset(cctx, addr, mq, timestamp)
			cancel()
			if err != nil {
				return nil, err
			}
			rs := RollbackStats{BrokerName: mq.BrokerName, QueueID: mq.QueueID, BrokerOffset: o.BrokerOffset,
				ConsumerOffset: o.ConsumerOffset, TimestampOffset: at, RollbackOffset: o.ConsumerOffset}
			if isForce || at < o.ConsumerOffset {
				rs.RollbackOffset = at
				uh := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: mq.QueueID,
					CommitOffset: at, BrokerName: mq.BrokerName}
				cctx, cancel := a.ctx(ctx)
				err := a.api.UpdateConsumerOffset(cctx, addr, &uh, false)
				cancel()
				if err != nil {
					return nil, err
				}
			}
			out = append(out, rs)
		}
	}
	return out, nil
}
