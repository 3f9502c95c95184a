//go:build ex_ch04

package store

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// swapRequests makes the waiting requests the group doCommit serves (requestsRead, empty after
// the last doCommit) and gives puts an empty list. Java: GroupCommitService#swapRequests.
func (g *GroupCommitService) swapRequests() {
	// Hint: under g.mu, exchange g.requestsWrite and g.requestsRead (the read list is empty after
	// the last doCommit, so puts get an empty list and doCommit the group), then, outside the
	// lock, log the step "GroupCommitService#swapRequests" with requestsRead when it is not empty.
	//
	// Until then this blank answers every waiting put FLUSH_DISK_TIMEOUT, so no send waits.
	_ = exercise.NotImplemented("ch04", "tutorial/ch04-flush.md §GroupCommitService#run, #waitForRunning, #onWaitEnd, #swapRequests",
		"write GroupCommitService.swapRequests (mq/store/group_commit_swap_requests_stub.go): hand the waiting requests to doCommit as one group")
	g.mu.Lock()
	waiting := g.requestsWrite
	g.requestsWrite = nil
	g.mu.Unlock()
	for _, r := range waiting {
		r.wakeupCustomer(FlushDiskTimeout)
	}
}
