//go:build ex_ch05

package consumer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// processConsumeResult settles a batch: with CONSUME_SUCCESS the messages after AckIndex failed,
// with RECONSUME_LATER all did. In CLUSTERING each failed message is sent back (and retried here
// later if that fails); in BROADCASTING it is dropped. Then the batch leaves the ProcessQueue
// and the offset moves to the smallest offset still held. Java: #processConsumeResult.
func (s *ConsumeMessageConcurrentlyService) processConsumeResult(status ConsumeConcurrentlyStatus, ctx *ConsumeConcurrentlyContext, r *consumeRequest) {
	// Hint: ackIndex is ctx.AckIndex capped at len(r.msgs)-1 for ConsumeSuccess, -1 for
	// ReconsumeLater: the messages after it failed. Log the step
	// "ConsumeMessageConcurrentlyService#processConsumeResult". BROADCASTING drops the failed
	// ones (a warning each); CLUSTERING sends each back (step
	// "ConsumeMessageConcurrentlyService#sendMessageBack", s.c.sendMessageBack with
	// ctx.DelayLevelWhenNextConsume), and one whose send-back failed is consumed again here later
	// (ReconsumeTimes+1, s.submitConsumeRequestLater) and stays in the ProcessQueue. The rest
	// leave it: r.pq.RemoveMessage returns the smallest offset still held (step
	// "ConsumeMessageConcurrentlyService#removeMessage"), which goes to s.c.offsets.UpdateOffset
	// unless it is negative or the queue was dropped.
	panic(exercise.NotImplemented("ch05", "tutorial/ch05-consume.md §ConsumeRequest#run and processConsumeResult",
		"write ConsumeMessageConcurrentlyService.processConsumeResult (mq/client/consumer/process_consume_result_stub.go): split the batch at ackIndex, send the failed back, move the offset"))
}
