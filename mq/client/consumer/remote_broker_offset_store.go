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
// QUERY_CONSUMER_OFFSET. Pulls also carry the memory offset (the commitOffset flag). Offset
// requests go to the queue's master, or to its slave while the master is not in the route.
// A chapter persists once by hand with the push consumer's PersistConsumerOffset (or
// OffsetStore().PersistAll(queues)) after refreshing the route
// (MQClientInstance#UpdateTopicRouteInfoFromNameServer) so it sees the master gone or back.
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

// brokerAddr picks the broker of mq's offset requests: its master, or — the master not in
// the route — a slave (the route refreshed once first). Java: the broker choice of
// RemoteBrokerOffsetStore#updateConsumeOffsetToBroker and #fetchConsumeOffsetFromBroker.
func (s *RemoteBrokerOffsetStore) brokerAddr(mq primitive.MessageQueue) (client.FindBrokerResult, error) {
	r, ok := s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, true)
	if !ok {
		s.instance.UpdateTopicRouteInfoFromNameServer(mq.Topic)
		r, ok = s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, false)
	}
	if !ok {
		return client.FindBrokerResult{}, fmt.Errorf("%w: %s", client.ErrBrokerNotExist, mq.BrokerName)
	}
	return r, nil
}

func (s *RemoteBrokerOffsetStore) fetchConsumeOffsetFromBroker(mq primitive.MessageQueue) (int64, bool, error) {
	fr, err := s.brokerAddr(mq)
	if err != nil {
		return 0, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	h := protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID, BrokerName: mq.BrokerName}
	return s.instance.MQClientAPI().QueryConsumerOffset(ctx, fr.BrokerAddr, &h)
}

// PersistAll sends the memory offset of each of mqs to its broker (oneway); queues in memory
// but no longer held are forgotten. The step, logged first, lists the offsets it sends; each
// send is an updateConsumeOffsetToBroker step of its own. Java: RemoteBrokerOffsetStore#persistAll.
func (s *RemoteBrokerOffsetStore) PersistAll(mqs []primitive.MessageQueue) {
	if len(mqs) == 0 {
		return
	}
	held := map[primitive.MessageQueue]bool{}
	for _, q := range mqs {
		held[q] = true
	}
	table := s.table.clone("")
	var send []primitive.MessageQueue
	for _, q := range sortedQueues(table) {
		if held[q] {
			send = append(send, q)
		}
	}
	if s.tr.Enabled() {
		s.tr.Step("RemoteBrokerOffsetStore#persistAll", slog.String("group", s.group), slog.String("offsets", formatOffsets(send, table)))
	}
	for _, q := range send {
		if err := s.updateConsumeOffsetToBroker(q, table[q], true); err != nil {
			s.instance.Logger().Error("updateConsumeOffsetToBroker exception", "mq", q.String(), "err", err)
		}
	}
	for q := range table {
		if !held[q] {
			s.table.remove(q)
		}
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

// UpdateConsumeOffsetToBroker sends UPDATE_CONSUMER_OFFSET for mq (offset in ConsumeQueue
// units), oneway or waiting for the answer, to mq's master — or, when the master is not in the
// route (down), to its slave, which keeps it (its SlaveSynchronize later puts the master's
// table over it). The step names where it went (slave) and whether it was sent.
// Java: RemoteBrokerOffsetStore#updateConsumeOffsetToBroker.
func (s *RemoteBrokerOffsetStore) UpdateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	return s.updateConsumeOffsetToBroker(mq, offset, oneway)
}

func (s *RemoteBrokerOffsetStore) updateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	fr, err := s.brokerAddr(mq)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
		h := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID,
			CommitOffset: offset, BrokerName: mq.BrokerName}
		err = s.instance.MQClientAPI().UpdateConsumerOffset(ctx, fr.BrokerAddr, &h, oneway)
		cancel()
	}
	if s.tr.Enabled() {
		s.tr.Step("RemoteBrokerOffsetStore#updateConsumeOffsetToBroker", slog.String("topic", mq.Topic),
			slog.String("brokerName", mq.BrokerName), slog.Int("queueId", int(mq.QueueID)), slog.Int64("offset", offset),
			slog.Bool("slave", fr.Slave), slog.Bool("oneway", oneway), slog.Bool("sent", err == nil))
	}
	return err
}

// RemoveOffset forgets mq. Java: RemoteBrokerOffsetStore#removeOffset.
func (s *RemoteBrokerOffsetStore) RemoveOffset(mq primitive.MessageQueue) { s.table.remove(mq) }

// CloneOffsetTable returns topic's memory offsets ("" = all).
func (s *RemoteBrokerOffsetStore) CloneOffsetTable(topic string) map[primitive.MessageQueue]int64 {
	return s.table.clone(topic)
}
