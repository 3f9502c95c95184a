package consumer

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// pullTask keeps one queue's cache filled: each run checks the queue is not paused and the
// caches are below their thresholds, pulls PullBatchSize messages from the next pull offset
// (long polling, the expression sent with the pull), stores what came in the queue's
// ProcessQueue and submits it to the consume request cache, and says when to run again.
// Mirrors DefaultLitePullConsumerImpl.PullTaskImpl.
//
// Without DisableScheduledTasks each task is a goroutine of its own (counted by the consumer's
// service.Group) that sleeps the returned delay between runs; cancel stops it and a pull in
// flight. Otherwise the caller runs it (DefaultLitePullConsumer.RunPullTask).
// Deviation: Java schedules the tasks on a pool of pullThreadNums threads; here a goroutine per
// task, with at most pullThreadNums pulls in flight (the consumer's semaphore).
type pullTask struct {
	c      *DefaultLitePullConsumer
	mq     primitive.MessageQueue
	ctx    context.Context
	cancel context.CancelFunc
}

// Cancelled reports whether the task was cancelled (its queue taken away, or shutdown).
func (t *pullTask) Cancelled() bool { return t.ctx.Err() != nil }

// loop runs the task until it is cancelled, waiting the delay each run returns.
func (t *pullTask) loop() {
	for !t.Cancelled() {
		d := t.run()
		if d <= 0 {
			continue
		}
		tm := time.NewTimer(d)
		select {
		case <-t.ctx.Done():
			tm.Stop()
			return
		case <-tm.C:
		}
	}
}

// run is one pass and returns the delay before the next: 1 s while the queue is paused, 50 ms
// under flow control (the cache of consume requests holds more than PullThresholdForAll
// messages; the queue's ProcessQueue more than PullThresholdForQueue messages, more than
// PullThresholdSizeForQueue MiB, or a span over ConsumeMaxSpan), PullTimeDelayWhenException
// after a failed pull, 50 ms after NO_NEW_MSG / NO_MATCHED_MSG, 0 after FOUND. A negative
// delay means the task is done (cancelled, or its queue dropped). Java: PullTaskImpl#run.
func (t *pullTask) run() time.Duration {
	c := t.c
	if t.Cancelled() {
		return -1
	}
	mq := t.mq
	if c.assigned.IsPaused(mq) {
		c.tracePullTask(mq, "paused", -1, nil)
		return litePullDelayWhenPause
	}
	pq := c.assigned.ProcessQueue(mq)
	if pq == nil || pq.Dropped() {
		return -1
	}
	flow := ""
	switch {
	case int64(c.cache.size())*int64(c.cfg.PullBatchSize) > c.cfg.PullThresholdForAll:
		flow = "pullThresholdForAll"
	case pq.MsgCount() > c.cfg.PullThresholdForQueue:
		flow = "pullThresholdForQueue"
	case pq.MsgSize()>>20 > c.cfg.PullThresholdSizeForQueue:
		flow = "pullThresholdSizeForQueue"
	case pq.MaxSpan() > c.cfg.ConsumeMaxSpan:
		flow = "consumeMaxSpan"
	}
	if flow != "" {
		c.tracePullTask(mq, "flowControl="+flow, -1, nil)
		return pullTimeDelayWhenFlowControl
	}
	offset, seq := c.nextPullOffset(mq)
	if offset < 0 {
		c.tracePullTask(mq, "noOffset", offset, nil)
		return c.cfg.PullTimeDelayWhenException
	}
	sd := c.subscriptionFor(mq.Topic)
	res, err := c.pullSync(t.ctx, mq, sd, offset)
	if t.Cancelled() {
		return -1
	}
	if err != nil {
		c.tracePullTask(mq, "exception", offset, nil)
		c.log.Warn("lite pull exception", "mq", mq.String(), "err", err)
		return c.cfg.PullTimeDelayWhenException
	}
	c.tracePullTask(mq, res.PullStatus.String(), offset, res)
	// A seek while the pull was in flight wins: what the pull brought is not cached. seekMu,
	// held to the end, orders this against Seek; the cache is filled after AssignedMessageQueue's
	// lock is released, as neither lock is ever held while the other is taken (a pull task and
	// Poll once deadlocked taking them in opposite orders).
	c.seekMu.Lock()
	defer c.seekMu.Unlock()
	current := false
	if !c.assigned.with(mq, func(st *messageQueueState) {
		if seq != c.seekSeq[mq] || st.seekOffset != -1 {
			return
		}
		current = true
		st.pullOffset = res.NextBeginOffset
	}) {
		return -1
	}
	if current && res.PullStatus == client.PullFound && len(res.MsgFoundList) > 0 {
		pq.PutMessage(res.MsgFoundList)
		c.submitConsumeRequest(&liteConsumeRequest{msgs: res.MsgFoundList, mq: mq, pq: pq})
	}
	if res.PullStatus == client.PullFound {
		return 0
	}
	// Deviation: Java pulls again at once after NO_NEW_MSG (the broker held the pull); the short
	// pause keeps a broker that answers at once (long polling off) from being asked in a loop.
	return pullTimeDelayWhenFlowControl
}

