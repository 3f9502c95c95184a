package ha

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Waits of the HAClient loop (Java: waitForRunning(1000 * 5) without a master,
// selector.select(1000) per pass).
const (
	reconnectPause = 5 * time.Second
	// dialTimeout bounds a connect to the master.
	dialTimeout     = 3 * time.Second
	clientReadSlice = time.Second
	// behindLogInterval is how often the slave logs whom it follows and how far it has copied
	// (and the master how far behind each slave is).
	behindLogInterval = 30 * time.Second
)

// HAClient is the slave's side: it connects to the master's HA address (haMasterAddress or
// the one learnt from the name server, UpdateMasterAddress), reports its max CommitLog offset
// (8 bytes, big-endian) at once and then every haSendHeartbeatInterval and whenever it grew,
// and appends each frame's body to its own CommitLog at exactly the frame's offset; the
// store's reput then builds the slave's ConsumeQueues and index. A frame whose offset is not
// the slave's max offset, a malformed header, a failed append or a master silent for
// haHousekeepingInterval closes the connection; the loop reconnects after a pause.
// Mirrors HAService.HAClient.
//
// Deviation: Java sends the first report haSendHeartbeatInterval (5 s) after connecting
// (connectMaster sets lastWriteTimestamp = now); we report at once, so a slave starts
// replicating as soon as it is connected.
type HAClient struct {
	h   *HAService
	svc *service.ServiceThread

	masterAddress atomic.Pointer[string]
	// pause is the wait before reconnecting (reconnectPause; tests shorten it).
	pause    time.Duration
	stopping atomic.Bool // shutdown began: no new connection
	// ctx is cancelled by shutdown: a connect in progress is abandoned.
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex // guards conn (Close and updateMasterAddress from other goroutines)
	conn net.Conn
	// connAddr is the master address conn was dialled to.
	connAddr string
	// dialed is a connection Dial opened for the next ConnectMaster (to dialedAddr).
	dialed     net.Conn
	dialedAddr string

	// The rest belongs to the goroutine stepping the client (the loop or a chapter).
	lastWriteTimestamp    int64 // HA clock (ms) of the last report, 0 right after connecting
	lastReadTimestamp     int64 // HA clock (ms) of the last read that returned bytes
	currentReportedOffset int64
	buf                   []byte // [dispatchPosition:n) not yet dispatched
	n, dispatchPosition   int
	receivedBytes         int64 // CommitLog bytes appended since the last logBehind
	lastBehindLog         int64
	rlog                  reconnectLog // rate-limits the reconnect WARNs
}

func newHAClient(h *HAService) *HAClient {
	ctx, cancel := context.WithCancel(context.Background())
	return &HAClient{h: h, svc: service.New("HAClient"), pause: reconnectPause, ctx: ctx, cancel: cancel}
}

// MasterAddress is the master HA address followed, "" when none.
func (c *HAClient) MasterAddress() string {
	if a := c.masterAddress.Load(); a != nil {
		return *a
	}
	return ""
}

// updateMasterAddress sets the master address; a change closes a connection to the old one.
func (c *HAClient) updateMasterAddress(addr string) {
	old := c.masterAddress.Swap(&addr)
	if old != nil && *old == addr {
		return
	}
	c.h.log.Info("update master HA address", "old", deref(old), "new", addr)
	c.mu.Lock()
	if c.conn != nil && c.connAddr != addr {
		_ = c.conn.Close()
	}
	c.mu.Unlock()
	c.svc.Wakeup() // a loop pausing without a master connects now
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Dial opens the TCP connection to the master without taking it into use (no step is
// logged); the next ConnectMaster does. With ManualServices a chapter dials first, lets the
// master accept (AcceptSocketService#run), then calls ConnectMaster, so the steps come in the
// mind map's order. It returns the dial's error.
func (c *HAClient) Dial() error {
	c.mu.Lock()
	busy := c.conn != nil || c.dialed != nil
	c.mu.Unlock()
	if busy {
		return nil
	}
	conn, addr, err := c.dial()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil || c.dialed != nil || !c.usable(addr) {
		_ = conn.Close()
		return nil
	}
	c.dialed, c.dialedAddr = conn, addr
	return nil
}

// dial connects to the master address, within dialTimeout; shutdown abandons a connect in
// progress. It runs without mu, so UpdateMasterAddress, CloseMaster and Connected do not wait
// for a master that does not answer the handshake.
func (c *HAClient) dial() (net.Conn, string, error) {
	addr := c.MasterAddress()
	if addr == "" || c.stopping.Load() {
		return nil, addr, errors.New("ha: no master address")
	}
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(c.ctx, "tcp", addr)
	if err != nil {
		return nil, addr, err
	}
	return conn, addr, nil
}

// usable: a connection just dialled to addr may be taken into use — the client is not
// shutting down and addr is still the master address (it may have changed during the dial).
// The caller holds mu.
func (c *HAClient) usable(addr string) bool { return !c.stopping.Load() && addr == c.MasterAddress() }

// ConnectMaster dials the master when not connected (and a master address is known) and
// reports whether the client is connected. A new connection starts from the slave's max
// offset. Java: HAClient#connectMaster.
func (c *HAClient) ConnectMaster() bool {
	c.mu.Lock()
	if c.conn != nil {
		c.mu.Unlock()
		return true
	}
	conn, addr := c.dialed, c.dialedAddr
	c.dialed = nil
	c.mu.Unlock()
	if conn == nil {
		var err error
		if conn, addr, err = c.dial(); err != nil {
			if addr != "" && !c.stopping.Load() {
				c.logConnectFailure(addr, err)
			}
			return false
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil || !c.usable(addr) {
		_ = conn.Close()
		return c.conn != nil
	}
	c.conn, c.connAddr = conn, addr
	c.currentReportedOffset = int64(c.h.store.GetMaxPhyOffset())
	c.lastWriteTimestamp = 0
	c.lastReadTimestamp = c.h.now()
	c.n, c.dispatchPosition = 0, 0
	c.rlog.connected()
	if c.buf == nil {
		c.buf = make([]byte, readMaxBufferSize)
	}
	if tr := c.h.tr; tr.Enabled() {
		tr.Step("HAClient#connectMaster", slog.Int64("slaveMaxOffset", c.currentReportedOffset))
	}
	c.h.log.Info("HAClient connected to master", "master", addr, "slaveMaxOffset", c.currentReportedOffset)
	return true
}

// Connected reports whether the client holds a connection to the master.
func (c *HAClient) Connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil
}

func (c *HAClient) socket() net.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// CloseMaster closes the connection to the master (the loop reconnects).
// Java: HAClient#closeMaster.
func (c *HAClient) CloseMaster() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dialed != nil {
		_ = c.dialed.Close()
		c.dialed = nil
	}
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
		c.h.log.Info("HAClient closed the connection to master", "master", c.connAddr)
	}
}

// IsTimeToReportOffset: haSendHeartbeatInterval passed since the last report (always true
// right after connecting). Java: HAClient#isTimeToReportOffset.
func (c *HAClient) IsTimeToReportOffset() bool {
	interval := c.h.now() - c.lastWriteTimestamp
	need := c.lastWriteTimestamp == 0 || interval > c.h.cfg.HaSendHeartbeatInterval.Milliseconds()
	if need {
		if tr := c.h.tr; tr.Enabled() {
			tr.Step("HAClient#isTimeToReportOffset", slog.Int64("currentReportedOffset", c.currentReportedOffset))
		}
	}
	return need
}

// ReportSlaveMaxOffset writes the 8-byte report of maxOffset (CommitLog bytes); false when
// the write failed. Java: HAClient#reportSlaveMaxOffset.
func (c *HAClient) ReportSlaveMaxOffset(maxOffset store.CommitLogOffset) bool {
	conn := c.socket()
	if conn == nil {
		return false
	}
	var b [ReportSize]byte
	putReport(b[:], int64(maxOffset))
	if !c.h.manual {
		_ = conn.SetWriteDeadline(socketDeadline(c.h.cfg.HaHousekeepingInterval))
	}
	if _, err := conn.Write(b[:]); err != nil {
		c.h.log.Warn("HAClient report to master failed", "master", c.connAddr, "err", err)
		return false
	}
	c.lastWriteTimestamp = c.h.now()
	return true
}

// ReportOnce reports currentReportedOffset when it is time (IsTimeToReportOffset); a failed
// write closes the connection. It reports whether a report was sent.
func (c *HAClient) ReportOnce() bool {
	if c.socket() == nil || !c.IsTimeToReportOffset() {
		return false
	}
	if !c.ReportSlaveMaxOffset(store.CommitLogOffset(c.currentReportedOffset)) {
		c.CloseMaster()
		return false
	}
	return true
}

// ReadOnce reads from the master until at least one whole frame was dispatched (blocking
// until the master writes) — the step a chapter plays with ManualServices. An error closes the
// connection.
func (c *HAClient) ReadOnce() error {
	err := c.processReadEvent(true)
	if err != nil {
		c.CloseMaster()
	}
	return err
}

// RunOnce is one pass of the client's loop: connect if needed, report when it is time, read
// for up to 1 s and dispatch what came, report a grown offset, and close a connection the
// master left silent for haHousekeepingInterval. It reports whether the client is connected
// at the end. Java: HAClient#run (one turn).
func (c *HAClient) RunOnce() bool {
	if !c.ConnectMaster() {
		return false
	}
	c.ReportOnce()
	conn := c.socket()
	if conn == nil {
		return false
	}
	_ = conn.SetReadDeadline(socketDeadline(clientReadSlice))
	if err := c.processReadEvent(false); err != nil {
		if !errors.Is(err, net.ErrClosed) {
			c.logReadFailure(err)
		}
		c.CloseMaster()
		return false
	}
	if interval := c.h.now() - c.lastReadTimestamp; interval > c.h.cfg.HaHousekeepingInterval.Milliseconds() {
		c.h.log.Warn("HAClient housekeeping: master silent, closing the connection", "master", c.connAddr,
			"silentMs", interval)
		c.CloseMaster()
		return false
	}
	c.logBehind()
	return true
}

// logBehind logs, every behindLogInterval, whom the slave follows, its max CommitLog offset
// and the bytes it appended since the last such line. How far behind the master it is, the
// slave cannot tell: the protocol never sends the master's max offset (a frame carries where
// its body goes), so the master logs the gap ("slave fall behind master ... behindBytes").
func (c *HAClient) logBehind() {
	now := c.h.now()
	if now-c.lastBehindLog < behindLogInterval.Milliseconds() {
		return
	}
	c.lastBehindLog = now
	c.h.log.Info("slave replicating from master", "master", c.connAddr,
		"slaveMaxOffset", int64(c.h.store.GetMaxPhyOffset()), "receivedBytes", c.receivedBytes)
	c.receivedBytes = 0
}

// start runs the loop until shutdown. Java: HAClient#run.
func (c *HAClient) start() {
	c.svc.Start(func() {
		for !c.svc.Stopped() {
			if !c.RunOnce() && !c.svc.Stopped() {
				c.svc.WaitForRunning(c.pause)
			}
		}
		c.CloseMaster()
	})
}

// shutdown stops the loop and closes the connection. Java: HAClient#shutdown.
func (c *HAClient) shutdown() {
	c.stopping.Store(true)
	c.cancel()      // abandons a connect
	c.CloseMaster() // unblocks a read
	c.svc.Shutdown()
	c.CloseMaster()
}

// processReadEvent reads once (a timeout is no error) — or, with whole, until a frame was
// dispatched — and dispatches the complete frames read. Java: HAClient#processReadEvent.
func (c *HAClient) processReadEvent(whole bool) error {
	conn := c.socket()
	if conn == nil {
		return net.ErrClosed
	}
	for {
		if c.n == len(c.buf) {
			c.compact()
			if c.n == len(c.buf) {
				return fmt.Errorf("%w: frame larger than the %d-byte read buffer", ErrProtocol, len(c.buf))
			}
		}
		m, err := conn.Read(c.buf[c.n:])
		if m > 0 {
			c.n += m
			c.lastReadTimestamp = c.h.now()
			c.rlog.received()
			if tr := c.h.tr; tr.Enabled() {
				tr.Step("HAClient#processReadEvent", slog.Int("readSize", m))
			}
			frames, derr := c.dispatchReadRequest()
			if derr != nil {
				return derr
			}
			if frames > 0 || !whole {
				return nil
			}
		}
		if err != nil {
			if isTimeout(err) && !whole {
				return nil
			}
			return err
		}
	}
}

// compact moves the undispatched bytes to the front of the buffer.
func (c *HAClient) compact() {
	rest := copy(c.buf, c.buf[c.dispatchPosition:c.n])
	c.n, c.dispatchPosition = rest, 0
}

// reportSlaveMaxOffsetPlus reports the slave's max offset when it grew past the last report.
// Java: HAClient#reportSlaveMaxOffsetPlus.
func (c *HAClient) reportSlaveMaxOffsetPlus() bool {
	cur := int64(c.h.store.GetMaxPhyOffset())
	if cur <= c.currentReportedOffset {
		return true
	}
	c.currentReportedOffset = cur
	return c.ReportSlaveMaxOffset(store.CommitLogOffset(cur))
}

// isTimeout reports whether err is a socket deadline passing (no error for a read slice).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
