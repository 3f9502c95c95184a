package remoting

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// RequestProcessor answers requests of the codes it is registered for.
// Mirrors org.apache.rocketmq.remoting.netty.NettyRequestProcessor.
type RequestProcessor interface {
	// ProcessRequest answers req, which arrived on ch. It runs on a worker of the processor's
	// pool. A nil response with nil error means "no answer now": the processor answers later
	// with ch.WriteResponse (a held pull), or never (a oneway request). An error (or a panic)
	// becomes a SYSTEM_ERROR response whose remark is the error text, unless req is oneway.
	// The server sets the response's opaque, flag and serialize type (ResponseTo).
	ProcessRequest(ch *Channel, req *RemotingCommand) (*RemotingCommand, error)
	// RejectRequest is asked before the request is queued; true answers SYSTEM_BUSY at once
	// (flow control, e.g. the broker's page cache is busy).
	RejectRequest() bool
}

// HeaderDecoder is a RequestProcessor that takes the extFields of its requests as a typed
// header while the frame is decoded (RemotingCommand.CustomHeader), so the reader builds no
// ExtFields map for them. A Server uses it only while no RPC hook is registered: a hook (the
// ACL check) reads every member from ExtFields.
type HeaderDecoder interface {
	// NewCustomHeader returns a fresh header for a request with code, or nil (ExtFields).
	NewCustomHeader(code int32) CustomHeader
}

// ProcessorFunc adapts a function to RequestProcessor; it never rejects.
type ProcessorFunc func(ch *Channel, req *RemotingCommand) (*RemotingCommand, error)

// ProcessRequest calls f.
func (f ProcessorFunc) ProcessRequest(ch *Channel, req *RemotingCommand) (*RemotingCommand, error) {
	return f(ch, req)
}

// RejectRequest is always false.
func (ProcessorFunc) RejectRequest() bool { return false }

// NeverRejects gives a processor that never refuses a request at the door its RejectRequest
// (always false), as most of RocketMQ's processors answer rejectRequest; embed it.
type NeverRejects struct{}

// RejectRequest is always false.
func (NeverRejects) RejectRequest() bool { return false }

// ChannelEventListener hears about connections of a Server. Calls come one at a time, in order,
// from the server's event goroutine (never from a connection's own goroutines), so a slow
// listener delays other events but never I/O. remoteAddr is "ip:port".
// Mirrors org.apache.rocketmq.remoting.ChannelEventListener.
type ChannelEventListener interface {
	OnChannelConnect(remoteAddr string, ch *Channel)
	OnChannelClose(remoteAddr string, ch *Channel)
	OnChannelIdle(remoteAddr string, ch *Channel)
	OnChannelException(remoteAddr string, ch *Channel)
}

// Remarks of the generic error answers, as Java words them.
// Java: NettyRemotingAbstract#processRequestCommand.
const (
	remarkRejectRequest = "[REJECTREQUEST]system busy, start flow control for a while"
	remarkOverload      = "[OVERLOAD]system busy, start flow control for a while"
)

// DefaultPoolQueueCapacity is the queue bound of pools made by RegisterProcessor: 10000
// requests, Java's sendThreadPoolQueueCapacity default.
const DefaultPoolQueueCapacity = 10000

// WorkerPool runs requests on a fixed number of goroutines fed by a bounded FIFO queue: the
// Go form of the ThreadPoolExecutor Java pairs with each processor. A full queue refuses the
// request (the server answers SYSTEM_BUSY). Several registrations may share one pool (Java
// registers SEND_MESSAGE, SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE on one executor).
// mu guards queue and closed; cond wakes workers.
type WorkerPool struct {
	capacity int
	clock    clock.Clock // stamps QueuedRequest.Enqueued

	mu     sync.Mutex
	cond   sync.Cond
	queue  []poolTask
	head   int
	closed bool
	wg     sync.WaitGroup
}

type poolTask struct {
	ch  *Channel
	req *RemotingCommand
	p   RequestProcessor
	at  time.Time // when the pool accepted it
}

