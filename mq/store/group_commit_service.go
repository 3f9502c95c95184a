package store

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// groupCommitInterval is GroupCommitService's wait between passes when no put wakes it
// (Java: waitForRunning(10)).
const groupCommitInterval = 10 * time.Millisecond

// GroupCommitRequest is one SYNC_FLUSH put waiting for its record to be on disk. It completes
// once: PUT_OK when the CommitLog's flushedWhere reached nextOffset, FLUSH_DISK_TIMEOUT when
// doCommit could not get it there or the FlushDiskWatcher saw its deadline pass first. The
// put's result (with that status) is then delivered on the request's channel.
// Mirrors CommitLog.GroupCommitRequest.
type GroupCommitRequest struct {
	nextOffset CommitLogOffset // end of the put's record(s): wroteOffset + wroteBytes
	deadline   int64           // ms on the store's monotonic clock (storeClock.mono)

	completed atomic.Bool
	result    PutMessageResult      // the put's result, status PUT_OK until completion
	out       chan PutMessageResult // capacity 1: receives result with the final status

	// join, when set, receives the status instead of out (a put waiting for both its flush
	// and a slave); replicaPart says which of the two this request is.
	join        *putJoin
	replicaPart bool
}

// putJoin joins a put's flush request and its replication request: final completes when both
// did, with the replication's status when it is not PUT_OK, else the flush's.
// Java: flushResultFuture.thenCombine(replicaResultFuture, ...) in CommitLog#asyncPutMessage.
type putJoin struct {
	pending       atomic.Int32
	flushStatus   atomic.Int32 // PutMessageStatus
	replicaStatus atomic.Int32 // PutMessageStatus
	final         *GroupCommitRequest
}

func newPutJoin(res PutMessageResult) *putJoin {
	j := &putJoin{final: newGroupCommitRequest(0, 0, res)}
	j.pending.Store(2)
	return j
}

// done records one part's status; the second call completes final.
func (j *putJoin) done(replica bool, status PutMessageStatus) {
	if replica {
		j.replicaStatus.Store(int32(status))
	} else {
		j.flushStatus.Store(int32(status))
	}
	if j.pending.Add(-1) != 0 {
		return
	}
	st := PutMessageStatus(j.flushStatus.Load())
	if rs := PutMessageStatus(j.replicaStatus.Load()); rs != PutOK {
		st = rs
	}
	j.final.wakeupCustomer(st)
}

func newGroupCommitRequest(nextOffset CommitLogOffset, deadline int64, result PutMessageResult) *GroupCommitRequest {
	return &GroupCommitRequest{nextOffset: nextOffset, deadline: deadline, result: result,
		out: make(chan PutMessageResult, 1)}
}

// NextOffset is the CommitLog offset (bytes) the flush must reach for this request.
func (r *GroupCommitRequest) NextOffset() CommitLogOffset { return r.nextOffset }

// wakeupCustomer completes the request with status (the first call wins) and reports whether
// this call did. Java: GroupCommitRequest#wakeupCustomer.
func (r *GroupCommitRequest) wakeupCustomer(status PutMessageStatus) bool {
	if !r.completed.CompareAndSwap(false, true) {
		return false
	}
	if r.join != nil {
		r.join.done(r.replicaPart, status)
		return true
	}
	res := r.result
	if status != PutOK {
		res.PutMessageStatus = status
	}
	r.out <- res
	return true
}

// WakeupCustomer completes the request with status (PUT_OK, FLUSH_SLAVE_TIMEOUT, ...): the
// first call wins and reports true, later ones are ignored. A ReplicaService calls it once per
// request it was handed. Java: GroupCommitRequest#wakeupCustomer.
func (r *GroupCommitRequest) WakeupCustomer(status PutMessageStatus) bool {
	return r.wakeupCustomer(status)
}

// isWaitStoreMsgOK reads the WAIT property: absent or "true" (any case) means the producer
// waits for the store (Java's Boolean.parseBoolean). Java: Message#isWaitStoreMsgOK.
func isWaitStoreMsgOK(m *primitive.MessageExtBrokerInner) bool {
	var v string
	var ok bool
	if m.Properties != nil {
		v, ok = m.Properties[primitive.PropertyWaitStoreMsgOK]
	} else if b, found := lookupProperty([]byte(m.PropertiesString), primitive.PropertyWaitStoreMsgOK); found {
		v, ok = string(b), true
	}
	return !ok || strings.EqualFold(v, "true")
}

