//go:build !ex_ch10

package consumer

import (
	"slices"
)

// take removes and returns the first request whose queue is not dropped and for which
// skip is false; dropped requests met on the way are discarded. nil when none.
func (q *consumeRequestCache) take(skip func(*liteConsumeRequest) bool) *liteConsumeRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.reqs = slices.DeleteFunc(q.reqs, func(r *liteConsumeRequest) bool { return r.pq.Dropped() })
	for i, r := range q.reqs {
		if !skip(r) {
			q.reqs = slices.Delete(q.reqs, i, i+1)
			return r
		}
	}
	return nil
}
