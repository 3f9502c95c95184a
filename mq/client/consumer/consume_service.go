package consumer

import "github.com/annotated-rocketmq/rocketmq-go/mq/primitive"

// ConsumeMessageService is what a push consumer hands pulled messages to: it runs the
// listener over them and settles each result (the ProcessQueue, the offset, messages sent back
// for a retry). The pull callback calls SubmitConsumeRequest after ProcessQueue.PutMessage;
// the consumer starts the service before its first pull and shuts it down first on Shutdown.
// ConsumeMessageConcurrentlyService is the implementation for MessageListenerConcurrently; an
// orderly one (per-queue locks, Java's ConsumeMessageOrderlyService) is a second.
// Mirrors org.apache.rocketmq.client.impl.consumer.ConsumeMessageService.
type ConsumeMessageService interface {
	// Start starts the service's workers. Java: ConsumeMessageService#start.
	Start()
	// Shutdown stops taking batches and waits for those running or waiting to run again.
	// Java: ConsumeMessageService#shutdown.
	Shutdown()
	// SubmitConsumeRequest hands msgs, just put into pq, of queue mq to the listener.
	// dispatchToConsume is ProcessQueue.PutMessage's answer: whether no consumption of pq is
	// marked running (a concurrent service ignores it; an orderly one starts a queue's run only
	// when it is true). Java: ConsumeMessageService#submitConsumeRequest.
	SubmitConsumeRequest(msgs []*primitive.MessageExt, pq *ProcessQueue, mq primitive.MessageQueue, dispatchToConsume bool)
}

// The concurrent service is a ConsumeMessageService.
var _ ConsumeMessageService = (*ConsumeMessageConcurrentlyService)(nil)
