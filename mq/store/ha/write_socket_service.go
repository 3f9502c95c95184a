package ha

import (
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Waits of the write loop (Java: Thread.sleep(10) before the first report,
// waitNotifyObject.allWaitForRunning(100) when there is no new data).
const (
	waitForFirstReport = 10 * time.Millisecond
	waitForData        = 100 * time.Millisecond
)

// WriteSocketService sends a slave the master's CommitLog: frames of a 12-byte header
// (8-byte physical offset, 4-byte body size, big-endian) and up to haTransferBatchSize bytes
// of CommitLog read from the store, never crossing a file end; a header with size 0 is a
// heartbeat, sent when haSendHeartbeatInterval passed without a write. Transfer starts at
// the slave's first report — or, when the slave reported 0 (an empty slave) and the master
// has data, at the start of the master's last CommitLog file, as Java does.
// Mirrors HAConnection.WriteSocketService.
//
//	+----------------------+----------------+-------------------------+
//	| phyOffset int64 (BE) | bodySize int32 | body: bodySize bytes of |
//	| CommitLog bytes      | (BE), 0 = beat | CommitLog at phyOffset  |
//	+----------------------+----------------+-------------------------+
//	 0                      8                12
type WriteSocketService struct {
	c *HAConnection
	// nextTransferFromWhere is the CommitLog offset (bytes) of the next byte to send, -1 until
	// the slave's first report. Atomic: read by other goroutines (NextTransferFromWhere).
	nextTransferFromWhere atomic.Int64
	// lastWriteTimestamp is the HA clock (ms) of the last frame sent.
	lastWriteTimestamp int64
	header             [HeaderSize]byte
}

func newWriteSocketService(c *HAConnection) *WriteSocketService {
	w := &WriteSocketService{c: c, lastWriteTimestamp: c.h.now()}
	w.nextTransferFromWhere.Store(-1)
	return w
}

// NextTransferFromWhere is the offset of the next byte to send, -1 before the slave reported.
func (w *WriteSocketService) NextTransferFromWhere() store.CommitLogOffset {
	return store.CommitLogOffset(w.nextTransferFromWhere.Load())
}

// run sends until the connection fails or is closed. Java: WriteSocketService#run.
func (w *WriteSocketService) run() {
	c := w.c
	defer c.Close()
	for {
		select {
		case <-c.closed:
			return
		default:
		}
		gen := c.h.waitNotify.generation() // before looking for data: no wake-up is lost
		if c.slaveRequestOffset.Load() < 0 {
			c.h.waitNotify.allWaitForRunning(gen, waitForFirstReport, c.closed)
			continue
		}
		sent, err := w.pass()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				c.h.log.Warn("HA write to slave failed; closing the connection", "slave", c.clientAddr, "err", err)
			}
			return
		}
		if !sent {
			c.h.waitNotify.allWaitForRunning(gen, waitForData, c.closed)
		}
	}
}

// pass is one turn of the loop without its waits; it reports whether it sent a frame.
func (w *WriteSocketService) pass() (bool, error) {
	c := w.c
	req := c.slaveRequestOffset.Load()
	if req < 0 {
		return false, nil
	}
	next := w.nextTransferFromWhere.Load()
	if next < 0 {
		next = req
		if req == 0 {
			size := int64(c.h.cfg.MappedFileSizeCommitLog)
			master := int64(c.h.store.GetMaxPhyOffset())
			next = max(master-master%size, 0)
		}
		w.nextTransferFromWhere.Store(next)
		c.h.log.Info("master transfer data to slave", "slave", c.clientAddr, "slaveRequestOffset", req,
			"nextTransferFromWhere", next)
		if minOffset := int64(c.h.store.GetMinPhyOffset()); next < minOffset {
			// Java waits here silently for ever: the bytes the slave lacks are gone.
			c.h.log.Warn("slave requested an offset below the master's first CommitLog file (deleted): it cannot "+
				"catch up; clear the slave's store to restart it from the master's last file", "slave", c.clientAddr,
				"slaveRequestOffset", req, "masterMinOffset", minOffset)
		}
	}
	heartbeat := c.h.now()-w.lastWriteTimestamp > c.h.cfg.HaSendHeartbeatInterval.Milliseconds()
	data, ok := c.h.store.GetCommitLogData(store.CommitLogOffset(next))
	if ok && len(data.Data) == 0 {
		data.Release()
		ok = false
	}
	if !ok && !heartbeat {
		return false, nil
	}
	defer data.Release()
	tr := c.h.tr
	if tr.Enabled() {
		tr.Step("WriteSocketService#run", slog.Int64("nextTransferFromWhere", next),
			slog.Int64("slaveRequestOffset", req), slog.Bool("heartbeat", !ok))
	}
	if !ok { // nothing new: a header alone keeps the slave's housekeeping quiet
		return true, w.transferData(next, nil)
	}
	body := data.Data[:min(len(data.Data), c.h.cfg.HaTransferBatchSize)]
	if err := w.transferData(next, body); err != nil {
		return true, err
	}
	w.nextTransferFromWhere.Store(next + int64(len(body)))
	return true, nil
}
