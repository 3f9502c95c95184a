package ha

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Waits of GroupTransferService (Java: waitForRunning(10) per pass,
// notifyTransferObject.waitForRunning(1000) per check of one request).
const (
	groupTransferInterval = 10 * time.Millisecond
	transferCheckInterval = time.Second
)

// transferRequest is one SYNC_MASTER put waiting for a slave, with its deadline on the HA
// clock (now + syncFlushTimeout when it was queued).
type transferRequest struct {
	req      *store.GroupCommitRequest
	deadline time.Time
}

// GroupTransferService answers SYNC_MASTER puts once a slave holds their bytes: putRequest
// queues a request in requestsWrite; each pass swaps it with requestsRead and doWaitTransfer
// completes each request with PUT_OK as soon as push2SlaveMaxOffset reaches its nextOffset,
// or FLUSH_SLAVE_TIMEOUT when syncFlushTimeout passes first. Mirrors
// HAService.GroupTransferService.
type GroupTransferService struct {
	h   *HAService
	svc *service.ServiceThread
	// notify wakes a doWaitTransfer waiting for a slave's acknowledgement (capacity 1).
	// Java: notifyTransferObject.
	notify chan struct{}

	mu            sync.Mutex // guards requestsWrite, closed
	requestsWrite []transferRequest
	closed        bool

	passMu       sync.Mutex // one pass at a time; guards requestsRead
	requestsRead []transferRequest
}

func newGroupTransferService(h *HAService) *GroupTransferService {
	return &GroupTransferService{h: h, svc: service.New("GroupTransferService"), notify: make(chan struct{}, 1)}
}

// putRequest queues req and wakes the service; after shutdown req is answered
// FLUSH_SLAVE_TIMEOUT at once. Java: GroupTransferService#putRequest.
func (g *GroupTransferService) putRequest(req *store.GroupCommitRequest) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		req.WakeupCustomer(store.FlushSlaveTimeout)
		return
	}
	// logged before the request is visible (PendingRequests), so a chapter that waits for it
	// prints its next line after this step
	if tr := g.h.tr; tr.Enabled() {
		tr.Step("GroupTransferService#putRequest", slog.Int64("nextOffset", int64(req.NextOffset())),
			slog.Int("requestsWrite", len(g.requestsWrite)+1))
	}
	g.requestsWrite = append(g.requestsWrite, transferRequest{req: req, deadline: g.h.clock.Now().Add(g.h.cfg.SyncFlushTimeout)})
	g.mu.Unlock()
	g.svc.Wakeup()
}

// PendingRequests is the number of requests queued for the next pass (requestsWrite).
func (g *GroupTransferService) PendingRequests() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.requestsWrite)
}

// notifyTransferSome wakes a waiting doWaitTransfer. Java: GroupTransferService#notifyTransferSome.
func (g *GroupTransferService) notifyTransferSome() {
	select {
	case g.notify <- struct{}{}:
	default:
	}
}

// swapRequests makes the queued requests the group of this pass. Java: GroupTransferService#swapRequests.
func (g *GroupTransferService) swapRequests() {
	g.mu.Lock()
	g.requestsWrite, g.requestsRead = g.requestsRead, g.requestsWrite
	g.mu.Unlock()
}

// start runs the loop: wait up to 10 ms or for a put, swap, doWaitTransfer.
// Java: GroupTransferService#run.
func (g *GroupTransferService) start() {
	g.svc.Start(func() {
		for !g.svc.Stopped() {
			g.svc.WaitForRunning(groupTransferInterval)
			g.passMu.Lock()
			g.swapRequests()
			g.run(true)
			g.passMu.Unlock()
		}
	})
}

// DoWaitTransfer is one pass without waiting: it swaps the queued requests in, completes those
// a slave acknowledged (PUT_OK) and those past their deadline (FLUSH_SLAVE_TIMEOUT), and keeps
// the rest for the next pass. It returns how many it completed. With ManualServices it is how
// a chapter plays the service (after the slave's report moved push2SlaveMaxOffset, or after
// moving the store clock past syncFlushTimeout).
func (g *GroupTransferService) DoWaitTransfer() int {
	g.passMu.Lock()
	defer g.passMu.Unlock()
	g.mu.Lock()
	g.requestsRead = append(g.requestsRead, g.requestsWrite...)
	clear(g.requestsWrite)
	g.requestsWrite = g.requestsWrite[:0]
	g.mu.Unlock()
	return g.run(false)
}

// run logs the pass and serves the group; the caller holds passMu.
func (g *GroupTransferService) run(wait bool) int {
	if len(g.requestsRead) == 0 {
		return 0
	}
	if tr := g.h.tr; tr.Enabled() {
		tr.Step("GroupTransferService#run", slog.Int("requestsRead", len(g.requestsRead)))
	}
	return g.doWaitTransfer(wait)
}

// doWaitTransfer completes the group's requests in order. With wait it waits for each (woken
// by notifyTransferSome, at most 1 s at a time) until a slave acknowledged its nextOffset or
// its deadline passed, as Java does; without, it completes what it can now and keeps the rest.
// Java: GroupTransferService#doWaitTransfer.
func (g *GroupTransferService) doWaitTransfer(wait bool) int {
	done := 0
	kept := g.requestsRead[:0]
	for _, r := range g.requestsRead {
		ok := g.h.push2SlaveMaxOffset.Load() >= int64(r.req.NextOffset())
		for wait && !ok && !g.svc.Stopped() {
			left := r.deadline.Sub(g.h.clock.Now())
			if left <= 0 {
				break
			}
			t := time.NewTimer(min(left, transferCheckInterval))
			select {
			case <-g.notify:
			case <-t.C:
			case <-g.svc.StopChan():
			}
			t.Stop()
			ok = g.h.push2SlaveMaxOffset.Load() >= int64(r.req.NextOffset())
		}
		expired := !g.h.clock.Now().Before(r.deadline)
		if !ok && !expired && !wait {
			kept = append(kept, r)
			continue
		}
		status := store.PutOK
		if !ok {
			status = store.FlushSlaveTimeout
			g.h.log.Warn("transfer message to slave timeout", "nextOffset", int64(r.req.NextOffset()),
				"push2SlaveMaxOffset", g.h.push2SlaveMaxOffset.Load())
		}
		if tr := g.h.tr; tr.Enabled() {
			tr.Step("GroupTransferService#doWaitTransfer", slog.Int64("nextOffset", int64(r.req.NextOffset())),
				slog.Int64("push2SlaveMaxOffset", g.h.push2SlaveMaxOffset.Load()), slog.String("status", status.String()))
		}
		r.req.WakeupCustomer(status)
		done++
	}
	clear(g.requestsRead[len(kept):])
	g.requestsRead = kept
	return done
}

// shutdown stops the loop and answers every request still waiting FLUSH_SLAVE_TIMEOUT (no put
// hangs past the store's shutdown); later requests are answered so at once.
func (g *GroupTransferService) shutdown() {
	g.svc.Shutdown()
	g.passMu.Lock()
	defer g.passMu.Unlock()
	g.mu.Lock()
	g.closed = true
	waiting := append(g.requestsRead, g.requestsWrite...)
	g.requestsRead, g.requestsWrite = nil, nil
	g.mu.Unlock()
	for _, r := range waiting {
		r.req.WakeupCustomer(store.FlushSlaveTimeout)
	}
}
