package ha

import (
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// HAConnection is the master's side of one slave: ReadSocketService reads the slave's reports,
// WriteSocketService sends it the CommitLog. Closing either closes both and drops the
// connection from the HAService; nothing else is touched. Mirrors
// org.apache.rocketmq.store.ha.HAConnection.
//
// slaveRequestOffset is -1 until the slave's first report, then that report: where transfer
// starts. slaveAckOffset is the slave's last reported max offset (CommitLog bytes).
type HAConnection struct {
	h          *HAService
	conn       netConn
	clientAddr string
	read       *ReadSocketService
	write      *WriteSocketService

	slaveRequestOffset atomic.Int64
	slaveAckOffset     atomic.Int64

	closeOnce sync.Once
	closed    chan struct{}
}

func newHAConnection(h *HAService, conn netConn) *HAConnection {
	c := &HAConnection{h: h, conn: conn, clientAddr: conn.RemoteAddr().String(), closed: make(chan struct{})}
	c.slaveRequestOffset.Store(-1)
	c.slaveAckOffset.Store(-1)
	c.read = newReadSocketService(c)
	c.write = newWriteSocketService(c)
	return c
}

// start runs the read and write loops. Java: HAConnection#start.
func (c *HAConnection) start() {
	c.h.loops.Add(2)
	go func() { defer c.h.loops.Done(); c.read.run() }()
	go func() { defer c.h.loops.Done(); c.write.run() }()
}

// ClientAddr is the slave's "host:port" as seen by the master.
func (c *HAConnection) ClientAddr() string { return c.clientAddr }

// SlaveRequestOffset is where transfer started (the slave's first report), -1 before it.
func (c *HAConnection) SlaveRequestOffset() store.CommitLogOffset {
	return store.CommitLogOffset(c.slaveRequestOffset.Load())
}

// SlaveAckOffset is the slave's last reported max CommitLog offset, -1 before its first report.
func (c *HAConnection) SlaveAckOffset() store.CommitLogOffset {
	return store.CommitLogOffset(c.slaveAckOffset.Load())
}

// ReadOnce reads until at least one complete 8-byte report arrived and processes it (blocking
// until the slave writes). An error (the slave closed, a negative offset) closes the
// connection. With ManualServices it is how a chapter plays the read loop.
func (c *HAConnection) ReadOnce() error {
	err := c.read.readReports(true)
	if err != nil {
		c.Close()
	}
	return err
}

// TransferOnce is one pass of the write loop without its waits: a heartbeat header when
// haSendHeartbeatInterval passed since the last write, then up to haTransferBatchSize bytes
// of CommitLog from where the slave is. It reports whether anything was sent; an error (write
// failed) closes the connection. With ManualServices it is how a chapter plays the write loop.
func (c *HAConnection) TransferOnce() (bool, error) {
	sent, err := c.write.pass()
	if err != nil {
		c.Close()
	}
	return sent, err
}

// Close closes the socket and removes the connection from the HAService; the loops end.
// Safe to call more than once. Java: HAConnection#shutdown.
func (c *HAConnection) Close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		_ = c.conn.Close()
		c.h.removeConnection(c)
		c.h.log.Info("HA connection closed", "slave", c.clientAddr)
	})
}

// Done is closed once the connection is closed.
func (c *HAConnection) Done() <-chan struct{} { return c.closed }
