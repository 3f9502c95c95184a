package consumer

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// RebalanceHooks are the parts of a rebalance that differ by consumer kind: the push consumer's
// (rebalancePush, Java's RebalancePushImpl) and, later, the lite pull consumer's (Java's
// RebalanceLitePullImpl). Rebalance itself holds no push-only step: what to do with a new or a
// lost queue, and whether an idle queue is dropped, is asked here.
// Mirrors the abstract methods of org.apache.rocketmq.client.impl.consumer.RebalanceImpl.
type RebalanceHooks interface {
	// ConsumeType is CONSUME_PASSIVELY (push: a queue not pulled for PullMaxIdleTime is dropped
	// and assigned afresh) or CONSUME_ACTIVELY (pull: the application decides when to pull).
	// Java: RebalanceImpl#consumeType.
	ConsumeType() protocol.ConsumeType
	// MessageQueueChanged is told a topic's assignment changed.
	MessageQueueChanged(topic string, mqAll, mqDivided []primitive.MessageQueue)
	// RemoveUnnecessaryMessageQueue persists and forgets a queue taken away; false keeps it.
	RemoveUnnecessaryMessageQueue(mq primitive.MessageQueue, pq *ProcessQueue) bool
	// ComputePullFromWhere returns the first offset to pull of a newly assigned queue, in
	// ConsumeQueue units (< 0: skip it this time).
	ComputePullFromWhere(mq primitive.MessageQueue) int64
	// DispatchPullRequest starts pulling the new queues (a lite pull consumer ignores it).
	DispatchPullRequest(reqs []*PullRequest)
	// RemoveDirtyOffset forgets a stale in-memory offset of a queue about to be added.
	RemoveDirtyOffset(mq primitive.MessageQueue)
}

// Rebalance is a consumer's queue assignment: the readable queues of each subscribed topic
// (from routes), the subscriptions, and the ProcessQueue of each queue assigned now.
// DoRebalance recomputes it: in CLUSTERING the group's members, as the broker lists them,
// share the queues through the allocation strategy; in BROADCASTING every member takes every
// queue. What differs between consumer kinds is asked of Hooks.
// Mirrors org.apache.rocketmq.client.impl.consumer.RebalanceImpl (abstract in Java; here one
// struct and the RebalanceHooks interface).
//
// mu guards the three tables; no lock is held while hooks or the broker are called. passMu is
// held for a whole DoRebalance pass and guards stopped (see Stop): the passes of one consumer
// run one at a time, and a pass takes no other lock of the consumer's before passMu.
type Rebalance struct {
	Group        string
	MessageModel protocol.MessageModel
	Strategy     AllocateMessageQueueStrategy
	Instance     *client.MQClientInstance
	Hooks        RebalanceHooks

	passMu  sync.Mutex
	stopped bool

	mu                      sync.Mutex
	processQueueTable       map[primitive.MessageQueue]*ProcessQueue
	topicSubscribeInfoTable map[string][]primitive.MessageQueue
	subscriptionInner       map[string]*protocol.SubscriptionData
}

// RemoveProcessQueue forgets mq: its ProcessQueue leaves the table and is marked dropped, and
// the consumer persists and forgets the queue's offset, so the next rebalance assigns the queue
// afresh. Java: RebalanceImpl#removeProcessQueue (used after OFFSET_ILLEGAL).
func (r *Rebalance) RemoveProcessQueue(mq primitive.MessageQueue) {
	r.mu.Lock()
	pq, ok := r.processQueueTable[mq]
	delete(r.processQueueTable, mq)
	r.mu.Unlock()
	if ok {
		pq.SetDropped(true)
		r.Hooks.RemoveUnnecessaryMessageQueue(mq, pq)
	}
}

