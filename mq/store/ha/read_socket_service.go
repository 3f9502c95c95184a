package ha

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// netConn is the socket of a connection (net.Conn; tests may wrap one).
type netConn = net.Conn

// ReadSocketService reads a slave's reports on the master: 8-byte big-endian max CommitLog
// offsets. The first sets where transfer starts (slaveRequestOffset); each one is the slave's
// acknowledged offset (slaveAckOffset) and is passed to HAService#notifyTransferSome. A
// negative report, or one beyond the master's CommitLog end, closes the connection. A
// connection silent for haHousekeepingInterval is closed (the slave reports at least every
// haSendHeartbeatInterval). Mirrors HAConnection.ReadSocketService.
type ReadSocketService struct {
	c   *HAConnection
	buf []byte // [0:n) read, [0:processPosition) processed
	n   int
	// processPosition is the end of the reports already handled (a multiple of 8).
	processPosition int
	// lastReadTimestamp is the HA clock (ms) of the last read that returned bytes.
	lastReadTimestamp int64
	// lastBehindLog is the HA clock (ms) of the last "slave fall behind master" log.
	lastBehindLog int64
}

func newReadSocketService(c *HAConnection) *ReadSocketService {
	return &ReadSocketService{c: c, buf: make([]byte, ackReadBufferSize), lastReadTimestamp: c.h.now()}
}

// run reads until the connection fails or is closed. Java: ReadSocketService#run.
func (r *ReadSocketService) run() {
	defer r.c.Close()
	for {
		if err := r.readReports(false); err != nil {
			r.logReadError(err)
			return
		}
	}
}

// readReports reads once (or, with whole, until a full report is in) under the housekeeping
// deadline and processes what arrived.
func (r *ReadSocketService) readReports(whole bool) error {
	for {
		if !r.c.h.manual {
			_ = r.c.conn.SetReadDeadline(socketDeadline(r.c.h.cfg.HaHousekeepingInterval))
		}
		if r.n == len(r.buf) { // full: keep the unprocessed tail (less than 8 bytes)
			rest := copy(r.buf, r.buf[r.processPosition:r.n])
			r.n, r.processPosition = rest, 0
		}
		m, err := r.c.conn.Read(r.buf[r.n:])
		if m > 0 {
			r.n += m
			r.lastReadTimestamp = r.c.h.now()
			got, perr := r.processReadEvent()
			if perr != nil {
				return perr
			}
			if got || !whole {
				return nil
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				r.c.h.log.Warn("HA housekeeping: slave silent, closing the connection", "slave", r.c.clientAddr,
					"haHousekeepingInterval", r.c.h.cfg.HaHousekeepingInterval)
			}
			return err
		}
	}
}

// processReadEvent handles the reports read so far: of the complete 8-byte reports only the
// last counts (an older one is superseded). It reports whether one was handled.
// Java: ReadSocketService#processReadEvent.
func (r *ReadSocketService) processReadEvent() (bool, error) {
	if r.n-r.processPosition < ReportSize {
		return false, nil
	}
	pos := r.n - (r.n-r.processPosition)%ReportSize
	off, err := parseReport(r.buf[pos-ReportSize : pos])
	if err != nil {
		return false, err
	}
	if masterMax := int64(r.c.h.store.GetMaxPhyOffset()); off > masterMax {
		// Java closes on such a report after the first one; we close on the first too: a slave
		// cannot hold bytes the master never had, and taking the report would raise
		// push2SlaveMaxOffset past every later SYNC_MASTER put (Deviation).
		return false, &slaveAheadError{slaveOffset: off, masterMaxOffset: masterMax}
	}
	r.processPosition = pos
	if r.processPosition == r.n {
		r.n, r.processPosition = 0, 0
	}
	c := r.c
	// logged before the offsets are visible (SlaveAckOffset, SlaveRequestOffset); only this
	// goroutine writes them
	first := c.slaveRequestOffset.Load() < 0
	if tr := c.h.tr; tr.Enabled() {
		req := c.slaveRequestOffset.Load()
		if first {
			req = off
		}
		tr.Step("ReadSocketService#processReadEvent", slog.Int64("slaveAckOffset", off), slog.Bool("first", first),
			slog.Int64("slaveRequestOffset", req))
	}
	c.slaveAckOffset.Store(off)
	if first {
		c.slaveRequestOffset.Store(off)
	}
	if first {
		c.h.log.Info("slave requested offset", "slave", c.clientAddr, "slaveRequestOffset", off)
	}
	c.h.NotifyTransferSome(store.CommitLogOffset(off))
	r.logBehind(off)
	return true, nil
}

// logReadError logs why the read loop ends: a slave that hung up (EOF) at INFO; a slave ahead
// of the master at WARN, with what it means and the way out; any other error at WARN. A
// connection closed on this side (net.ErrClosed) and a silent slave (housekeeping logged it)
// are not logged again.
func (r *ReadSocketService) logReadError(err error) {
	var ahead *slaveAheadError
	switch {
	case errors.Is(err, net.ErrClosed), errors.Is(err, os.ErrDeadlineExceeded):
	case errors.Is(err, io.EOF):
		r.c.h.log.Info("slave closed the HA connection", "slave", r.c.clientAddr)
	case errors.As(err, &ahead):
		r.c.h.log.Warn("slave reported an offset beyond the master's CommitLog end: its store holds data this master "+
			"never had (e.g. it ran as a master); a slave cannot be cut back: stop it, remove its store directory "+
			"(storePathRootDir), start it again; closing the connection",
			"slave", r.c.clientAddr, "slaveOffset", ahead.slaveOffset, "masterMaxOffset", ahead.masterMaxOffset)
	default:
		r.c.h.log.Warn("HA read from slave failed; closing the connection", "slave", r.c.clientAddr, "err", err)
	}
}

// slaveAheadError is a slave's report beyond the master's CommitLog end (both CommitLog
// offsets); it is an ErrProtocol.
type slaveAheadError struct{ slaveOffset, masterMaxOffset int64 }

func (e *slaveAheadError) Error() string {
	return fmt.Sprintf("%v: slave reported offset %d beyond the master's commitlog end %d", ErrProtocol,
		e.slaveOffset, e.masterMaxOffset)
}

func (e *slaveAheadError) Unwrap() error { return ErrProtocol }

// logBehind logs, at most every behindLogInterval, how far the slave's acknowledged offset is
// behind the master's CommitLog end: at INFO when it is behind, at DEBUG when caught up.
// Java: BrokerController#printMasterAndSlaveDiff ("slave fall behind master: N bytes", every
// 60 s).
func (r *ReadSocketService) logBehind(ack int64) {
	now := r.c.h.now()
	if now-r.lastBehindLog < behindLogInterval.Milliseconds() {
		return
	}
	r.lastBehindLog = now
	behind := max(int64(r.c.h.store.GetMaxPhyOffset())-ack, 0)
	level := slog.LevelInfo
	if behind == 0 { // caught up: nothing has fallen behind
		level = slog.LevelDebug
	}
	r.c.h.log.Log(context.Background(), level, "slave fall behind master", "slave", r.c.clientAddr, "slaveAckOffset", ack,
		"behindBytes", behind)
}
