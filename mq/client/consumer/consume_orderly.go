package consumer

import (
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ConsumeOrderlyStatus is an orderly listener's verdict on a batch.
// Mirrors org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus.
type ConsumeOrderlyStatus int

const (
	// ConsumeOrderlySuccess: the batch is consumed (committed at once with AutoCommit).
	ConsumeOrderlySuccess ConsumeOrderlyStatus = iota
	// ConsumeOrderlyRollback (AutoCommit off): the batch goes back and is consumed again after
	// SuspendCurrentQueueTime. Java marks it deprecated.
	ConsumeOrderlyRollback
	// ConsumeOrderlyCommit (AutoCommit off): commit every batch taken since the last commit.
	ConsumeOrderlyCommit
	// SuspendCurrentQueueAMoment: the batch failed; the queue pauses for SuspendCurrentQueueTime
	// and the same batch comes first again (until MaxReconsumeTimes, then the DLQ).
	SuspendCurrentQueueAMoment
)

// String returns Java's name.
func (s ConsumeOrderlyStatus) String() string {
	switch s {
	case ConsumeOrderlySuccess:
		return "SUCCESS"
	case ConsumeOrderlyRollback:
		return "ROLLBACK"
	case ConsumeOrderlyCommit:
		return "COMMIT"
	case SuspendCurrentQueueAMoment:
		return "SUSPEND_CURRENT_QUEUE_A_MOMENT"
	}
	return "ConsumeOrderlyStatus(" + strconv.Itoa(int(s)) + ")"
}

// ConsumeOrderlyContext travels with one orderly listener call.
// Mirrors org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext.
type ConsumeOrderlyContext struct {
	MessageQueue primitive.MessageQueue
	// AutoCommit (default true): SUCCESS commits the batch's offset. Off, only COMMIT does, and
	// ROLLBACK puts back everything taken since the last commit.
	AutoCommit bool
	// SuspendCurrentQueueTime overrides the consumer's SuspendCurrentQueueTime for this
	// batch's SUSPEND/ROLLBACK (-1: the consumer's); clamped to [10 ms, 30 s].
	SuspendCurrentQueueTime time.Duration
}

// MessageListenerOrderly consumes the batches of one queue one after another, in queue-offset
// order, never two of a queue at once. Mirrors
// org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly.
type MessageListenerOrderly func(msgs []*primitive.MessageExt, ctx *ConsumeOrderlyContext) ConsumeOrderlyStatus

// maxTimeConsumeContinuously is how long one ConsumeRequest keeps consuming a queue before it
// yields (resubmitting itself after 10 ms): 60 s. Java: the
// rocketmq.client.maxTimeConsumeContinuously property, 60 000 ms.
const maxTimeConsumeContinuously = 60 * time.Second

// ConsumeMessageOrderlyService runs a MessageListenerOrderly: a ConsumeRequest per queue takes
// the queue's messages in offset order from its ProcessQueue, one batch at a time, under the
// three locks — the broker's queue lock (ProcessQueue.Locked, renewed every 20 s by lockAll),
// the MessageQueueLock (one request of a queue runs at a time) and the ProcessQueue's consume
// lock (a rebalance does not release the queue while a batch runs). Mirrors
// org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService.
//
// Goroutines: one per ConsumeRequest, at most ConsumeThreadMin at once (a semaphore); the
// lockAll timer; timers for requests submitted later. With Options.DisableScheduledTasks a
// request runs on the submitting goroutine and everything delayed waits for
// RunDelayedConsumeRequests; lockAll runs when the caller calls LockMQPeriodically.
//
// mu guards later (manual mode), stopped and the delayed unlocks not yet run.
type ConsumeMessageOrderlyService struct {
	c        *DefaultMQPushConsumer
	listener MessageListenerOrderly
	inline   bool
	sem      chan struct{}
	mqLock   *MessageQueueLock
	tasks    service.Group

	mu        sync.Mutex
	stopped   bool
	later     []func()
	unlocks   map[int]func() // delayed unlocks waiting, by unlockSeq; Shutdown runs them
	unlockSeq int
}

func newConsumeMessageOrderlyService(c *DefaultMQPushConsumer, l MessageListenerOrderly) *ConsumeMessageOrderlyService {
	return &ConsumeMessageOrderlyService{c: c, listener: l, inline: c.cfg.Options.DisableScheduledTasks,
		sem: make(chan struct{}, c.cfg.ConsumeThreadMin), mqLock: NewMessageQueueLock(c.tr)}
}

// The orderly service is a ConsumeMessageService.
var _ ConsumeMessageService = (*ConsumeMessageOrderlyService)(nil)

// Start schedules lockAll (CLUSTERING): first after 1 s, then every RebalanceLockInterval
// (20 s). Java: ConsumeMessageOrderlyService#start.
func (s *ConsumeMessageOrderlyService) Start() {
	c := s.c
	if c.tr.Enabled() {
		c.tr.Step("ConsumeMessageOrderlyService#start", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("messageModel", string(c.cfg.MessageModel)), slog.Duration("lockInterval", RebalanceLockInterval))
	}
	if c.cfg.MessageModel != protocol.Clustering || s.inline {
		return
	}
	var tick func()
	tick = func() {
		s.LockMQPeriodically()
		s.tasks.AfterFunc(RebalanceLockInterval, tick)
	}
	s.tasks.AfterFunc(time.Second, tick)
}

// Shutdown stops taking requests, waits for those running, and (CLUSTERING) persists the
// offsets and unlocks every queue held. Java: ConsumeMessageOrderlyService#shutdown.
func (s *ConsumeMessageOrderlyService) Shutdown() {
	s.mu.Lock()
	s.stopped = true
	s.later = nil
	s.mu.Unlock()
	s.tasks.Close()
	s.tasks.Wait()
	s.mu.Lock()
	unlocks := s.unlocks
	s.unlocks = nil
	s.mu.Unlock()
	if s.c.cfg.MessageModel == protocol.Clustering && s.c.rebalance != nil {
		// Deviation: Java unlocks first and persists the offsets after; persisting first means
		// a member that locks a released queue reads this consumer's last offset.
		s.c.PersistConsumerOffset()
		s.c.rebalance.UnlockAll(false)
	}
	// The delayed unlocks of queues removed shortly before run now, so their new owners need
	// not wait for the broker's 60 s expiry (the timers were cancelled by Close).
	for _, id := range slices.Sorted(maps.Keys(unlocks)) {
		unlocks[id]()
	}
}

// unlockLater runs f, the delayed unlock of a removed queue, after d; one still waiting at
// Shutdown runs then. Java: RebalancePushImpl#unlockDelay's scheduled task.
func (s *ConsumeMessageOrderlyService) unlockLater(d time.Duration, f func()) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		f()
		return
	}
	id := s.unlockSeq
	s.unlockSeq++
	if s.unlocks == nil {
		s.unlocks = map[int]func(){}
	}
	s.unlocks[id] = f
	s.mu.Unlock()
	s.schedule(d, func() {
		s.mu.Lock()
		f, ok := s.unlocks[id]
		delete(s.unlocks, id)
		s.mu.Unlock()
		if ok {
			f()
		}
	})
}