// NewRebalance returns an empty rebalance state.
func NewRebalance(group string, model protocol.MessageModel, strategy AllocateMessageQueueStrategy,
	instance *client.MQClientInstance, hooks RebalanceHooks) *Rebalance {
	return &Rebalance{Group: group, MessageModel: model, Strategy: strategy, Instance: instance, Hooks: hooks,
		processQueueTable:       map[primitive.MessageQueue]*ProcessQueue{},
		topicSubscribeInfoTable: map[string][]primitive.MessageQueue{},
		subscriptionInner:       map[string]*protocol.SubscriptionData{},
	}
}

// PutSubscription records a subscription (Java: subscriptionInner.put).
func (r *Rebalance) PutSubscription(sd *protocol.SubscriptionData) {
	r.mu.Lock()
	r.subscriptionInner[sd.Topic] = sd
	r.mu.Unlock()
}

// Subscription returns topic's subscription (nil if none).
func (r *Rebalance) Subscription(topic string) *protocol.SubscriptionData {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.subscriptionInner[topic]
}

// Subscriptions returns the subscriptions in topic order.
func (r *Rebalance) Subscriptions() []*protocol.SubscriptionData {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*protocol.SubscriptionData, 0, len(r.subscriptionInner))
	for _, t := range slices.Sorted(maps.Keys(r.subscriptionInner)) {
		out = append(out, r.subscriptionInner[t])
	}
	return out
}

// HeartbeatSubscriptions returns copies of the subscriptions in topic order, what a heartbeat
// carries (nil for a nil Rebalance: a consumer not started). Serves both consumers'
// MQConsumerInner.Subscriptions.
func (r *Rebalance) HeartbeatSubscriptions() []protocol.SubscriptionData {
	if r == nil {
		return nil
	}
	var out []protocol.SubscriptionData
	for _, sd := range r.Subscriptions() {
		out = append(out, *sd)
	}
	return out
}

// UpdateTopicSubscribeInfo installs a refreshed route's readable queues of a subscribed topic
// (others are ignored; a nil Rebalance ignores all). Serves MQConsumerInner.UpdateTopicSubscribeInfo.
func (r *Rebalance) UpdateTopicSubscribeInfo(topic string, info []primitive.MessageQueue) {
	if r != nil && r.Subscription(topic) != nil {
		r.SetTopicSubscribeInfo(topic, info)
	}
}

// IsSubscribeTopicNeedUpdate reports a subscribed topic without queues yet.
// Serves MQConsumerInner.IsSubscribeTopicNeedUpdate.
func (r *Rebalance) IsSubscribeTopicNeedUpdate(topic string) bool {
	if r == nil || r.Subscription(topic) == nil {
		return false
	}
	_, ok := r.TopicSubscribeInfo(topic)
	return !ok
}

// SetTopicSubscribeInfo installs a topic's readable queues.
func (r *Rebalance) SetTopicSubscribeInfo(topic string, mqs []primitive.MessageQueue) {
	r.mu.Lock()
	r.topicSubscribeInfoTable[topic] = mqs
	r.mu.Unlock()
}

// TopicSubscribeInfo returns a topic's readable queues (nil if unknown).
func (r *Rebalance) TopicSubscribeInfo(topic string) ([]primitive.MessageQueue, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q, ok := r.topicSubscribeInfoTable[topic]
	return slices.Clone(q), ok
}

// ProcessQueues returns the assigned queues and their ProcessQueues, sorted.
func (r *Rebalance) ProcessQueues() ([]primitive.MessageQueue, []*ProcessQueue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mqs := slices.Collect(maps.Keys(r.processQueueTable))
	SortMessageQueues(mqs)
	pqs := make([]*ProcessQueue, len(mqs))
	for i, q := range mqs {
		pqs[i] = r.processQueueTable[q]
	}
	return mqs, pqs
}

