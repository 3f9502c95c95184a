package consumer

import (
	"slices"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// AllocateMessageQueueStrategy splits a topic's queues among a group's consumers. Every member
// runs it over the same sorted lists, so without talking to each other they agree on who
// reads what. mqAll and cidAll are sorted by the caller (RebalanceImpl).
// Mirrors org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy.
type AllocateMessageQueueStrategy interface {
	// Allocate returns currentCID's queues; nil when currentCID is not in cidAll.
	Allocate(group, currentCID string, mqAll []primitive.MessageQueue, cidAll []string) []primitive.MessageQueue
	Name() string
}

// AllocateMessageQueueAveragely gives each consumer a contiguous block: with n queues and c
// consumers the first n mod c consumers get ⌈n/c⌉ queues and the rest ⌊n/c⌋ (8 queues, 3
// consumers: 0-2, 3-5, 6-7); consumers beyond n get none.
// Mirrors org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely.
type AllocateMessageQueueAveragely struct {
	// Tracer, when set, records AllocateMessageQueueAveragely#allocate.
	Tracer *trace.Tracer
}

// Name is "AVG".
func (AllocateMessageQueueAveragely) Name() string { return "AVG" }

// AllocateMessageQueueAveragelyByCircle deals the queues out like cards: consumer i gets
// queues i, i+c, i+2c, ... (8 queues, 3 consumers: 0,3,6 / 1,4,7 / 2,5).
// Mirrors org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle.
type AllocateMessageQueueAveragelyByCircle struct{}

// Name is "AVG_BY_CIRCLE".
func (AllocateMessageQueueAveragelyByCircle) Name() string { return "AVG_BY_CIRCLE" }

// Allocate implements the strategy. Java: AllocateMessageQueueAveragelyByCircle#allocate.
func (AllocateMessageQueueAveragelyByCircle) Allocate(_, currentCID string, mqAll []primitive.MessageQueue, cidAll []string) []primitive.MessageQueue {
	index := slices.Index(cidAll, currentCID)
	if index < 0 {
		return nil
	}
	var out []primitive.MessageQueue
	for i := index; i < len(mqAll); i += len(cidAll) {
		out = append(out, mqAll[i])
	}
	return out
}

func queueIDs(mqs []primitive.MessageQueue) string {
	return joinQueues(mqs, func(q primitive.MessageQueue) string { return q.BrokerName })
}

// joinQueues lists queues as "<prefix(q)>/queueId,..." for a step line.
func joinQueues(mqs []primitive.MessageQueue, prefix func(primitive.MessageQueue) string) string {
	s := ""
	for i, q := range mqs {
		if i > 0 {
			s += ","
		}
		s += prefix(q) + "/" + strconv.Itoa(int(q.QueueID))
	}
	return s
}
