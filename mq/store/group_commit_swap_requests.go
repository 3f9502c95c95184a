//go:build !ex_ch04

package store

import (
	"log/slog"
)

// swapRequests makes the waiting requests the group doCommit serves (requestsRead, empty after
// the last doCommit) and gives puts an empty list. Java: GroupCommitService#swapRequests.
func (g *GroupCommitService) swapRequests() {
	g.mu.Lock()
	g.requestsWrite, g.requestsRead = g.requestsRead, g.requestsWrite
	n := len(g.requestsRead)
	g.mu.Unlock()
	if n > 0 && g.c.env.tracer.Enabled() {
		g.c.env.tracer.Step("GroupCommitService#swapRequests", slog.Int("requestsRead", n))
	}
}
