//go:build ex_ch04

package store

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// doCommit serves the group: for each request it flushes (at most twice: the record may have
// gone into the next file) until flushedWhere reaches the request's nextOffset, and completes
// it with PUT_OK, or FLUSH_DISK_TIMEOUT when the flush did not get there (an I/O error). Then
// the checkpoint's physicMsgTimestamp becomes the store time of the last flushed message. The
// caller holds passMu. Java: GroupCommitService#doCommit.
func (g *GroupCommitService) doCommit() {
	// Hint: with no request in g.requestsRead, only flush (c.flush(0): WAIT=false puts). Else log
	// the step "GroupCommitService#doCommit" (requests, flushedWhere, the last request's
	// nextOffset), count the group in g.groupCommits, and for each request flush c.mfq up to twice
	// (the record may have gone into the next file) until c.flushedWhere() >= its nextOffset;
	// wake it with PutOK, or FlushDiskTimeout when the flush did not get there. Then
	// c.updatePhysicTimestamp() and empty g.requestsRead (keep its array).
	//
	// Until then this blank answers the group FLUSH_DISK_TIMEOUT, so no send waits.
	_ = exercise.NotImplemented("ch04", "tutorial/ch04-flush.md §GroupCommitService#doCommit, MappedFileQueue#flush",
		"write GroupCommitService.doCommit (mq/store/group_commit_do_commit_stub.go): flush until each request's nextOffset and wake it PUT_OK")
	for _, r := range g.requestsRead {
		r.wakeupCustomer(FlushDiskTimeout)
	}
	g.requestsRead = g.requestsRead[:0]
}