// DoRebalance reassigns the queues of every subscribed topic, then drops queues of topics no
// longer subscribed; after Stop it does nothing. Java: RebalanceImpl#doRebalance.
func (r *Rebalance) DoRebalance(isOrder bool) {
	r.passMu.Lock()
	defer r.passMu.Unlock()
	if r.stopped {
		return
	}
	subs := r.Subscriptions()
	if tr := r.Instance.Tracer(); tr.Enabled() {
		tr.Step("RebalanceImpl#doRebalance", slog.String("group", r.Group), slog.String("messageModel", string(r.MessageModel)),
			slog.Int("topics", len(subs)), slog.Bool("isOrder", isOrder))
	}
	for _, sd := range subs {
		r.rebalanceByTopic(sd.Topic, isOrder)
	}
	r.truncateMessageQueueNotMyTopic()
}

// rebalanceByTopic computes this consumer's share of topic. Java: RebalanceImpl#rebalanceByTopic.
func (r *Rebalance) rebalanceByTopic(topic string, isOrder bool) {
	mqSet, ok := r.TopicSubscribeInfo(topic)
	tr := r.Instance.Tracer()
	if r.MessageModel == protocol.Broadcasting {
		if tr.Enabled() {
			tr.Step("RebalanceImpl#rebalanceByTopic", slog.String("topic", topic), slog.String("messageModel", string(r.MessageModel)),
				slog.Int("mqAll", len(mqSet)))
		}
		if !ok {
			r.Instance.Logger().Warn("doRebalance, but the topic has no queues", "group", r.Group, "topic", topic)
			return
		}
		SortMessageQueues(mqSet)
		if r.updateProcessQueueTableInRebalance(topic, mqSet, isOrder) {
			r.Hooks.MessageQueueChanged(topic, mqSet, mqSet)
		}
		return
	}
	cidAll, err := r.Instance.FindConsumerIDList(topic, r.Group)
	if tr.Enabled() {
		tr.Step("RebalanceImpl#rebalanceByTopic", slog.String("topic", topic), slog.String("messageModel", string(r.MessageModel)),
			slog.Int("mqAll", len(mqSet)), slog.Int("cidAll", len(cidAll)))
	}
	if !ok {
		if !protocol.IsRetryTopic(topic) {
			r.Instance.Logger().Warn("doRebalance, but the topic has no queues", "group", r.Group, "topic", topic)
		}
		return
	}
	if err != nil || len(cidAll) == 0 {
		r.Instance.Logger().Warn("doRebalance, get consumer id list failed", "group", r.Group, "topic", topic, "err", err)
		return
	}
	SortMessageQueues(mqSet)
	slices.Sort(cidAll)
	allocated := r.Strategy.Allocate(r.Group, r.Instance.ClientID(), mqSet, cidAll)
	if r.updateProcessQueueTableInRebalance(topic, allocated, isOrder) {
		r.Instance.Logger().Info("rebalanced result changed", "group", r.Group, "topic", topic, "clientId", r.Instance.ClientID(),
			"mqAllSize", len(mqSet), "cidAllSize", len(cidAll), "rebalanceResultSize", len(allocated))
		r.Hooks.MessageQueueChanged(topic, mqSet, allocated)
	}
}