func (s *ConsumeMessageOrderlyService) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// LockMQPeriodically renews the locks of the queues held (RebalanceImpl#lockAll), unless the
// service stopped. Java: ConsumeMessageOrderlyService#lockMQPeriodically.
func (s *ConsumeMessageOrderlyService) LockMQPeriodically() {
	if !s.isStopped() {
		s.c.rebalance.LockAll()
	}
}

// lockOneMQ locks mq (RebalanceImpl#lock), unless the service stopped. Java: #lockOneMQ.
func (s *ConsumeMessageOrderlyService) lockOneMQ(mq primitive.MessageQueue) bool {
	return !s.isStopped() && s.c.rebalance.Lock(mq)
}

// SubmitConsumeRequest starts a ConsumeRequest for mq when dispatchToConsume (no request of
// the queue is running): the request takes its messages from pq, not from msgs.
// Java: ConsumeMessageOrderlyService#submitConsumeRequest.
func (s *ConsumeMessageOrderlyService) SubmitConsumeRequest(msgs []*primitive.MessageExt, pq *ProcessQueue,
	mq primitive.MessageQueue, dispatchToConsume bool) {
	if s.c.tr.Enabled() {
		s.c.tr.Step("ConsumeMessageOrderlyService#submitConsumeRequest", slog.String("topic", mq.Topic),
			slog.Int("queueId", int(mq.QueueID)), slog.Int("messages", len(msgs)), slog.Bool("dispatchToConsume", dispatchToConsume))
	}
	if !dispatchToConsume {
		return
	}
	r := &orderlyRequest{pq: pq, mq: mq}
	if s.inline {
		s.run(r)
		return
	}
	s.tasks.Go(func() {
		s.sem <- struct{}{}
		defer func() { <-s.sem }()
		s.run(r)
	})
}

