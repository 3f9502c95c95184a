package producer

import (
	"fmt"
	"math/rand/v2"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// MessageQueueSelector chooses the queue of a send from the topic's writable queues, from the
// message and the caller's arg (an order id, a shard key). Returning the zero MessageQueue (empty
// Topic) fails the send. Mirrors org.apache.rocketmq.client.producer.MessageQueueSelector.
type MessageQueueSelector interface {
	Select(mqs []primitive.MessageQueue, msg *primitive.Message, arg any) primitive.MessageQueue
}

// MessageQueueSelectorFunc adapts a function to MessageQueueSelector.
type MessageQueueSelectorFunc func(mqs []primitive.MessageQueue, msg *primitive.Message, arg any) primitive.MessageQueue

// Select calls f.
func (f MessageQueueSelectorFunc) Select(mqs []primitive.MessageQueue, msg *primitive.Message, arg any) primitive.MessageQueue {
	return f(mqs, msg, arg)
}

// SelectMessageQueueByHash picks mqs[|hash(arg)| % len(mqs)], hash being Java's hashCode for
// strings (String#hashCode), int32 (the value) and int64 (Long#hashCode); other args hash
// their fmt.Sprint text as a string. Same arg, same queue: the basis of ordered messages.
// Mirrors org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash.
type SelectMessageQueueByHash struct{}

// Select implements MessageQueueSelector.
func (SelectMessageQueueByHash) Select(mqs []primitive.MessageQueue, _ *primitive.Message, arg any) primitive.MessageQueue {
	if len(mqs) == 0 {
		return primitive.MessageQueue{}
	}
	h := javaHashCode(arg)
	if h < 0 {
		h = -h
	}
	idx := int64(h) % int64(len(mqs))
	if idx < 0 { // Math.abs(Integer.MIN_VALUE) stays negative in Java (and fails); use 0
		idx = 0
	}
	return mqs[idx]
}

func javaHashCode(arg any) int32 {
	switch v := arg.(type) {
	case string:
		return int32(primitive.TagsString2TagsCode(v))
	case int32:
		return v
	case int:
		if int64(v) == int64(int32(v)) {
			return int32(v)
		}
		return int32(int64(v) ^ int64(uint64(v)>>32))
	case int64:
		return int32(v ^ int64(uint64(v)>>32))
	}
	return int32(primitive.TagsString2TagsCode(fmt.Sprint(arg)))
}

// SelectMessageQueueByRandom picks a random queue.
// Mirrors org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom.
type SelectMessageQueueByRandom struct{}

// Select implements MessageQueueSelector.
func (SelectMessageQueueByRandom) Select(mqs []primitive.MessageQueue, _ *primitive.Message, _ any) primitive.MessageQueue {
	if len(mqs) == 0 {
		return primitive.MessageQueue{}
	}
	return mqs[rand.IntN(len(mqs))]
}