// updateProcessQueueTableInRebalance drops the ProcessQueues of topic's queues not in mqSet
// (and, for a push consumer, those whose pulls stopped): each is marked dropped first (its pull
// loop stops at the next pull, its consume requests no longer commit progress), then
// RemoveUnnecessaryMessageQueue persists its offset to the broker and forgets it, so the member
// that gets the queue next starts where this one stopped. It creates a ProcessQueue, with a
// PullRequest at ComputePullFromWhere's offset, for each new queue; the new requests are
// dispatched. It reports whether the table changed; the step lists the queues assigned, added
// and removed. Java: RebalanceImpl#updateProcessQueueTableInRebalance.
func (r *Rebalance) updateProcessQueueTableInRebalance(topic string, mqSet []primitive.MessageQueue, isOrder bool) bool {
	changed := false
	want := map[primitive.MessageQueue]bool{}
	for _, q := range mqSet {
		want[q] = true
	}
	now := r.Instance.Now()
	r.mu.Lock()
	held := map[primitive.MessageQueue]*ProcessQueue{}
	for q, pq := range r.processQueueTable {
		if q.Topic == topic {
			held[q] = pq
		}
	}
	r.mu.Unlock()
	var removed []primitive.MessageQueue
	for _, q := range sortedPQKeys(held) {
		pq := held[q]
		// A push consumer's queue nobody pulled for PullMaxIdleTime is dropped too (its pull
		// loop lost it); a pull consumer pulls when the application says.
		drop := !want[q] || (r.Hooks.ConsumeType() == protocol.ConsumePassively && pq.IsPullExpired(now))
		if !drop {
			continue
		}
		pq.SetDropped(true)
		if r.Hooks.RemoveUnnecessaryMessageQueue(q, pq) {
			r.mu.Lock()
			delete(r.processQueueTable, q)
			r.mu.Unlock()
			changed = true
			removed = append(removed, q)
		}
	}
	var reqs []*PullRequest
	var added []primitive.MessageQueue
	for _, q := range mqSet {
		if _, ok := held[q]; ok && want[q] {
			r.mu.Lock()
			_, still := r.processQueueTable[q]
			r.mu.Unlock()
			if still {
				continue
			}
		}
		if isOrder && !r.Lock(q) { // an orderly consumer pulls only the queues it holds the broker lock of
			r.Instance.Logger().Warn("doRebalance, add a new mq failed, because lock failed", "group", r.Group, "mq", q.String())
			continue
		}
		r.Hooks.RemoveDirtyOffset(q)
		pq := NewProcessQueue(now)
		if isOrder {
			// Deviation: Java 4.9 leaves the new ProcessQueue unlocked until the next lockAll
			// (its first pull waits 3 s); the lock was just granted, so it is marked here.
			pq.SetLocked(true)
			pq.SetLastLockTimestamp(now)
		}
		next := r.Hooks.ComputePullFromWhere(q)
		if next < 0 {
			r.Instance.Logger().Warn("doRebalance, add new mq failed", "group", r.Group, "mq", q.String())
			continue
		}
		r.mu.Lock()
		_, exists := r.processQueueTable[q]
		if !exists {
			r.processQueueTable[q] = pq
		}
		r.mu.Unlock()
		if exists {
			continue
		}
		req := &PullRequest{ConsumerGroup: r.Group, MessageQueue: q, ProcessQueue: pq}
		req.SetNextOffset(next)
		reqs = append(reqs, req)
		added = append(added, q)
		changed = true
	}
	if tr := r.Instance.Tracer(); tr.Enabled() {
		tr.Step("RebalanceImpl#updateProcessQueueTableInRebalance", slog.String("topic", topic),
			slog.String("assigned", queueIDs(mqSet)), slog.String("added", queueIDs(added)),
			slog.String("removed", queueIDs(removed)), slog.Bool("changed", changed))
	}
	if len(reqs) > 0 {
		r.Hooks.DispatchPullRequest(reqs)
	}
	return changed
}

func sortedPQKeys(m map[primitive.MessageQueue]*ProcessQueue) []primitive.MessageQueue {
	qs := slices.Collect(maps.Keys(m))
	SortMessageQueues(qs)
	return qs
}

// truncateMessageQueueNotMyTopic drops queues of topics no longer subscribed.
// Java: RebalanceImpl#truncateMessageQueueNotMyTopic.
func (r *Rebalance) truncateMessageQueueNotMyTopic() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, pq := range r.processQueueTable {
		if _, ok := r.subscriptionInner[q.Topic]; !ok {
			pq.SetDropped(true)
			delete(r.processQueueTable, q)
		}
	}
}