// schedule runs f after d; in manual mode it waits for RunDelayedConsumeRequests.
func (s *ConsumeMessageOrderlyService) schedule(d time.Duration, f func()) {
	if !s.inline {
		s.tasks.AfterFunc(d, f)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.later = append(s.later, f)
	}
}

// RunDelayedConsumeRequests runs what waits on a delay in manual mode (requests submitted
// later, lock retries, delayed unlocks), in the order scheduled, and returns how many ran.
func (s *ConsumeMessageOrderlyService) RunDelayedConsumeRequests() int {
	fs := takeAll(&s.mu, &s.later)
	for _, f := range fs {
		f()
	}
	return len(fs)
}

// submitConsumeRequestLater submits a request for mq after d (-1: SuspendCurrentQueueTime),
// clamped to [10 ms, 30 s]. Java: #submitConsumeRequestLater.
func (s *ConsumeMessageOrderlyService) submitConsumeRequestLater(pq *ProcessQueue, mq primitive.MessageQueue, d time.Duration) {
	if d < 0 {
		d = s.c.cfg.SuspendCurrentQueueTime
	}
	d = min(max(d, 10*time.Millisecond), 30*time.Second)
	s.schedule(d, func() { s.SubmitConsumeRequest(nil, pq, mq, true) })
}

// tryLockLaterAndReconsume asks for mq's lock after d, then submits a request after 10 ms when
// granted, after 3 s when not. Java: #tryLockLaterAndReconsume.
func (s *ConsumeMessageOrderlyService) tryLockLaterAndReconsume(pq *ProcessQueue, mq primitive.MessageQueue, d time.Duration) {
	s.schedule(d, func() {
		if s.lockOneMQ(mq) {
			s.submitConsumeRequestLater(pq, mq, 10*time.Millisecond)
		} else {
			s.submitConsumeRequestLater(pq, mq, 3*time.Second)
		}
	})
}

type orderlyRequest struct {
	pq *ProcessQueue
	mq primitive.MessageQueue
}

// run is ConsumeRequest#run: under the queue's MessageQueueLock, while the queue is locked on
// the broker (CLUSTERING) and its lock not expired, take a batch, consume it under the
// ProcessQueue's consume lock and settle it, until the tree is empty, the listener asks to
// pause, or 60 s have passed. A queue not locked asks for its lock again later.
func (s *ConsumeMessageOrderlyService) run(r *orderlyRequest) {
	c := s.c
	if r.pq.Dropped() {
		return
	}
	clustering := c.cfg.MessageModel == protocol.Clustering
	if c.tr.Enabled() {
		c.tr.Step("ConsumeRequest#run", slog.String("topic", r.mq.Topic), slog.Int("queueId", int(r.mq.QueueID)),
			slog.Bool("locked", r.pq.Locked()), slog.Bool("lockExpired", r.pq.IsLockExpired(c.now())),
			slog.Int64("cached", r.pq.MsgCount()))
	}
	lock := s.mqLock.FetchLockObject(r.mq)
	lock.Lock()
	defer lock.Unlock()
	if clustering && (!r.pq.Locked() || r.pq.IsLockExpired(c.now())) {
		if !r.pq.Dropped() {
			s.tryLockLaterAndReconsume(r.pq, r.mq, 100*time.Millisecond)
		}
		return
	}
	begin := c.now()
	for continueConsume := true; continueConsume; {
		switch {
		case r.pq.Dropped():
			return
		case clustering && (!r.pq.Locked() || r.pq.IsLockExpired(c.now())):
			s.tryLockLaterAndReconsume(r.pq, r.mq, 10*time.Millisecond)
			return
		case c.now().Sub(begin) > maxTimeConsumeContinuously:
			s.submitConsumeRequestLater(r.pq, r.mq, 10*time.Millisecond)
			return
		}
		msgs := r.pq.TakeMessages(c.cfg.ConsumeMessageBatchMaxSize)
		if len(msgs) == 0 {
			return
		}
		resetRetryTopic(msgs, c.cfg.ConsumerGroup, c.now())
		ctx := &ConsumeOrderlyContext{MessageQueue: r.mq, AutoCommit: true, SuspendCurrentQueueTime: -1}
		cm := r.pq.ConsumeMu()
		if c.tr.Enabled() {
			c.tr.Step("ProcessQueue#getConsumeLock", slog.String("topic", r.mq.Topic), slog.Int("queueId", int(r.mq.QueueID)),
				slog.String("offsets", offsetsOf(msgs)))
		}
		cm.Lock()
		if r.pq.Dropped() {
			cm.Unlock()
			return
		}
		status := s.callListener(msgs, ctx)
		cm.Unlock()
		r.pq.SetLastConsumeTimestamp(c.now())
		continueConsume = s.processConsumeResult(msgs, status, ctx, r)
	}
}

