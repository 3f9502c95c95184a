package broker

import (
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// PullRequest is a held (long-polling) pull: the original request and channel, how long it may
// be held, and the queue offset it waits beyond.
// Mirrors org.apache.rocketmq.broker.longpolling.PullRequest.
type PullRequest struct {
	RequestCommand *remoting.RemotingCommand
	ClientChannel  *remoting.Channel
	// Timeout is the hold time: the client's suspendTimeoutMillis with long polling, else
	// shortPollingTimeMills.
	Timeout time.Duration
	// SuspendTimestamp is when the request was held, on the hold service's clock
	// (SuspendPullRequest sets it); it is released once SuspendTimestamp + Timeout has passed.
	SuspendTimestamp time.Time
	// PullFromThisOffset is the requested queue offset (ConsumeQueue units).
	PullFromThisOffset int64
	SubscriptionData   protocol.SubscriptionData
	MessageFilter      *ExpressionMessageFilter
}

// ManyPullRequest is the list of pulls held for one "topic@queueId".
// Mirrors org.apache.rocketmq.broker.longpolling.ManyPullRequest.
type ManyPullRequest struct {
	mu   sync.Mutex
	list []*PullRequest
}

func (m *ManyPullRequest) add(rs ...*PullRequest) {
	m.mu.Lock()
	m.list = append(m.list, rs...)
	m.mu.Unlock()
}

func (m *ManyPullRequest) cloneListAndClear() []*PullRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.list
	m.list = nil
	return l
}

// DefaultMaxHeldPullRequests is BrokerConfig.MaxHeldPullRequests's default.
const DefaultMaxHeldPullRequests = 100000

// holdStore is the part of the message store the hold service reads.
type holdStore interface {
	GetMaxOffsetInQueue(topic string, queueID int32) store.QueueOffset
}

// PullRequestHoldService holds pulls that found no message and answers them when a message
// arrives for their queue (NotifyMessageArrivingListener → NotifyMessageArriving), on its sweep
// (every 5 s with long polling, else every shortPollingTimeMills), or when their hold time is up.
// An answer re-runs the original request with suspension disabled and writes the response with
// the original opaque. Mirrors org.apache.rocketmq.broker.longpolling.PullRequestHoldService.
//
// At most cfg.MaxHeldPullRequests requests are held at once (SuspendPullRequest refuses more).
//
// Lock: mu guards pullRequestTable; each ManyPullRequest has its own lock; held is atomic.
type PullRequestHoldService struct {
	cfg   *BrokerConfig
	store holdStore
	// wakeup re-runs a held request (PullMessageProcessor#executeRequestWhenWakeup).
	wakeup func(ch *remoting.Channel, req *remoting.RemotingCommand)
	tr     *trace.Tracer
	log    *slog.Logger
	clock  clock.Clock // a held request's suspend time and deadline
	svc    *service.ServiceThread

	mu               sync.Mutex
	pullRequestTable map[string]*ManyPullRequest
	// held counts the requests in pullRequestTable: taken by SuspendPullRequest before it adds
	// one, given back when one is answered.
	held atomic.Int64
}

// NewPullRequestHoldService returns the service (not started). clk (nil: the system clock) is
// the one clock of long polling: SuspendPullRequest stamps a request with it, and a request is
// released once SuspendTimestamp + Timeout has passed on it.
func NewPullRequestHoldService(cfg *BrokerConfig, store holdStore,
	wakeup func(ch *remoting.Channel, req *remoting.RemotingCommand), tr *trace.Tracer, log *slog.Logger,
	clk clock.Clock) *PullRequestHoldService {
	return &PullRequestHoldService{
		cfg: cfg, store: store, wakeup: wakeup, tr: tr, log: orDiscard(log), clock: clock.Or(clk),
		svc:              service.New("PullRequestHoldService"),
		pullRequestTable: map[string]*ManyPullRequest{},
	}
}

// buildKey returns "topic@queueId". Java: PullRequestHoldService#buildKey.
func buildKey(topic string, queueID int32) string {
	return string(appendKey(nil, topic, queueID))
}

// appendKey appends buildKey's "topic@queueId" to dst: a lookup through string(appendKey(buf[:0],
// …)) with a stack buffer allocates nothing, so a put that finds no held pull costs no garbage.
func appendKey(dst []byte, topic string, queueID int32) []byte {
	dst = append(append(dst, topic...), TopicGroupSeparator...)
	return strconv.AppendInt(dst, int64(queueID), 10)
}

// SuspendPullRequest holds r under topic@queueID and stamps its SuspendTimestamp with the
// service's clock, the one its deadline is checked on. It reports false, holding nothing, when
// cfg.MaxHeldPullRequests requests are already held: the caller answers r at once.
// Java: PullRequestHoldService#suspendPullRequest.
//
// Deviation: Java's PullMessageProcessor stamps the PullRequest (System.currentTimeMillis)
// before handing it over; here the service that compares the times also takes the first one.
// Java holds every request (no bound).
func (s *PullRequestHoldService) SuspendPullRequest(topic string, queueID int32, r *PullRequest) bool {
	if s.held.Add(1) > int64(s.cfg.MaxHeldPullRequests) {
		s.held.Add(-1)
		return false
	}
	r.SuspendTimestamp = s.clock.Now()
	key := buildKey(topic, queueID)
	s.mu.Lock()
	mpr := s.pullRequestTable[key]
	if mpr == nil {
		mpr = &ManyPullRequest{}
		s.pullRequestTable[key] = mpr
	}
	s.mu.Unlock()
	mpr.add(r)
	if s.tr.Enabled() {
		s.tr.Step("PullRequestHoldService#suspendPullRequest", slog.String("key", key),
			slog.Int64("offset", r.PullFromThisOffset), slog.Duration("hold", r.Timeout))
	}
	return true
}

