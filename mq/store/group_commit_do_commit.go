//go:build !ex_ch04

package store

import (
	"log/slog"
)

// doCommit serves the group: for each request it flushes (at most twice: the record may have
// gone into the next file) until flushedWhere reaches the request's nextOffset, and completes
// it with PUT_OK, or FLUSH_DISK_TIMEOUT when the flush did not get there (an I/O error). Then
// the checkpoint's physicMsgTimestamp becomes the store time of the last flushed message. The
// caller holds passMu. Java: GroupCommitService#doCommit.
func (g *GroupCommitService) doCommit() {
	c := g.c
	if len(g.requestsRead) == 0 {
		// WAIT=false puts under SYNC_FLUSH are flushed by the service's passes too
		c.flush(0)
		return
	}
	if tr := c.env.tracer; tr.Enabled() {
		last := g.requestsRead[len(g.requestsRead)-1]
		tr.Step("GroupCommitService#doCommit", slog.Int("requests", len(g.requestsRead)),
			slog.Int64("flushedWhere", int64(c.flushedWhere())), slog.Int64("maxNextOffset", int64(last.nextOffset)))
	}
	g.groupCommits.Add(1)
	for _, req := range g.requestsRead {
		flushOK := c.flushedWhere() >= req.nextOffset
		for i := 0; i < 2 && !flushOK; i++ {
			if _, err := c.mfq.flush(0); err != nil {
				c.env.log.error("flush commitlog", err)
			}
			flushOK = c.flushedWhere() >= req.nextOffset
		}
		if flushOK {
			req.wakeupCustomer(PutOK)
		} else {
			req.wakeupCustomer(FlushDiskTimeout)
		}
	}
	c.updatePhysicTimestamp()
	clear(g.requestsRead)
	g.requestsRead = g.requestsRead[:0]
}