// resetRetryTopic gives a message from %RETRY%group its original topic back and stamps the
// consume start time. Java: DefaultMQPushConsumerImpl#resetRetryAndNamespace.
func resetRetryTopic(msgs []*primitive.MessageExt, group string, now time.Time) {
	start := strconv.FormatInt(now.UnixMilli(), 10) // one string for the batch
	for _, m := range msgs {
		if t := m.GetProperty(primitive.PropertyRetryTopic); t != "" && m.Topic == protocol.GetRetryTopic(group) {
			m.Topic = t
		}
		m.PutProperty(primitive.PropertyConsumeStartTimestamp, start)
	}
}

func (s *ConsumeMessageOrderlyService) callListener(msgs []*primitive.MessageExt, ctx *ConsumeOrderlyContext) (st ConsumeOrderlyStatus) {
	defer func() {
		if p := recover(); p != nil { // a panicking listener suspends the queue, as Java's null status
			s.c.log.Warn("consumeMessage exception", "group", s.c.cfg.ConsumerGroup, "panic", p)
			st = SuspendCurrentQueueAMoment
		}
	}()
	return s.listener(msgs, ctx)
}

// processConsumeResult settles a batch and reports whether the request goes on with the next.
// AutoCommit: SUCCESS (and COMMIT/ROLLBACK, read as SUCCESS) commits the batch; SUSPEND puts it
// back to be consumed first again after the suspend time, or — for messages past
// MaxReconsumeTimes, sent to the DLQ — commits it. Without AutoCommit: COMMIT commits what was
// taken since the last commit, ROLLBACK puts all of it back, SUCCESS keeps it taken. A commit
// moves the in-memory offset to the batch's last queue offset + 1. Java: #processConsumeResult.
func (s *ConsumeMessageOrderlyService) processConsumeResult(msgs []*primitive.MessageExt, status ConsumeOrderlyStatus,
	ctx *ConsumeOrderlyContext, r *orderlyRequest) bool {
	c := s.c
	continueConsume := true
	commitOffset := int64(-1)
	suspend := func() {
		r.pq.MakeMessageToConsumeAgain(msgs)
		s.submitConsumeRequestLater(r.pq, r.mq, ctx.SuspendCurrentQueueTime)
		continueConsume = false
	}
	if ctx.AutoCommit {
		switch status {
		case ConsumeOrderlyCommit, ConsumeOrderlyRollback:
			c.log.Warn("the message queue consume result is illegal, we think you want to ack these message", "mq", r.mq.String())
			commitOffset = r.pq.Commit()
		case ConsumeOrderlySuccess:
			commitOffset = r.pq.Commit()
		case SuspendCurrentQueueAMoment:
			if s.checkReconsumeTimes(msgs, r.mq) {
				suspend()
			} else {
				commitOffset = r.pq.Commit()
			}
		}
	} else {
		switch status {
		case ConsumeOrderlyCommit:
			commitOffset = r.pq.Commit()
		case ConsumeOrderlyRollback:
			r.pq.Rollback()
			s.submitConsumeRequestLater(r.pq, r.mq, ctx.SuspendCurrentQueueTime)
			continueConsume = false
		case SuspendCurrentQueueAMoment:
			if s.checkReconsumeTimes(msgs, r.mq) {
				suspend()
			}
		}
	}
	if c.tr.Enabled() {
		c.tr.Step("ConsumeMessageOrderlyService#processConsumeResult", slog.String("topic", r.mq.Topic),
			slog.Int("queueId", int(r.mq.QueueID)), slog.String("offsets", offsetsOf(msgs)), slog.String("status", status.String()),
			slog.Bool("autoCommit", ctx.AutoCommit), slog.Int64("commitOffset", commitOffset), slog.Bool("continueConsume", continueConsume))
	}
	if commitOffset >= 0 && !r.pq.Dropped() {
		c.offsets.UpdateOffset(r.mq, commitOffset, false)
	}
	return continueConsume
}

// maxReconsumeTimesOrderly is MaxReconsumeTimes with -1 (the default) read as no limit.
// Java: ConsumeMessageOrderlyService#getMaxReconsumeTimes (Integer.MAX_VALUE).
func (s *ConsumeMessageOrderlyService) maxReconsumeTimesOrderly() int32 {
	if s.c.cfg.MaxReconsumeTimes == -1 {
		return math.MaxInt32
	}
	return s.c.cfg.MaxReconsumeTimes
}

