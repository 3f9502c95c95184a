package consumer

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// PullRequest is one queue's place in the pull loop: the queue, the consumer group, the next
// offset to pull (ConsumeQueue units) and the ProcessQueue the messages go to. A push consumer
// has exactly one per assigned queue, handed back to the PullMessageService after every pull.
// Mirrors org.apache.rocketmq.client.impl.consumer.PullRequest.
type PullRequest struct {
	ConsumerGroup string
	MessageQueue  primitive.MessageQueue
	ProcessQueue  *ProcessQueue

	mu         sync.Mutex
	nextOffset int64
}

// NextOffset is the offset the next pull starts at.
func (r *PullRequest) NextOffset() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nextOffset
}

// SetNextOffset moves it.
func (r *PullRequest) SetNextOffset(v int64) {
	r.mu.Lock()
	r.nextOffset = v
	r.mu.Unlock()
}

// PullMessageService is a push consumer's pull loop: a queue of PullRequests; its goroutine
// takes one at a time and hands it to the consumer's pullMessage, which sends an asynchronous
// pull whose callback puts the request back (at once, or after a delay for flow control or
// errors). Mirrors org.apache.rocketmq.client.impl.consumer.PullMessageService.
//
// Deviation: Java runs one PullMessageService per MQClientInstance and looks each request's
// consumer up by group; here each push consumer owns its loop (as rocketmq-client-go's
// pushConsumer does), so the loop, the rebalance that feeds it and the consume service live in
// one package and the instance keeps only what is shared (routes, heartbeats, connections).
//
// With Options.DisableScheduledTasks no goroutine runs: DoPull and DoPullQueue take a
// request and wait for its pull to finish, so a chapter drives the loop pass by pass.
type PullMessageService struct {
	tr     *trace.Tracer
	manual bool
	// pull runs one pull of a request; done must be called exactly once when the pull has
	// finished — its callback has run, or it was deferred or dropped without a request going
	// out — so that a caller driving the loop by hand (DoPull) can wait for it.
	// Java: DefaultMQPushConsumerImpl#pullMessage.
	pull func(req *PullRequest, done func())
	st   *service.ServiceThread

	mu      sync.Mutex
	pending []*PullRequest
	signal  chan struct{} // capacity 1: a request was queued
	// later holds the delayed requests' timers; closed (new requests refused) by shutdown.
	later service.Group
}

// newPullMessageService returns the loop over pull; tr is the instance's tracer (the loop's
// steps are the client's, as in Java); manual is DisableScheduledTasks.
func newPullMessageService(tr *trace.Tracer, manual bool, pull func(req *PullRequest, done func())) *PullMessageService {
	return &PullMessageService{tr: tr, manual: manual, pull: pull, st: service.New("PullMessageService"),
		signal: make(chan struct{}, 1)}
}

// start logs PullMessageService#run (Java logs "service started" as run() begins) and, unless
// manual, starts the loop.
func (s *PullMessageService) start() {
	if s.tr.Enabled() {
		s.tr.Step("PullMessageService#run", slog.String("state", "started"), slog.Bool("manual", s.manual))
	}
	if s.manual {
		return
	}
	s.st.Start(func() {
		for {
			req := s.take()
			if req == nil {
				select {
				case <-s.signal:
					continue
				case <-s.st.StopChan():
					return
				}
			}
			s.pull(req, func() {})
		}
	})
}

func (s *PullMessageService) shutdown() {
	s.later.Close()
	s.later.Wait()
	s.st.Shutdown()
}

func (s *PullMessageService) take() *PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil
	}
	r := s.pending[0]
	s.pending = s.pending[1:]
	return r
}

// ExecutePullRequestImmediately queues req. Java: PullMessageService#executePullRequestImmediately.
func (s *PullMessageService) ExecutePullRequestImmediately(req *PullRequest) {
	if s.later.Closed() {
		return
	}
	s.mu.Lock()
	s.pending = append(s.pending, req)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// ExecutePullRequestLater queues req after delay. With DisableScheduledTasks the delay is
// skipped: the request is queued at once and waits for the next DoPull.
// Java: PullMessageService#executePullRequestLater.
func (s *PullMessageService) ExecutePullRequestLater(req *PullRequest, delay time.Duration) {
	if s.manual || delay <= 0 {
		s.ExecutePullRequestImmediately(req)
		return
	}
	s.later.AfterFunc(delay, func() { s.ExecutePullRequestImmediately(req) })
}

// Pending lists the queued requests' queues, in order.
func (s *PullMessageService) Pending() []primitive.MessageQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]primitive.MessageQueue, len(s.pending))
	for i, r := range s.pending {
		out[i] = r.MessageQueue
	}
	return out
}

// PendingRequests lists the queued requests, in order (a chapter's table reads each one's
// queue and next offset).
func (s *PullMessageService) PendingRequests() []*PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pending)
}

// DoPull runs the head request's pull and waits until it finished; false when none is queued.
func (s *PullMessageService) DoPull() bool {
	req := s.take()
	if req == nil {
		return false
	}
	s.pullAndWait(req)
	return true
}

// DoPullQueue runs the pull of mq's queued request and waits until it finished; false when no
// request of mq is queued.
func (s *PullMessageService) DoPullQueue(mq primitive.MessageQueue) bool {
	s.mu.Lock()
	var req *PullRequest
	for i, r := range s.pending {
		if r.MessageQueue == mq {
			req = r
			s.pending = append(s.pending[:i:i], s.pending[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if req == nil {
		return false
	}
	s.pullAndWait(req)
	return true
}

func (s *PullMessageService) pullAndWait(req *PullRequest) {
	done := make(chan struct{})
	var once sync.Once
	s.pull(req, func() { once.Do(func() { close(done) }) })
	<-done
}
