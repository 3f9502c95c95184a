//go:build ex_ch10

package consumer

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// take removes and returns the first request whose queue is not dropped and for which
// skip is false; dropped requests met on the way are discarded. nil when none.
func (q *consumeRequestCache) take(skip func(*liteConsumeRequest) bool) *liteConsumeRequest {
	// Hint: under q.mu, first discard every request whose ProcessQueue is dropped
	// (slices.DeleteFunc on q.reqs), then remove and return the first one skip is false for —
	// FIFO, so requests of one queue come out in the order the pulls put them.
	panic(exercise.NotImplemented("ch10", "tutorial/ch10-litepull.md §DefaultLitePullConsumerImpl#poll",
		"write consumeRequestCache.take (mq/client/consumer/consume_request_cache_take_stub.go): the first request not dropped and not skipped, in FIFO order"))
}
