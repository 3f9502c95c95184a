package broker

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// FastFailureConfig holds the broker fast-failure settings; BrokerConfig embeds it, so its keys
// are broker.conf keys. Java: BrokerConfig (brokerFastFailureEnable, waitTimeMillsIn*Queue).
type FastFailureConfig struct {
	// BrokerFastFailureEnable runs BrokerFastFailure every 10 ms (true).
	BrokerFastFailureEnable bool `prop:"brokerFastFailureEnable"`
	// WaitTimeMillsInSendQueue: a send queued longer is answered SYSTEM_BUSY (200 ms).
	WaitTimeMillsInSendQueue time.Duration `prop:"waitTimeMillsInSendQueue"`
	// WaitTimeMillsInPullQueue: the same for pulls (5 s).
	WaitTimeMillsInPullQueue time.Duration `prop:"waitTimeMillsInPullQueue"`
	// WaitTimeMillsInHeartbeatQueue: the same for heartbeats (31 s).
	WaitTimeMillsInHeartbeatQueue time.Duration `prop:"waitTimeMillsInHeartbeatQueue"`
	// WaitTimeMillsInTransactionQueue: the same for END_TRANSACTION (3 s).
	WaitTimeMillsInTransactionQueue time.Duration `prop:"waitTimeMillsInTransactionQueue"`
}

// DefaultFastFailureConfig returns RocketMQ 4.9's defaults.
func DefaultFastFailureConfig() FastFailureConfig {
	return FastFailureConfig{
		BrokerFastFailureEnable:         true,
		WaitTimeMillsInSendQueue:        200 * time.Millisecond,
		WaitTimeMillsInPullQueue:        5 * time.Second,
		WaitTimeMillsInHeartbeatQueue:   31 * time.Second,
		WaitTimeMillsInTransactionQueue: 3 * time.Second,
	}
}

// fastFailureFirstDelay and fastFailureInterval: the sweep runs every 10 ms, first after 1 s.
// Java: BrokerFastFailure#start.
const (
	fastFailureFirstDelay = time.Second
	fastFailureInterval   = 10 * time.Millisecond
)

// fastFailurePools are the worker pools whose queues the sweep watches (one set per server:
// the main and the fast server have pools of their own).
type fastFailurePools struct {
	send, pull, heartbeat []*remoting.WorkerPool
	// endTransaction: END_TRANSACTION's pools (transaction_hooks.go).
	endTransaction []*remoting.WorkerPool
}

// BrokerFastFailure answers requests that would be answered too late anyway, so that clients
// fail fast and send elsewhere rather than time out: while the store's page cache is busy (a
// put has held the put lock longer than osPageCacheBusyTimeOutMills) every queued send gets
// SYSTEM_BUSY "[PCBUSY_CLEAN_QUEUE]..."; and sends, pulls, heartbeats and END_TRANSACTIONs that
// waited in their queue longer than waitTimeMillsIn{Send,Pull,Heartbeat,Transaction}Queue get SYSTEM_BUSY
// "[TIMEOUT_CLEAN_QUEUE]...". New sends are refused at the door meanwhile
// (SendMessageProcessor.RejectRequest: "[REJECTREQUEST]..."). A request answered here never
// reaches the store: a producer that retries it elsewhere stores it once.
// Mirrors org.apache.rocketmq.broker.latency.BrokerFastFailure.
type BrokerFastFailure struct {
	b   *BrokerController
	svc *service.ServiceThread
}

func newBrokerFastFailure(b *BrokerController) *BrokerFastFailure {
	return &BrokerFastFailure{b: b, svc: service.New("BrokerFastFailure")}
}

func (f *BrokerFastFailure) start() {
	f.svc.RunEvery(fastFailureFirstDelay, fastFailureInterval, func() {
		if f.b.cfg.BrokerFastFailureEnable {
			f.CleanExpiredRequest()
		}
	})
}

func (f *BrokerFastFailure) shutdown() { f.svc.Shutdown() }

// CleanExpiredRequest is one sweep; it returns how many requests it answered. Its step is
// logged when it answered any. Java: BrokerFastFailure#cleanExpiredRequest.
func (f *BrokerFastFailure) CleanExpiredRequest() int {
	b := f.b
	pools := b.fastFailurePools
	now := b.clock.Now() // the clock the broker's pools stamp queued requests with
	pcBusy := 0
	for _, p := range pools.send {
		pcBusy += p.AnswerQueued(func(q remoting.QueuedRequest, left int) *remoting.RemotingCommand {
			if b.messageStore == nil || !b.messageStore.IsOSPageCacheBusy() {
				return nil
			}
			return remoting.NewResponse(remoting.SystemBusy, fmt.Sprintf(
				"[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: %dms, size of queue: %d",
				now.Sub(q.Enqueued).Milliseconds(), left))
		})
	}
	send := f.cleanExpiredRequestInQueue(pools.send, b.cfg.WaitTimeMillsInSendQueue, now)
	pull := f.cleanExpiredRequestInQueue(pools.pull, b.cfg.WaitTimeMillsInPullQueue, now)
	heartbeat := f.cleanExpiredRequestInQueue(pools.heartbeat, b.cfg.WaitTimeMillsInHeartbeatQueue, now)
	endTx := f.cleanExpiredRequestInQueue(pools.endTransaction, b.cfg.WaitTimeMillsInTransactionQueue, now)
	total := pcBusy + send + pull + heartbeat + endTx
	if total > 0 {
		b.metrics.AddFastFailure(total)
		if b.tr.Enabled() {
			attrs := []slog.Attr{slog.Int("pcBusyCleaned", pcBusy), slog.Int("sendExpired", send),
				slog.Int("pullExpired", pull), slog.Int("heartbeatExpired", heartbeat)}
			if endTx > 0 { // only then, so the traces of sweeps without transactions stay as they were
				attrs = append(attrs, slog.Int("endTransactionExpired", endTx))
			}
			b.tr.Step("BrokerFastFailure#cleanExpiredRequest", attrs...)
		}
		b.log.Warn("broker fast failure answered queued requests SYSTEM_BUSY", "pcBusy", pcBusy,
			"send", send, "pull", pull, "heartbeat", heartbeat, "endTransaction", endTx)
	}
	return total
}

// cleanExpiredRequestInQueue answers, from each queue's head, the requests that waited at
// least maxWait, stopping at the first younger one (the queue is in arrival order).
// Java: BrokerFastFailure#cleanExpiredRequestInQueue.
func (f *BrokerFastFailure) cleanExpiredRequestInQueue(pools []*remoting.WorkerPool, maxWait time.Duration, now time.Time) int {
	n := 0
	for _, p := range pools {
		n += p.AnswerQueued(func(q remoting.QueuedRequest, left int) *remoting.RemotingCommand {
			behind := now.Sub(q.Enqueued)
			if behind < maxWait {
				return nil
			}
			return remoting.NewResponse(remoting.SystemBusy, fmt.Sprintf(
				"[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: %dms, size of queue: %d",
				behind.Milliseconds(), left))
		})
	}
	return n
}

// BrokerFastFailure returns the fast-failure sweep (nil before Initialize); chapters and tests
// call its CleanExpiredRequest directly.
func (b *BrokerController) BrokerFastFailure() *BrokerFastFailure { return b.brokerFastFailure }

// QueuedSends is the number of sends waiting in the send queues (what the page-cache-busy
// sweep would answer).
func (f *BrokerFastFailure) QueuedSends() int {
	n := 0
	for _, p := range f.b.fastFailurePools.send {
		n += p.QueueLen()
	}
	return n
}