// Start runs CheckHoldRequest every 5 s (long polling) or every shortPollingTimeMills.
// Java: PullRequestHoldService#run.
func (s *PullRequestHoldService) Start() {
	interval := 5 * time.Second
	if !s.cfg.LongPollingEnable {
		interval = s.cfg.ShortPollingTime
	}
	s.svc.RunEvery(interval, interval, s.CheckHoldRequest)
}

// Shutdown stops the sweep. Held requests are dropped unanswered (as in Java); clients time out.
func (s *PullRequestHoldService) Shutdown() { s.svc.Shutdown() }

// CheckHoldRequest re-checks every held key against its queue's max offset: requests whose
// queue grew are answered, as are those whose hold time is up.
// Java: PullRequestHoldService#checkHoldRequest.
func (s *PullRequestHoldService) CheckHoldRequest() {
	s.mu.Lock()
	keys := make([]string, 0, len(s.pullRequestTable))
	for k := range s.pullRequestTable {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	for _, key := range keys {
		i := strings.LastIndex(key, TopicGroupSeparator)
		if i < 0 {
			continue
		}
		qid, err := strconv.Atoi(key[i+1:])
		if err != nil {
			continue
		}
		topic, queueID := key[:i], int32(qid)
		s.notifyMessageArriving(topic, queueID, int64(s.store.GetMaxOffsetInQueue(topic, queueID)), 0, false)
	}
}

// NotifyMessageArriving answers the requests held on topic@queueID that wait below maxOffset
// (the queue's new max offset, ConsumeQueue units) and whose filter matches tagsCode, and those
// whose hold time is up; the others stay held.
// Java: PullRequestHoldService#notifyMessageArriving.
func (s *PullRequestHoldService) NotifyMessageArriving(topic string, queueID int32, maxOffset int64, tagsCode int64) {
	s.notifyMessageArriving(topic, queueID, maxOffset, tagsCode, true)
}

// notifyMessageArriving: haveTags false means "no tags code known" (the sweep), which matches
// every filter, as Java's null tagsCode does.
func (s *PullRequestHoldService) notifyMessageArriving(topic string, queueID int32, maxOffset int64, tagsCode int64, haveTags bool) {
	var kb [128]byte
	key := appendKey(kb[:0], topic, queueID)
	s.mu.Lock()
	mpr := s.pullRequestTable[string(key)]
	s.mu.Unlock()
	if mpr == nil {
		return
	}
	requests := mpr.cloneListAndClear()
	if len(requests) == 0 {
		return
	}
	now := s.clock.Now()
	var keep []*PullRequest
	woken := 0
	for _, r := range requests {
		newest := maxOffset
		if newest <= r.PullFromThisOffset {
			newest = int64(s.store.GetMaxOffsetInQueue(topic, queueID))
		}
		if newest > r.PullFromThisOffset {
			if !haveTags || r.MessageFilter == nil || r.MessageFilter.IsMatchedByConsumeQueue(tagsCode) {
				woken++
				s.wakeup(r.ClientChannel, r.RequestCommand)
				continue
			}
		}
		if !now.Before(r.SuspendTimestamp.Add(r.Timeout)) {
			woken++
			s.wakeup(r.ClientChannel, r.RequestCommand)
			continue
		}
		keep = append(keep, r)
	}
	if len(keep) > 0 {
		mpr.add(keep...)
	}
	s.held.Add(int64(-woken))
	if woken > 0 && s.tr.Enabled() {
		s.tr.Step("PullRequestHoldService#notifyMessageArriving", slog.String("key", string(key)),
			slog.Int64("maxOffset", maxOffset), slog.Int("woken", woken))
	}
}

// HeldCount returns how many requests are held (for tests and chapters).
func (s *PullRequestHoldService) HeldCount() int {
	s.mu.Lock()
	mprs := make([]*ManyPullRequest, 0, len(s.pullRequestTable))
	for _, m := range s.pullRequestTable {
		mprs = append(mprs, m)
	}
	s.mu.Unlock()
	n := 0
	for _, m := range mprs {
		m.mu.Lock()
		n += len(m.list)
		m.mu.Unlock()
	}
	return n
}

// NotifyMessageArrivingListener is the store's MessageArrivingListener: on every dispatched
// message it tells the hold service. Mirrors
// org.apache.rocketmq.broker.longpolling.NotifyMessageArrivingListener.
type NotifyMessageArrivingListener struct {
	hold *PullRequestHoldService
}

// Arriving implements store.MessageArrivingListener. logicOffset is the queue's max offset after
// the message (ConsumeQueue units). Java: NotifyMessageArrivingListener#arriving.
func (l *NotifyMessageArrivingListener) Arriving(topic string, queueID int32, logicOffset store.QueueOffset, tagsCode int64, storeTimestamp int64) {
	if l.hold == nil {
		return
	}
	l.hold.NotifyMessageArriving(topic, queueID, int64(logicOffset), tagsCode)
}