// checkReconsumeTimes counts another attempt for each message and reports whether the batch
// is to be consumed again: a message that reached the maximum goes to %DLQ%group instead
// (and, if that send fails, is retried here like the others). Java: #checkReconsumeTimes.
func (s *ConsumeMessageOrderlyService) checkReconsumeTimes(msgs []*primitive.MessageExt, mq primitive.MessageQueue) bool {
	again := false
	maxTimes := s.maxReconsumeTimesOrderly()
	for _, m := range msgs {
		if m.ReconsumeTimes >= maxTimes {
			if err := s.sendMessageBack(m, mq); err != nil {
				s.c.log.Warn("sendMessageBack to the DLQ failed, consume it again", "msgId", m.MsgID, "err", err)
				again = true
				m.ReconsumeTimes++
			}
			continue
		}
		again = true
		m.ReconsumeTimes++
	}
	return again
}

// sendMessageBack sends a message past its reconsume limit to %DLQ%group.
// Deviation: Java sends a copy to %RETRY%group through the client's inner producer, with
// RECONSUME_TIME ≥ MAX_RECONSUME_TIMES so the broker stores it in the DLQ; here
// CONSUMER_SEND_MSG_BACK with delay level -1 asks the broker for the DLQ directly (same end).
func (s *ConsumeMessageOrderlyService) sendMessageBack(m *primitive.MessageExt, mq primitive.MessageQueue) error {
	if s.c.tr.Enabled() {
		s.c.tr.Step("ConsumeMessageOrderlyService#sendMessageBack", slog.Int64("queueOffset", m.QueueOffset),
			slog.Int("reconsumeTimes", int(m.ReconsumeTimes)), slog.String("to", protocol.GetDLQTopic(s.c.cfg.ConsumerGroup)))
	}
	return s.c.sendMessageBack(m, -1, mq.BrokerName)
}

// --- the push consumer's orderly hooks ---

// RegisterMessageListenerOrderly sets an orderly listener (before Start): the consumer then
// runs a ConsumeMessageOrderlyService and locks its queues on the brokers.
// Java: DefaultMQPushConsumer#registerMessageListener(MessageListenerOrderly).
func (c *DefaultMQPushConsumer) RegisterMessageListenerOrderly(l MessageListenerOrderly) {
	c.mu.Lock()
	c.listenerOrderly = l
	c.mu.Unlock()
}

// consumeOrderly reports an orderly listener. Java: DefaultMQPushConsumerImpl#consumeOrderly.
func (c *DefaultMQPushConsumer) consumeOrderly() bool { return c.listenerOrderly != nil }

// lockQueues reports a rebalance that locks its new queues on the broker (isOrder): an orderly
// consumer in CLUSTERING. Deviation: Java passes isOrder in BROADCASTING too, where every member
// takes every queue and all but the first would be refused the lock; a broadcasting orderly
// consumer needs no broker lock (ConsumeRequest#run does not ask for one), so it takes none.
func (c *DefaultMQPushConsumer) lockQueues() bool {
	return c.consumeOrderly() && c.cfg.MessageModel == protocol.Clustering
}

// newConsumeService returns the orderly service for an orderly listener, else the concurrent one.
func (c *DefaultMQPushConsumer) newConsumeService() ConsumeMessageService {
	if c.consumeOrderly() {
		return newConsumeMessageOrderlyService(c, c.listenerOrderly)
	}
	return newConsumeMessageConcurrentlyService(c, c.listener)
}

// pullOrderlyNotLocked is the orderly gate of pullMessage (CLUSTERING): a queue whose broker
// lock this client does not hold is not pulled; it is tried again in 3 s.
// Java: DefaultMQPushConsumerImpl#pullMessage ("pull message later because not locked in broker").
func (c *DefaultMQPushConsumer) pullOrderlyNotLocked(req *PullRequest) bool {
	if !c.consumeOrderly() || c.cfg.MessageModel != protocol.Clustering || req.ProcessQueue.Locked() {
		return false
	}
	c.log.Info("pull message later because not locked in broker", "mq", req.MessageQueue.String())
	c.executePullRequestLater(req, pullTimeDelayWhenException)
	return true
}

// orderlyLater schedules f, a delayed unlock, on the orderly service (unlockLater).
func (c *DefaultMQPushConsumer) orderlyLater(d time.Duration, f func()) {
	if s, ok := c.consume.(*ConsumeMessageOrderlyService); ok {
		s.unlockLater(d, f)
		return
	}
	f()
}