// NewWorkerPool starts workers goroutines (at least 1) serving a queue of at most
// queueCapacity waiting requests (at least 1). Stop it with Shutdown; a Server stops the pools
// registered with it.
func NewWorkerPool(workers, queueCapacity int, opts ...Option) *WorkerPool {
	workers = max(workers, 1)
	p := &WorkerPool{capacity: max(queueCapacity, 1), clock: buildOptions(opts).clock}
	p.cond.L = &p.mu
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// submit queues a task; false when the queue is full or the pool is shut down.
func (p *WorkerPool) submit(t poolTask) bool {
	p.mu.Lock()
	if p.closed || len(p.queue)-p.head >= p.capacity {
		p.mu.Unlock()
		return false
	}
	t.at = p.clock.Now()
	p.queue = append(p.queue, t)
	p.mu.Unlock()
	p.cond.Signal()
	return true
}

func (p *WorkerPool) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for p.head == len(p.queue) && !p.closed {
			p.cond.Wait()
		}
		if p.head == len(p.queue) { // closed and drained
			p.mu.Unlock()
			return
		}
		t := p.queue[p.head]
		p.queue[p.head] = poolTask{}
		p.head++
		if p.head == len(p.queue) { // empty: reuse the array from the start
			p.queue, p.head = p.queue[:0], 0
		}
		p.mu.Unlock()
		runTask(t)
	}
}

// QueuedRequest is a request waiting in a WorkerPool's queue (see AnswerQueued).
type QueuedRequest struct {
	Request    *RemotingCommand
	RemoteAddr string
	// Enqueued is when the pool accepted the request, on the pool's clock (WithClock).
	Enqueued time.Time
}

// AnswerQueued walks the queue from its head, the oldest waiting request. For each, decide
// returns an answer to send at once — the request leaves the queue and is never processed —
// or nil to stop the walk. left is how many requests stay queued behind the one decided on.
// Answers get the request's opaque (ResponseTo); a oneway request leaves without one. decide
// runs with the pool locked: it must be quick and must not call the pool. It returns how many
// requests were answered this way.
//
// This is what flow control above the remoting layer needs (the broker's BrokerFastFailure
// answers sends that waited too long with SYSTEM_BUSY). Java: the executor's BlockingQueue
// (peek/poll/remove) and RequestTask#returnResponse.
func (p *WorkerPool) AnswerQueued(decide func(q QueuedRequest, left int) *RemotingCommand) int {
	type answered struct {
		t    poolTask
		resp *RemotingCommand
	}
	var out []answered
	p.mu.Lock()
	for p.head < len(p.queue) {
		t := p.queue[p.head]
		resp := decide(QueuedRequest{Request: t.req, RemoteAddr: t.ch.RemoteAddr(), Enqueued: t.at},
			len(p.queue)-p.head-1)
		if resp == nil {
			break
		}
		p.queue[p.head] = poolTask{}
		p.head++
		out = append(out, answered{t, resp})
	}
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	}
	p.mu.Unlock()
	for _, a := range out {
		if !a.t.req.IsOneway() {
			if err := a.t.ch.WriteResponse(a.resp.ResponseTo(a.t.req)); err != nil {
				a.t.ch.log.Warn("answering a queued request failed", "code", a.t.req.Code, "err", err)
			}
		}
		a.t.ch.endRequest()
	}
	return len(out)
}

// QueueLen is the number of requests waiting in the queue.
func (p *WorkerPool) QueueLen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue) - p.head
}

// Shutdown lets the workers finish every queued request, then stops them and waits. Safe to
// call more than once.
func (p *WorkerPool) Shutdown() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}

// runTask runs one request and writes its answer; a panic is recovered and answered
// SYSTEM_ERROR. The channel's in-flight count drops when the processor returns.
func runTask(t poolTask) {
	defer t.ch.endRequest()
	log := t.ch.log
	resp, err := callProcessor(t, log)
	if t.req.IsOneway() {
		return
	}
	if err != nil {
		resp = NewResponse(SystemError, err.Error())
	}
	if resp == nil {
		return
	}
	if werr := t.ch.WriteResponse(resp.ResponseTo(t.req)); werr != nil {
		log.Warn("process request over, but response failed", "code", t.req.Code, "opaque", t.req.Opaque, "err", werr)
	}
}

func callProcessor(t poolTask, log *slog.Logger) (resp *RemotingCommand, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("process request panic", "code", t.req.Code, "panic", r, "stack", string(debug.Stack()))
			resp, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return t.p.ProcessRequest(t.ch, t.req)
}

// processorTable maps request codes to processors and their pools, plus an optional default.
// Shared by Server and Client. mu guards all fields.
type processorTable struct {
	mu     sync.RWMutex
	byCode map[int32]processorPair
	def    *processorPair
	pools  []*WorkerPool
	hook   RPCHook // a Server's: runs before every processor (rpc_hook.go)
	// sendHook is a Client's: runs before every request it sends; requests a server sends to
	// the client are not run through it (rpc_hook.go).
	sendHook RPCHook
}

