package ha

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// messageStore is what HA uses of the store (*store.DefaultMessageStore): the CommitLog's
// ends, its bytes, and (on a slave) appending a master's bytes.
type messageStore interface {
	GetMaxPhyOffset() store.CommitLogOffset
	GetMinPhyOffset() store.CommitLogOffset
	GetCommitLogData(offset store.CommitLogOffset) (store.SelectMappedBufferResult, bool)
	AppendToCommitLog(startOffset store.CommitLogOffset, data []byte) error
}

// HAService replicates one store's CommitLog: on a master it accepts slaves
// (AcceptSocketService, one HAConnection each) and answers SYNC_MASTER puts once a slave holds
// their bytes (GroupTransferService); on a slave its HAClient follows the master. Every
// broker runs all parts, as in Java: a slave listens on haListenPort too, a master's HAClient
// idles without a master address. It implements store.ReplicaService (SetReplicaService).
// Mirrors org.apache.rocketmq.store.ha.HAService.
//
// push2SlaveMaxOffset is the highest CommitLog offset (bytes) any slave acknowledged.
type HAService struct {
	store  messageStore
	cfg    *store.MessageStoreConfig
	clock  clock.Clock
	tr     *trace.Tracer
	log    *slog.Logger
	manual bool

	accept        *AcceptSocketService
	groupTransfer *GroupTransferService
	client        *HAClient
	// waitNotify wakes the write services when a SYNC_MASTER put waits (Java: waitNotifyObject).
	waitNotify *waitNotifyObject

	push2SlaveMaxOffset atomic.Int64
	connectionCount     atomic.Int32
	// loops counts the connections' read and write goroutines (Shutdown waits for them).
	loops sync.WaitGroup

	mu          sync.Mutex // guards connections, started, stopped
	connections []*HAConnection
	started     bool
	stopped     bool
}

// NewHAService builds the HA service of s (its config's haListenPort, haMasterAddress,
// intervals and batch size; its Options' Clock and ManualServices) and plugs it into s's
// CommitLog as its ReplicaService. Nothing listens or runs until Start. tr nil turns the step
// trace off; operating logs go to log (nil: tr's logger, else none). Java:
// HAService(defaultMessageStore), created by DefaultMessageStore's constructor.
func NewHAService(s *store.DefaultMessageStore, tr *trace.Tracer, log *slog.Logger) *HAService {
	if log == nil {
		log = tr.Logger()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &HAService{
		store:      s,
		cfg:        s.Config(),
		clock:      clock.Or(s.Options().Clock),
		tr:         tr,
		log:        log,
		manual:     s.Options().ManualServices,
		waitNotify: newWaitNotifyObject(),
	}
	h.accept = newAcceptSocketService(h)
	h.groupTransfer = newGroupTransferService(h)
	h.client = newHAClient(h)
	if addr := h.cfg.HaMasterAddress; addr != "" {
		h.client.masterAddress.Store(&addr)
	}
	s.CommitLog().SetReplicaService(h)
	return h
}

// Start listens on haListenPort (beginAccept) and, unless the store runs with ManualServices,
// starts the accept loop, GroupTransferService and HAClient. A port that is taken is an error
// naming it. Java: HAService#start.
func (h *HAService) Start() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started || h.stopped {
		return errors.New("ha: Start called twice or after Shutdown")
	}
	if h.tr.Enabled() {
		h.tr.Step("HAService#start", slog.String("brokerRole", h.cfg.BrokerRole),
			slog.Int("haListenPort", h.cfg.HaListenPort), slog.Bool("manual", h.manual))
	}
	if err := h.accept.BeginAccept(); err != nil {
		return err
	}
	h.started = true
	if h.manual {
		return nil
	}
	h.accept.start()
	h.groupTransfer.start()
	h.client.start()
	return nil
}

// Shutdown stops the HAClient, the accept loop, every connection and GroupTransferService
// (SYNC_MASTER puts still waiting are answered FLUSH_SLAVE_TIMEOUT) and waits for their
// goroutines (those of connections closed earlier too). Safe to call more than once and without Start. Java: HAService#shutdown.
func (h *HAService) Shutdown() {
	conns, first := h.markStopped()
	if !first {
		return
	}
	h.client.shutdown()
	h.accept.shutdown()
	for _, c := range conns {
		c.Close()
	}
	h.loops.Wait()
	h.groupTransfer.shutdown()
}

