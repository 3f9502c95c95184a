package client

import (
	"log/slog"
	"math/rand/v2"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// positiveMask clears the sign bit of a round-robin index (Java ThreadLocalIndex.POSITIVE_MASK).
const positiveMask = 0x7FFFFFFF

// ThreadLocalIndex is a round-robin counter: IncrementAndGet returns the next value with the
// sign bit cleared, starting after a random (or seeded) value.
// Mirrors org.apache.rocketmq.client.common.ThreadLocalIndex.
//
// Deviation: Java keeps one counter per thread (each starting at a random value); Go has no
// thread locals, so all goroutines share one atomic counter. Sends of one goroutine still walk
// the queues in order; sends of many goroutines interleave on one sequence, which spreads them
// at least as evenly.
type ThreadLocalIndex struct {
	v atomic.Int32
}

// NewThreadLocalIndex returns an index whose first IncrementAndGet is (seed+1) & 0x7FFFFFFF.
func NewThreadLocalIndex(seed int32) *ThreadLocalIndex {
	i := &ThreadLocalIndex{}
	i.v.Store(seed)
	return i
}

// IncrementAndGet advances the index and returns it, never negative.
// Java: ThreadLocalIndex#incrementAndGet (Math.abs(index & POSITIVE_MASK)).
func (i *ThreadLocalIndex) IncrementAndGet() int32 {
	return i.v.Add(1) & positiveMask
}

// Get returns the current value (sign bit cleared) without advancing.
func (i *ThreadLocalIndex) Get() int32 { return i.v.Load() & positiveMask }

// randomSeed is Java's start value: Math.abs(random.nextInt()).
func randomSeed() int32 { return rand.Int32N(positiveMask) }

// TopicPublishInfo is the producer's view of a topic's route: the writable queues of every
// master, in the order RocketMQ builds them (queue data sorted by broker name, queue ids 0..n-1
// per broker), and the round-robin index that walks them.
// Mirrors org.apache.rocketmq.client.impl.producer.TopicPublishInfo.
//
// A TopicPublishInfo is immutable once published (MQClientInstance builds a new one on every
// route change), except SendWhichQueue, which is atomic: it is safe for concurrent use.
type TopicPublishInfo struct {
	// OrderTopic is true when the route came from the name server's orderTopicConf.
	OrderTopic bool
	// HaveTopicRouterInfo is true for a route fetched from a name server (false for the empty
	// placeholder a first send puts in the table).
	HaveTopicRouterInfo bool
	// MessageQueueList holds the writable queues.
	MessageQueueList []primitive.MessageQueue
	// SendWhichQueue is the round-robin index over MessageQueueList.
	SendWhichQueue *ThreadLocalIndex
	// TopicRouteData is the route this info was built from (nil for a placeholder).
	TopicRouteData *protocol.TopicRouteData

	tr *trace.Tracer
}

// NewTopicPublishInfo returns an empty placeholder (no queues, no route) with a random index.
func NewTopicPublishInfo() *TopicPublishInfo {
	return &TopicPublishInfo{SendWhichQueue: NewThreadLocalIndex(randomSeed())}
}

// OK reports whether there is at least one queue to send to. Java: TopicPublishInfo#ok.
func (t *TopicPublishInfo) OK() bool { return t != nil && len(t.MessageQueueList) > 0 }

// SelectOneMessageQueue picks the next queue round-robin. With lastBrokerName set (a retry
// after a failure on that broker) it walks at most one round looking for a queue on another
// broker and falls back to the plain next queue when every queue is on lastBrokerName. ok is
// false only for an empty list (callers check OK first).
// Java: TopicPublishInfo#selectOneMessageQueue(String) and #selectOneMessageQueue().
func (t *TopicPublishInfo) SelectOneMessageQueue(lastBrokerName string) (mq primitive.MessageQueue, ok bool) {
	n := int32(len(t.MessageQueueList))
	if n == 0 {
		return primitive.MessageQueue{}, false
	}
	if lastBrokerName != "" {
		for range n {
			index := t.SendWhichQueue.IncrementAndGet()
			mq = t.MessageQueueList[index%n]
			if mq.BrokerName != lastBrokerName {
				t.traceSelect(lastBrokerName, index, mq)
				return mq, true
			}
		}
	}
	index := t.SendWhichQueue.IncrementAndGet()
	mq = t.MessageQueueList[index%n]
	t.traceSelect(lastBrokerName, index, mq)
	return mq, true
}

func (t *TopicPublishInfo) traceSelect(lastBrokerName string, index int32, mq primitive.MessageQueue) {
	if t.tr.Enabled() {
		t.tr.Step("TopicPublishInfo#selectOneMessageQueue", slog.String("lastBrokerName", orNone(lastBrokerName)),
			slog.Int("index", int(index)), slog.Int("queues", len(t.MessageQueueList)),
			slog.String("brokerName", mq.BrokerName), slog.Int("queueId", int(mq.QueueID)))
	}
}

// GetQueueIDByBroker returns the writeQueueNums of brokerName's writable queue data in the
// route, -1 when the broker has none. Java: TopicPublishInfo#getQueueIdByBroker.
func (t *TopicPublishInfo) GetQueueIDByBroker(brokerName string) int32 {
	if t == nil || t.TopicRouteData == nil {
		return -1
	}
	for _, qd := range t.TopicRouteData.QueueDatas {
		if protocol.IsWriteable(qd.Perm) && qd.BrokerName == brokerName {
			return qd.WriteQueueNums
		}
	}
	return -1
}

// Tracer is the tracer the info logs its selections to (the instance's).
func (t *TopicPublishInfo) Tracer() *trace.Tracer { return t.tr }

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
