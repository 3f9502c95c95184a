package consumer

import (
	"log/slog"
	"strconv"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// ConsumeConcurrentlyStatus is a listener's verdict on a batch.
// Mirrors org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus.
type ConsumeConcurrentlyStatus int

const (
	// ConsumeSuccess: the messages up to AckIndex are consumed.
	ConsumeSuccess ConsumeConcurrentlyStatus = iota
	// ReconsumeLater: the whole batch failed; it comes back later through %RETRY%group.
	ReconsumeLater
)

// String returns Java's name.
func (s ConsumeConcurrentlyStatus) String() string {
	if s == ConsumeSuccess {
		return "CONSUME_SUCCESS"
	}
	return "RECONSUME_LATER"
}

// ConsumeConcurrentlyContext travels with one listener call.
// Mirrors org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext.
type ConsumeConcurrentlyContext struct {
	MessageQueue primitive.MessageQueue
	// DelayLevelWhenNextConsume: 0 lets the broker choose (3 + reconsumeTimes), > 0 forces a
	// level, -1 sends straight to the DLQ.
	DelayLevelWhenNextConsume int32
	// AckIndex is the index of the last consumed message of a successful batch; the messages
	// after it are sent back. Default: the whole batch (Java: Integer.MAX_VALUE).
	AckIndex int
}

// MessageListenerConcurrently consumes a batch (at most ConsumeMessageBatchMaxSize messages of
// one queue), possibly at the same time as other batches.
// Mirrors org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently.
type MessageListenerConcurrently func(msgs []*primitive.MessageExt, ctx *ConsumeConcurrentlyContext) ConsumeConcurrentlyStatus

// ConsumeMessageConcurrentlyService runs the listener over batches on a pool of workers and
// settles each result: consumed messages leave the ProcessQueue and move the offset to the
// smallest one still held; failed ones go back to the broker (or, if that fails, are consumed
// again here 5 s later). Mirrors
// org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService.
//
// Goroutines: up to ConsumeThreadMin workers draining an unbounded FIFO of batches (Java: the
// consumeExecutor, a fixed pool over a LinkedBlockingQueue). A worker starts when a batch
// arrives and fewer are running, and ends when it finds the queue empty, so an idle consumer
// holds none; under load the workers live on, so a batch costs no goroutine start and no stack
// growth (a goroutine per batch cost ~12 % of a consumer's CPU under load). With
// Options.DisableScheduledTasks a batch runs on the submitting goroutine (the pull callback), so
// a chapter's trace has one order; delayed re-consumption waits for RunDelayedConsumeRequests.
//
// Locks: qmu guards queue and workers (taken before tasks' own lock); mu guards later.
type ConsumeMessageConcurrentlyService struct {
	c        *DefaultMQPushConsumer
	listener MessageListenerConcurrently
	inline   bool
	threads  int // ConsumeThreadMin: the most workers at once
	// tasks counts the workers and the re-consume timers; closed by Shutdown.
	tasks service.Group

	qmu     sync.Mutex
	queue   []*consumeRequest // submitted, not yet taken by a worker
	workers int               // workers running

	mu    sync.Mutex
	later []*consumeRequest
}

type consumeRequest struct {
	msgs []*primitive.MessageExt
	pq   *ProcessQueue
	mq   primitive.MessageQueue
}

func newConsumeMessageConcurrentlyService(c *DefaultMQPushConsumer, l MessageListenerConcurrently) *ConsumeMessageConcurrentlyService {
	return &ConsumeMessageConcurrentlyService{c: c, listener: l, inline: c.cfg.Options.DisableScheduledTasks,
		threads: max(c.cfg.ConsumeThreadMin, 1)}
}

func (s *ConsumeMessageConcurrentlyService) Start() {}

// Shutdown refuses new batches and waits for those submitted (running or queued for a worker)
// and cancels the local re-consume timers. Java: #shutdown (which, with
// awaitTerminationMillisWhenShutdown 0, does not wait; see DefaultMQPushConsumer.Shutdown).
func (s *ConsumeMessageConcurrentlyService) Shutdown() {
	s.tasks.Close()
	s.tasks.Wait()
}

// SubmitConsumeRequest cuts msgs into batches of ConsumeMessageBatchMaxSize and runs each.
// Java: ConsumeMessageConcurrentlyService#submitConsumeRequest.
func (s *ConsumeMessageConcurrentlyService) SubmitConsumeRequest(msgs []*primitive.MessageExt, pq *ProcessQueue,
	mq primitive.MessageQueue, _ bool) {
	size := s.c.cfg.ConsumeMessageBatchMaxSize
	if s.c.tr.Enabled() {
		s.c.tr.Step("ConsumeMessageConcurrentlyService#submitConsumeRequest", slog.String("topic", mq.Topic),
			slog.Int("queueId", int(mq.QueueID)), slog.Int("messages", len(msgs)), slog.Int("consumeMessageBatchMaxSize", size))
	}
	for i := 0; i < len(msgs); i += size {
		s.submit(&consumeRequest{msgs: msgs[i:min(i+size, len(msgs))], pq: pq, mq: mq})
	}
}

// submit queues r for the workers, starting one if fewer than ConsumeThreadMin run. After
// Shutdown began r is refused (dropped: its messages stay in the ProcessQueue, uncommitted).
func (s *ConsumeMessageConcurrentlyService) submit(r *consumeRequest) {
	if s.inline {
		s.run(r)
		return
	}
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.tasks.Closed() {
		return
	}
	s.queue = append(s.queue, r)
	if s.workers < s.threads && s.tasks.Go(s.work) {
		s.workers++
	}
}

// work is one worker: it runs queued batches until it finds the queue empty.
func (s *ConsumeMessageConcurrentlyService) work() {
	for {
		s.qmu.Lock()
		if len(s.queue) == 0 {
			s.workers--
			s.qmu.Unlock()
			return
		}
		r := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.qmu.Unlock()
		s.run(r)
	}
}

// submitConsumeRequestLater consumes r again after 5 s. Java: #submitConsumeRequestLater.
func (s *ConsumeMessageConcurrentlyService) submitConsumeRequestLater(r *consumeRequest) {
	if !s.inline {
		s.tasks.AfterFunc(consumeLaterDelay, func() { s.submit(r) })
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.tasks.Closed() {
		s.later = append(s.later, r)
	}
}

// RunDelayedConsumeRequests runs the batches waiting for local re-consumption (manual mode)
// and returns how many there were.
func (s *ConsumeMessageConcurrentlyService) RunDelayedConsumeRequests() int {
	rs := takeAll(&s.mu, &s.later)
	for _, r := range rs {
		s.submit(r)
	}
	return len(rs)
}

// takeAll empties *list under mu and returns what it held: the delayed work a consume
// service's RunDelayedConsumeRequests runs, taken at once so what it schedules again waits
// for the next call.
func takeAll[T any](mu *sync.Mutex, list *[]T) []T {
	mu.Lock()
	defer mu.Unlock()
	l := *list
	*list = nil
	return l
}

// run is ConsumeRequest#run: restore a retried message's topic, call the listener, settle.
func (s *ConsumeMessageConcurrentlyService) run(r *consumeRequest) {
	if r.pq.Dropped() {
		return
	}
	c := s.c
	resetRetryTopic(r.msgs, c.cfg.ConsumerGroup, c.now())
	ctx := &ConsumeConcurrentlyContext{MessageQueue: r.mq, AckIndex: int(^uint(0) >> 1)}
	status := s.callListener(r.msgs, ctx)
	if c.tr.Enabled() {
		c.tr.Step("ConsumeRequest#run", slog.String("topic", r.mq.Topic), slog.Int("queueId", int(r.mq.QueueID)),
			slog.String("offsets", offsetsOf(r.msgs)), slog.String("status", status.String()))
	}
	r.pq.SetLastConsumeTimestamp(c.now())
	if !r.pq.Dropped() {
		s.processConsumeResult(status, ctx, r)
	}
}

func (s *ConsumeMessageConcurrentlyService) callListener(msgs []*primitive.MessageExt, ctx *ConsumeConcurrentlyContext) (st ConsumeConcurrentlyStatus) {
	defer func() {
		if p := recover(); p != nil { // a panicking listener is a failed batch, as Java's catch (Throwable)
			s.c.log.Warn("consumeMessage exception", "group", s.c.cfg.ConsumerGroup, "panic", p)
			st = ReconsumeLater
		}
	}()
	return s.listener(msgs, ctx)
}

func offsetsOf(msgs []*primitive.MessageExt) string {
	s := ""
	for i, m := range msgs {
		if i > 0 {
			s += ","
		}
		s += strconv.FormatInt(m.QueueOffset, 10)
	}
	return s
}
