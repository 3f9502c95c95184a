//go:build !ex_ch02

package producer

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
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
	on := s.sendLatencyFaultEnable.Load()
	if s.tr.Enabled() {
		s.tr.Step("MQFaultStrategy#selectOneMessageQueue", slog.Bool("sendLatencyFaultEnable", on),
			slog.String("lastBrokerName", orNone(lastBrokerName)), slog.Int("queues", len(tp.MessageQueueList)))
	}
	if !on {
		return tp.SelectOneMessageQueue(lastBrokerName)
	}
	list := tp.MessageQueueList
	n := int32(len(list))
	if n == 0 {
		return primitive.MessageQueue{}, false
	}
	index := tp.SendWhichQueue.IncrementAndGet()
	for range n {
		pos := abs32(index) % n
		index++
		if pos < 0 {
			pos = 0
		}
		if mq := list[pos]; s.latencyFaultTolerance.IsAvailable(mq.BrokerName) {
			return mq, true
		}
	}
	notBestBroker := s.latencyFaultTolerance.PickOneAtLeast()
	if writeQueueNums := tp.GetQueueIDByBroker(notBestBroker); writeQueueNums > 0 {
		mq, _ := tp.SelectOneMessageQueue("")
		if notBestBroker != "" {
			return primitive.MessageQueue{Topic: mq.Topic, BrokerName: notBestBroker,
				QueueID: tp.SendWhichQueue.IncrementAndGet() % writeQueueNums}, true
		}
		return mq, true
	}
	s.latencyFaultTolerance.Remove(notBestBroker)
	return tp.SelectOneMessageQueue("")
}
