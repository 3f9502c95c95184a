//go:build ex_ch02

package producer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// SelectOneMessageQueue picks the queue of one attempt; lastBrokerName is the broker of the
// previous failed attempt ("" for the first).
//
// Off: TopicPublishInfo.SelectOneMessageQueue(lastBrokerName).
// On: starting after the round-robin index, the first queue whose broker IsAvailable. If none,
// pickOneAtLeast's broker, if the route gives it writable queues, with queue id
// (next index) % writeQueueNums — else that broker's fault item is removed and the plain next
// queue is taken. Note that lastBrokerName plays no part when on (4.9.x).
// ok is false only for an empty route. Java: MQFaultStrategy#selectOneMessageQueue.
func (s *MQFaultStrategy) SelectOneMessageQueue(tp *client.TopicPublishInfo, lastBrokerName string) (primitive.MessageQueue, bool) {
	// Hint: log the step "MQFaultStrategy#selectOneMessageQueue" first (sendLatencyFaultEnable,
	// lastBrokerName or "none", queues). With the fault tolerance off, the route's own round robin
	// answers: tp.SelectOneMessageQueue(lastBrokerName). On: take index =
	// tp.SendWhichQueue.IncrementAndGet() and try each of the n queues from abs32(index) % n on;
	// the first whose broker s.latencyFaultTolerance.IsAvailable wins. When none is, ask
	// PickOneAtLeast for the least bad broker: if the route has write queues on it, send there with
	// queue id tp.SendWhichQueue.IncrementAndGet() % writeQueueNums; else Remove its fault item and
	// fall back to tp.SelectOneMessageQueue(""). ok is false only for an empty route.
	panic(exercise.NotImplemented("ch02", "tutorial/ch02-producer.md §MQFaultStrategy#selectOneMessageQueue",
		"write MQFaultStrategy.SelectOneMessageQueue (mq/client/producer/select_one_message_queue_stub.go): round robin, skipping brokers the fault table holds unavailable"))
}