// pullSync pulls up to PullBatchSize messages of mq from offset: suspend flag set (the broker
// holds the pull up to BrokerSuspendMaxTime), the expression sent with the pull, no commit
// offset (a lite pull consumer commits through its offset store).
// Java: DefaultLitePullConsumerImpl#pullSyncImpl with block = true.
func (c *DefaultLitePullConsumer) pullSync(ctx context.Context, mq primitive.MessageQueue, sd *protocol.SubscriptionData, offset int64) (*client.PullResult, error) {
	sysFlag := protocol.BuildPullSysFlag(false, true, true, false)
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
			defer func() { <-c.sem }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	res, err := c.pullAPI.PullKernelImplSync(ctx, PullKernelRequest{
		MQ: mq, SubExpression: sd.SubString, ExpressionType: sd.ExpressionType, SubVersion: sd.SubVersion,
		Offset: offset, MaxNums: c.cfg.PullBatchSize, SysFlag: sysFlag,
		BrokerSuspendMaxTime: c.cfg.BrokerSuspendMaxTime, Timeout: c.cfg.ConsumerTimeoutWhenSuspend,
	})
	if err != nil {
		return nil, err
	}
	return c.pullAPI.ProcessPullResult(mq, res, sd), nil
}

func (c *DefaultLitePullConsumer) tracePullTask(mq primitive.MessageQueue, status string, offset int64, res *client.PullResult) {
	if !c.tr.Enabled() {
		return
	}
	attrs := []slog.Attr{slog.String("topic", mq.Topic), slog.Int("queueId", int(mq.QueueID)), slog.String("status", status)}
	if offset >= 0 {
		attrs = append(attrs, slog.Int64("offset", offset))
	}
	if res != nil {
		attrs = append(attrs, slog.Int("messages", len(res.MsgFoundList)), slog.Int64("nextBeginOffset", res.NextBeginOffset))
	}
	c.tr.Step("PullTaskImpl#run", attrs...)
}

// updatePullTask cancels the tasks of topic's queues not in mqs, then starts tasks for the new
// ones. Java: DefaultLitePullConsumerImpl#updatePullTask (and #updateAssignPullTask, topic "").
func (c *DefaultLitePullConsumer) updatePullTask(topic string, mqs []primitive.MessageQueue) {
	keep := map[primitive.MessageQueue]bool{}
	for _, q := range mqs {
		keep[q] = true
	}
	c.tasksMu.Lock()
	var cancelled []primitive.MessageQueue
	for q, t := range c.taskTable {
		if (topic == "" || q.Topic == topic) && !keep[q] {
			t.cancel()
			delete(c.taskTable, q)
			cancelled = append(cancelled, q)
		}
	}
	c.tasksMu.Unlock()
	SortMessageQueues(cancelled)
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#updatePullTask", slog.String("topic", topic),
			slog.String("queues", queueIDs(mqs)), slog.String("cancelled", queueIDs(cancelled)))
	}
	c.startPullTask(mqs)
}