// GroupCommitService flushes the CommitLog for SYNC_FLUSH. Puts add requests to requestsWrite
// (putRequest) and wake it; each pass waits up to 10 ms (waitForRunning), swaps requestsWrite
// with requestsRead (onWaitEnd → swapRequests), and doCommit flushes once for the whole group
// and completes every request in it: one fdatasync serves all the puts that arrived while the
// previous one ran. Mirrors CommitLog.GroupCommitService.
//
// Deviation: Java guards the two lists with a spin lock; here a mutex (puts only append).
type GroupCommitService struct {
	c   *CommitLog // its owner (Java: an inner class of CommitLog)
	svc *service.ServiceThread

	mu            sync.Mutex // guards requestsWrite and closed
	requestsWrite []*GroupCommitRequest
	closed        bool // stopped: a late request is served inline

	passMu       sync.Mutex // one pass at a time (the service and RunOnce); guards requestsRead
	requestsRead []*GroupCommitRequest

	groupCommits atomic.Int64 // doCommit calls that served requests
}

func newGroupCommitService(c *CommitLog) *GroupCommitService {
	return &GroupCommitService{c: c, svc: service.New("GroupCommitService")}
}

// putRequest queues a request for the next group and wakes the service.
// Java: GroupCommitService#putRequest.
func (g *GroupCommitService) putRequest(r *GroupCommitRequest) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		g.passMu.Lock()
		g.requestsRead = append(g.requestsRead, r)
		g.doCommit()
		g.passMu.Unlock()
		return
	}
	g.requestsWrite = append(g.requestsWrite, r)
	n := len(g.requestsWrite)
	g.mu.Unlock()
	if tr := g.c.env.tracer; tr.Enabled() {
		tr.Step("GroupCommitService#putRequest", slog.Int64("nextOffset", int64(r.nextOffset)), slog.Int("requestsWrite", n))
	}
	g.svc.Wakeup()
}

// PendingRequests is the number of requests waiting for the next group (requestsWrite).
func (g *GroupCommitService) PendingRequests() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.requestsWrite)
}

// GroupCommits is the number of doCommit calls that served at least one request.
func (g *GroupCommitService) GroupCommits() int64 { return g.groupCommits.Load() }

func (g *GroupCommitService) start() {
	g.svc.Start(func() {
		for !g.svc.Stopped() {
			g.pass(groupCommitInterval)
		}
		// Java sleeps 10 ms for puts still on their way, then commits what came.
		g.passMu.Lock()
		g.swapRequests()
		g.doCommit()
		g.passMu.Unlock()
	})
}

// RunOnce is one pass of the service's loop without the wait: what its goroutine does each
// time a put wakes it. Chapters call it with ManualServices to show one group commit.
func (g *GroupCommitService) RunOnce() { g.pass(0) }

// pass is one turn of the loop: run, waitForRunning (→ onWaitEnd → swapRequests), doCommit.
// The run and wait steps are logged when requests were already waiting at the start (a pass
// driven by RunOnce); swapRequests and doCommit whenever there is a group.
// Java: GroupCommitService#run.
func (g *GroupCommitService) pass(interval time.Duration) {
	g.passMu.Lock()
	defer g.passMu.Unlock()
	tr := g.c.env.tracer
	traced := tr.Enabled() && g.PendingRequests() > 0
	if traced {
		tr.Step("GroupCommitService#run", slog.Int("requestsWrite", g.PendingRequests()))
	}
	g.waitForRunning(interval, traced)
	g.doCommit()
}

// waitForRunning waits up to interval or until a put wakes the service, then onWaitEnd.
// Java: ServiceThread#waitForRunning.
func (g *GroupCommitService) waitForRunning(interval time.Duration, traced bool) {
	if traced {
		g.c.env.tracer.Step("GroupCommitService#waitForRunning", slog.Int64("intervalMs", interval.Milliseconds()))
	}
	if interval > 0 {
		g.svc.WaitForRunning(interval)
	}
	g.onWaitEnd(traced)
}

// onWaitEnd swaps the lists after every wait. Java: GroupCommitService#onWaitEnd.
func (g *GroupCommitService) onWaitEnd(traced bool) {
	if traced {
		g.c.env.tracer.Step("GroupCommitService#onWaitEnd")
	}
	g.swapRequests()
}

// DoCommit is one doCommit on whatever requests the last swap gathered (none: it only flushes
// what WAIT=false puts wrote). Tests call it to play the service's loop body.
func (g *GroupCommitService) DoCommit() {
	g.passMu.Lock()
	defer g.passMu.Unlock()
	g.doCommit()
}

// shutdown stops the loop (which commits what came last), then serves requests that arrive
// later inline. Java: GroupCommitService#shutdown (the run loop's final swap and doCommit).
func (g *GroupCommitService) shutdown() {
	g.svc.Shutdown()
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.passMu.Lock()
	g.swapRequests()
	g.doCommit()
	g.passMu.Unlock()
}