// markStopped marks the service stopped (no connection is added from now on) and returns the
// connections to close; first is false when it was stopped already.
func (h *HAService) markStopped() (conns []*HAConnection, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return nil, false
	}
	h.stopped = true
	return slices.Clone(h.connections), true
}

// AcceptSocketService is the master's listener.
func (h *HAService) AcceptSocketService() *AcceptSocketService { return h.accept }

// GroupTransferService is where SYNC_MASTER puts wait for a slave.
func (h *HAService) GroupTransferService() *GroupTransferService { return h.groupTransfer }

// HAClient is the slave's side (idle on a master).
func (h *HAService) HAClient() *HAClient { return h.client }

// Connections are the slaves connected now, oldest first.
func (h *HAService) Connections() []*HAConnection {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*HAConnection(nil), h.connections...)
}

// ConnectionCount is the number of connected slaves. Java: HAService#getConnectionCount.
func (h *HAService) ConnectionCount() int { return int(h.connectionCount.Load()) }

// Push2SlaveMaxOffset is the highest CommitLog offset (bytes) a slave acknowledged.
// Java: HAService#getPush2SlaveMaxOffset.
func (h *HAService) Push2SlaveMaxOffset() store.CommitLogOffset {
	return store.CommitLogOffset(h.push2SlaveMaxOffset.Load())
}

// IsSlaveOK: a slave is connected and push2SlaveMaxOffset is less than haSlaveFallbehindMax
// bytes behind masterPutWhere (a CommitLog offset). Java: HAService#isSlaveOK.
func (h *HAService) IsSlaveOK(masterPutWhere store.CommitLogOffset) bool {
	return h.connectionCount.Load() > 0 &&
		int64(masterPutWhere)-h.push2SlaveMaxOffset.Load() < h.cfg.HaSlaveFallbehindMax
}

// PutRequest queues a SYNC_MASTER put's request in GroupTransferService and wakes the write
// services so the bytes leave now. Java: HAService#putRequest plus the
// waitNotifyObject.wakeupAll() of CommitLog#submitReplicaRequest.
func (h *HAService) PutRequest(req *store.GroupCommitRequest) {
	h.groupTransfer.putRequest(req)
	h.waitNotify.wakeupAll()
}

// NotifyTransferSome raises push2SlaveMaxOffset to offset (a slave's acknowledged CommitLog
// offset) if it is higher and wakes GroupTransferService. Java: HAService#notifyTransferSome.
func (h *HAService) NotifyTransferSome(offset store.CommitLogOffset) {
	if h.tr.Enabled() { // logged before the value is visible (Push2SlaveMaxOffset)
		h.tr.Step("HAService#notifyTransferSome", slog.Int64("offset", int64(offset)),
			slog.Int64("push2SlaveMaxOffset", max(h.push2SlaveMaxOffset.Load(), int64(offset))))
	}
	for {
		cur := h.push2SlaveMaxOffset.Load()
		if int64(offset) <= cur || h.push2SlaveMaxOffset.CompareAndSwap(cur, int64(offset)) {
			break
		}
	}
	h.groupTransfer.notifyTransferSome()
}

// UpdateMasterAddress sets the master's HA address ("host:port") the HAClient follows; a
// change drops the connection to the old one. Java: HAService#updateMasterAddress.
func (h *HAService) UpdateMasterAddress(addr string) { h.client.updateMasterAddress(addr) }

// addConnection and removeConnection keep the connection list and count.
func (h *HAService) addConnection(c *HAConnection) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return false
	}
	if h.tr.Enabled() { // logged before the connection is visible (ConnectionCount)
		h.tr.Step("AcceptSocketService#run", slog.Int("connections", len(h.connections)+1))
	}
	h.connections = append(h.connections, c)
	h.connectionCount.Add(1)
	return true
}

func (h *HAService) removeConnection(c *HAConnection) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, x := range h.connections {
		if x == c {
			h.connections = append(h.connections[:i], h.connections[i+1:]...)
			h.connectionCount.Add(-1)
			return
		}
	}
}

// now is the HA clock in ms.
func (h *HAService) now() int64 { return clock.Millis(h.clock) }