// startPullTask creates a task for each queue of mqs without one and, unless
// DisableScheduledTasks, starts it at once. Java: DefaultLitePullConsumerImpl#startPullTask.
func (c *DefaultLitePullConsumer) startPullTask(mqs []primitive.MessageQueue) {
	var started []primitive.MessageQueue
	c.tasksMu.Lock()
	for _, q := range mqs {
		if _, ok := c.taskTable[q]; !ok && c.newPullTask(q) {
			started = append(started, q)
		}
	}
	c.tasksMu.Unlock()
	if c.tr.Enabled() && len(started) > 0 {
		c.tr.Step("DefaultLitePullConsumerImpl#startPullTask", slog.String("queues", queueIDs(started)))
	}
}

// newPullTask puts a new task for mq into taskTable (cancelling the one there) and, unless
// DisableScheduledTasks, starts it; false after Shutdown. Call with tasksMu held.
func (c *DefaultLitePullConsumer) newPullTask(mq primitive.MessageQueue) bool {
	if c.closed {
		return false
	}
	if old := c.taskTable[mq]; old != nil {
		old.cancel()
	}
	ctx, cancel := context.WithCancel(c.baseCtx)
	t := &pullTask{c: c, mq: mq, ctx: ctx, cancel: cancel}
	c.taskTable[mq] = t
	if !c.cfg.Options.DisableScheduledTasks {
		c.tasks.Go(t.loop)
	}
	return true
}

// liteConsumeRequest is one pull's messages of one queue, waiting for Poll.
// Java: DefaultLitePullConsumerImpl.ConsumeRequest.
type liteConsumeRequest struct {
	msgs []*primitive.MessageExt
	mq   primitive.MessageQueue
	pq   *ProcessQueue
}

// consumeRequestCache is Java's consumeRequestCache (a LinkedBlockingQueue): FIFO, with a
// 1-slot signal channel that wakes a waiting Poll. mu guards reqs.
type consumeRequestCache struct {
	mu     sync.Mutex
	reqs   []*liteConsumeRequest
	signal chan struct{}
}

func newConsumeRequestCache() *consumeRequestCache {
	return &consumeRequestCache{signal: make(chan struct{}, 1)}
}

func (q *consumeRequestCache) put(r *liteConsumeRequest) int {
	q.mu.Lock()
	q.reqs = append(q.reqs, r)
	n := len(q.reqs)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return n
}

func (q *consumeRequestCache) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.reqs)
}

// removeQueue drops every request of mq and returns them (a seek). Java: clearMessageQueueInCache.
func (q *consumeRequestCache) removeQueue(mq primitive.MessageQueue) []*liteConsumeRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*liteConsumeRequest
	q.reqs = slices.DeleteFunc(q.reqs, func(r *liteConsumeRequest) bool {
		if r.mq == mq {
			out = append(out, r)
			return true
		}
		return false
	})
	return out
}

// submitConsumeRequest puts a pull's messages into the consume request cache, where Poll takes
// them. Java: DefaultLitePullConsumerImpl#submitConsumeRequest.
func (c *DefaultLitePullConsumer) submitConsumeRequest(r *liteConsumeRequest) {
	n := c.cache.put(r)
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#submitConsumeRequest", slog.String("topic", r.mq.Topic),
			slog.Int("queueId", int(r.mq.QueueID)), slog.Int("messages", len(r.msgs)),
			slog.Int64("firstOffset", r.msgs[0].QueueOffset), slog.Int("cachedRequests", n))
	}
}
