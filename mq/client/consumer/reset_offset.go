package consumer

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// resetOffsetSettle is how long ResetOffset waits, with the queues dropped, before it writes
// the new offsets: a consume that passed its dropped check just before the drop may still
// commit its old offset in that time. Java waits 10 s (MQClientInstance#resetOffset).
const resetOffsetSettle = 200 * time.Millisecond

// ResetOffset moves the consumer's queues of topic to offsets (ConsumeQueue units), as an
// admin's resetOffsetByTime asks through the broker: pulling pauses, the ProcessQueues of the
// topic are dropped (messages held are not consumed), each offset is set, persisted to the
// broker and forgotten with its queue, and pulling resumes; the next rebalance assigns the
// queues afresh and pulls from the new offsets. Java: MQClientInstance#resetOffset.
//
// Deviation: the settle wait is 200 ms instead of Java's 10 s.
func (c *DefaultMQPushConsumer) ResetOffset(topic string, offsets map[primitive.MessageQueue]int64) {
	if c.rebalance == nil {
		return
	}
	c.Suspend()
	defer c.Resume()
	mqs, pqs := c.rebalance.ProcessQueues()
	for i, mq := range mqs {
		if mq.Topic == topic {
			pqs[i].SetDropped(true)
		}
	}
	time.Sleep(resetOffsetSettle)
	for mq, offset := range offsets {
		c.offsets.UpdateOffset(mq, offset, false)
		c.offsets.Persist(mq)
		c.rebalance.RemoveProcessQueue(mq)
		c.offsets.RemoveOffset(mq) // a queue another consumer holds
	}
	c.log.Info("reset offset done", "group", c.cfg.ConsumerGroup, "topic", topic, "queues", len(offsets))
}
