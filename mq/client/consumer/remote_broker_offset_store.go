package consumer

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// RemoteBrokerOffsetStore keeps a clustering group's offsets in memory and on the queue's
// broker: UpdateOffset changes memory; PersistAll (every PersistConsumerOffsetInterval, 5 s)
// sends UPDATE_CONSUMER_OFFSET oneway for every held queue; ReadOffset(ReadFromStore) asks
// QUERY_CONSUMER_OFFSET. Pulls also carry the memory offset (the commitOffset flag).
// Mirrors org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore.
type RemoteBrokerOffsetStore struct {
	instance *client.MQClientInstance
	group    string
	tr       *trace.Tracer
	table    offsetTable
}

// NewRemoteBrokerOffsetStore returns the store of group over instance.
func NewRemoteBrokerOffsetStore(instance *client.MQClientInstance, group string) *RemoteBrokerOffsetStore {
	return &RemoteBrokerOffsetStore{instance: instance, group: group, tr: instance.Tracer()}
}

// Load does nothing: the broker holds the offsets. Java: RemoteBrokerOffsetStore#load.
func (s *RemoteBrokerOffsetStore) Load() error { return nil }

// UpdateOffset sets mq's offset in memory. Java: RemoteBrokerOffsetStore#updateOffset.
func (s *RemoteBrokerOffsetStore) UpdateOffset(mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	s.table.updateTraced(s.tr, "RemoteBrokerOffsetStore#updateOffset", mq, offset, increaseOnly)
}

// ReadOffset reads memory and/or the broker; -1 when nothing is known, -2 when the broker
// could not be asked. Java: RemoteBrokerOffsetStore#readOffset.
func (s *RemoteBrokerOffsetStore) ReadOffset(mq primitive.MessageQueue, t ReadOffsetType) int64 {
	if v, ok := s.table.readMemory(mq, t); ok {
		return v
	}
	v, found, err := s.fetchConsumeOffsetFromBroker(mq)
	if err != nil {
		s.instance.Logger().Warn("fetchConsumeOffsetFromBroker exception", "mq", mq.String(), "err", err)
		return -2
	}
	if !found {
		return -1
	}
	s.table.update(mq, v, false)
	return v
}

func (s *RemoteBrokerOffsetStore) brokerAddr(mq primitive.MessageQueue) (string, error) {
	r, ok := s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, true)
	if !ok {
		s.instance.UpdateTopicRouteInfoFromNameServer(mq.Topic)
		r, ok = s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, false)
	}
	if !ok {
		return "", fmt.Errorf("%w: %s", client.ErrBrokerNotExist, mq.BrokerName)
	}
	return r.BrokerAddr, nil
}

func (s *RemoteBrokerOffsetStore) fetchConsumeOffsetFromBroker(mq primitive.MessageQueue) (int64, bool, error) {
	addr, err := s.brokerAddr(mq)
	if err != nil {
		return 0, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	h := protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID, BrokerName: mq.BrokerName}
	return s.instance.MQClientAPI().QueryConsumerOffset(ctx, addr, &h)
}

// PersistAll sends the memory offset of each of mqs to its broker (oneway); queues in memory
// but no longer held are forgotten. Java: RemoteBrokerOffsetStore#persistAll.
func (s *RemoteBrokerOffsetStore) PersistAll(mqs []primitive.MessageQueue) {
	if len(mqs) == 0 {
		return
	}
	held := map[primitive.MessageQueue]bool{}
	for _, q := range mqs {
		held[q] = true
	}
	table := s.table.clone("")
	var sent []primitive.MessageQueue
	for _, q := range sortedQueues(table) {
		if !held[q] {
			continue
		}
		if err := s.updateConsumeOffsetToBroker(q, table[q], true); err != nil {
			s.instance.Logger().Error("updateConsumeOffsetToBroker exception", "mq", q.String(), "err", err)
			continue
		}
		sent = append(sent, q)
	}
	for q := range table {
		if !held[q] {
			s.table.remove(q)
		}
	}
	if s.tr.Enabled() {
		s.tr.Step("RemoteBrokerOffsetStore#persistAll", slog.String("group", s.group), slog.String("offsets", formatOffsets(sent, table)))
	}
}

// Persist sends one queue's memory offset. Java: RemoteBrokerOffsetStore#persist.
func (s *RemoteBrokerOffsetStore) Persist(mq primitive.MessageQueue) {
	if v, ok := s.table.get(mq); ok {
		if err := s.updateConsumeOffsetToBroker(mq, v, true); err != nil {
			s.instance.Logger().Error("updateConsumeOffsetToBroker exception", "mq", mq.String(), "err", err)
		}
	}
}

// UpdateConsumeOffsetToBroker sends UPDATE_CONSUMER_OFFSET (oneway or waiting).
// Java: RemoteBrokerOffsetStore#updateConsumeOffsetToBroker.
func (s *RemoteBrokerOffsetStore) UpdateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	return s.updateConsumeOffsetToBroker(mq, offset, oneway)
}

func (s *RemoteBrokerOffsetStore) updateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	addr, err := s.brokerAddr(mq)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	h := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID,
		CommitOffset: offset, BrokerName: mq.BrokerName}
	return s.instance.MQClientAPI().UpdateConsumerOffset(ctx, addr, &h, oneway)
}

// RemoveOffset forgets mq. Java: RemoteBrokerOffsetStore#removeOffset.
func (s *RemoteBrokerOffsetStore) RemoveOffset(mq primitive.MessageQueue) { s.table.remove(mq) }

// CloneOffsetTable returns topic's memory offsets ("" = all).
func (s *RemoteBrokerOffsetStore) CloneOffsetTable(topic string) map[primitive.MessageQueue]int64 {
	return s.table.clone(topic)
}