// Stop ends the consumer's rebalancing, the first thing a consumer's Shutdown does: it waits
// for the pass in flight, if any, to finish, and no pass runs after it returns. Shutdown then
// unregisters the group, so every GET_CONSUMER_LIST_BY_GROUP of its passes reaches the broker
// while the consumer is still a member, and the group's only consumer never asks the broker
// about a group the broker has just forgotten (which answers SYSTEM_ERROR "no consumer for this
// group"). Idempotent.
//
// Deviation: Java has no such step. Its shutdown removes the consumer from the instance's
// consumerTable (MQClientInstance#unregisterConsumer), so the next RebalanceService pass skips
// it, but a pass already running (woken by the broker's NOTIFY_CONSUMER_IDS_CHANGED for the
// consumer's own arrival, say) goes on with its topics after the UNREGISTER_CLIENT.
func (r *Rebalance) Stop() {
	r.passMu.Lock()
	r.stopped = true
	r.passMu.Unlock()
}

// DestroyAll drops every queue (consumer shutdown). Java: RebalanceImpl#destroy.
func (r *Rebalance) DestroyAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, pq := range r.processQueueTable {
		pq.SetDropped(true)
		delete(r.processQueueTable, q)
	}
}

// startOffset computes where a newly assigned queue starts, the same way for every consumer
// kind (Java's RebalancePushImpl and RebalanceLitePullImpl#computePullFromWhere agree): the
// committed offset when the store has one; otherwise by from — CONSUME_FROM_LAST_OFFSET: the
// queue's max offset (0 for a retry topic), CONSUME_FROM_FIRST_OFFSET: 0,
// CONSUME_FROM_TIMESTAMP: the offset at timestamp (zero: 30 min before now; the max offset for
// a retry topic). Offsets are ConsumeQueue units; -1 when the store or broker could not be
// asked.
type startOffset struct {
	instance  *client.MQClientInstance
	offsets   OffsetStore
	from      protocol.ConsumeFromWhere
	timestamp time.Time
	now       func() time.Time
}

func (s startOffset) compute(mq primitive.MessageQueue) int64 {
	last := s.offsets.ReadOffset(mq, ReadFromStore)
	if last >= 0 {
		return last
	}
	if last != -1 {
		return -1
	}
	switch s.from {
	case protocol.ConsumeFromFirstOffset:
		return 0
	case protocol.ConsumeFromTimestamp:
		if protocol.IsRetryTopic(mq.Topic) {
			return s.maxOffset(mq)
		}
		ts := s.timestamp
		if ts.IsZero() {
			ts = s.now().Add(-30 * time.Minute)
		}
		addr := s.addr(mq)
		if addr == "" {
			return -1
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
		defer cancel()
		v, err := s.instance.MQClientAPI().SearchOffset(ctx, addr, mq, ts.UnixMilli())
		if err != nil {
			return -1
		}
		return v
	default:
		if protocol.IsRetryTopic(mq.Topic) {
			return 0
		}
		return s.maxOffset(mq)
	}
}

// addr is mq's master address, the route refreshed once if it is unknown ("" if still none).
func (s startOffset) addr(mq primitive.MessageQueue) string {
	a := s.instance.FindBrokerAddressInPublish(mq.BrokerName)
	if a == "" {
		s.instance.UpdateTopicRouteInfoFromNameServer(mq.Topic)
		a = s.instance.FindBrokerAddressInPublish(mq.BrokerName)
	}
	return a
}

// maxOffset asks mq's broker for its max offset (GET_MAX_OFFSET); -1 on failure.
func (s startOffset) maxOffset(mq primitive.MessageQueue) int64 {
	addr := s.addr(mq)
	if addr == "" {
		return -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	v, err := s.instance.MQClientAPI().GetMaxOffset(ctx, addr, mq)
	if err != nil {
		s.instance.Logger().Warn("get max offset failed", "mq", mq.String(), "err", err)
		return -1
	}
	return v
}