type processorPair struct {
	p    RequestProcessor
	pool *WorkerPool
}

func (t *processorTable) register(code int32, p RequestProcessor, pool *WorkerPool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byCode == nil {
		t.byCode = make(map[int32]processorPair)
	}
	t.byCode[code] = processorPair{p, pool}
	t.own(pool)
}

func (t *processorTable) registerDefault(p RequestProcessor, pool *WorkerPool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.def = &processorPair{p, pool}
	t.own(pool)
}

// own records pool for shutdown (once). Caller holds mu.
func (t *processorTable) own(pool *WorkerPool) {
	for _, q := range t.pools {
		if q == pool {
			return
		}
	}
	t.pools = append(t.pools, pool)
}

func (t *processorTable) lookup(code int32) (processorPair, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if pair, ok := t.byCode[code]; ok {
		return pair, true
	}
	if t.def != nil {
		return *t.def, true
	}
	return processorPair{}, false
}

// customHeader is a Server's HeaderFunc: the CustomHeader of code's processor when it is a
// HeaderDecoder and no RPC hook is registered; nil otherwise.
func (t *processorTable) customHeader(code int32) CustomHeader {
	t.mu.RLock()
	pair, ok := t.byCode[code]
	if !ok && t.def != nil {
		pair, ok = *t.def, true
	}
	hooked := t.hook != nil
	t.mu.RUnlock()
	if !ok || hooked {
		return nil
	}
	if d, ok := pair.p.(HeaderDecoder); ok {
		return d.NewCustomHeader(code)
	}
	return nil
}

func (t *processorTable) shutdownPools() {
	t.mu.RLock()
	pools := append([]*WorkerPool(nil), t.pools...)
	t.mu.RUnlock()
	for _, p := range pools {
		p.Shutdown()
	}
}

// dispatch hands a request read from ch to its processor's pool, or answers it at once:
// REQUEST_CODE_NOT_SUPPORTED for an unknown code, SYSTEM_ERROR with the error's text when the
// server's RPC hook refuses it, SYSTEM_BUSY when the processor rejects or the pool's queue is
// full. Oneway requests never get an answer.
// Java: NettyRemotingAbstract#processRequestCommand.
//
// Deviation: Java answers an unknown or rejected oneway request anyway; we keep the oneway
// promise (the sender does not wait for an answer).
//
// Deviation: Java runs the RPC hook (the ACL check) on the pool's worker, so a refused request
// first waits in the shared queue; here it runs on the connection's reader, before the pool,
// so a flood of unsigned or badly signed requests costs its own connection's reader and never
// takes the queue slots or workers signed clients are served by.
func (t *processorTable) dispatch(ch *Channel, req *RemotingCommand, log *slog.Logger) {
	pair, ok := t.lookup(req.Code)
	if !ok {
		log.Warn("request code not supported", "remoteAddr", ch.RemoteAddr(), "code", req.Code)
		answerNow(ch, req, RequestCodeNotSupported, NotSupportedRemark(req.Code))
		return
	}
	if err := runHook(t.rpcHook(), ch, req, log); err != nil {
		answerNow(ch, req, SystemError, err.Error())
		return
	}
	if pair.p.RejectRequest() {
		answerNow(ch, req, SystemBusy, remarkRejectRequest)
		return
	}
	ch.beginRequest()
	if !pair.pool.submit(poolTask{ch: ch, req: req, p: pair.p}) {
		ch.endRequest()
		log.Warn("too many requests and system thread pool busy", "remoteAddr", ch.RemoteAddr(), "code", req.Code)
		answerNow(ch, req, SystemBusy, remarkOverload)
	}
}

// runHook runs the server's RPC hook h (nil: none) on req; a panic in it is recovered and
// refuses the request, as a panicking processor's request is answered SYSTEM_ERROR.
func runHook(h RPCHook, ch *Channel, req *RemotingCommand, log *slog.Logger) (err error) {
	if h == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			log.Error("rpc hook panic", "code", req.Code, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h.DoBeforeRequest(ch.RemoteAddr(), req)
}

func answerNow(ch *Channel, req *RemotingCommand, code int32, remark string) {
	if req.IsOneway() {
		return
	}
	_ = ch.WriteResponse(NewResponse(code, remark).ResponseTo(req)) // fails only if ch is closing
}

var discardLogger = slog.New(slog.DiscardHandler)

// loggerOf returns l, or a logger that drops everything when l is nil.
func loggerOf(l *slog.Logger) *slog.Logger {
	if l == nil {
		return discardLogger
	}
	return l
}
