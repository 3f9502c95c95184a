//go:build ex_ch06

package consumer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Allocate implements the strategy. Java: AllocateMessageQueueAveragely#allocate.
func (a AllocateMessageQueueAveragely) Allocate(group, currentCID string, mqAll []primitive.MessageQueue, cidAll []string) []primitive.MessageQueue {
	// Hint: index is currentCID's place in cidAll (none, or no queues: nil). With n queues and c
	// consumers and mod = n % c: averageSize is 1 when n <= c, n/c + 1 for the first mod
	// consumers, n/c for the rest; the block starts at index*averageSize (+ mod for a consumer
	// past the first mod ones) and holds min(averageSize, n - start) queues (a consumer beyond n
	// gets none). Log the step "AllocateMessageQueueAveragely#allocate" (group, mqAll, cidAll,
	// index, queueIds) when a.Tracer is set.
	panic(exercise.NotImplemented("ch06", "tutorial/ch06-rebalance.md §RebalanceImpl#rebalanceByTopic",
		"write AllocateMessageQueueAveragely.Allocate (mq/client/consumer/allocate_averagely_stub.go): one contiguous block of queues per consumer, the first n mod c one larger"))
}
