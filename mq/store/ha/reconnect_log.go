package ha

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Rate limits of the slave's reconnect WARNs.
const (
	// reconnectWarnInterval: while a cause stays the same, at most one WARN per interval; the
	// repeats in between are logged at DEBUG and counted in the next WARN.
	reconnectWarnInterval = time.Minute
	// refusedAfterReport is how many connections in a row the master must close right after
	// the slave's first report, having sent nothing, before the slave says what that means.
	refusedAfterReport = 2
)

// reconnectLog keeps the HAClient's WARNs about a failed or lost connection to the master
// readable when the client reconnects every reconnectPause (5 s): the first WARN of a cause,
// then at most one per reconnectWarnInterval for the same cause. Bytes from the master reset
// it, so the next failure is warned again. It also notices a master that closes each
// connection right after the slave's first report without sending a byte — what our master
// does to a slave holding data it never had — and says so once per cause. It belongs to the
// goroutine stepping the client.
type reconnectLog struct {
	cause      string // cause of the last WARN; "" when none since the last bytes from the master
	warnedAt   int64  // HA clock (ms) of that WARN
	suppressed int    // repeats of cause logged at DEBUG since
	// readSinceConnect: the master sent bytes on the current connection.
	readSinceConnect bool
	// closedAfterReport counts connections in a row the master closed (EOF) after the slave's
	// first report and before sending anything.
	closedAfterReport int
	// mismatchLogged: a store.ErrFileSizeMismatch was logged at ERROR; later ones (each
	// reconnect gets the same bytes refused again) go to DEBUG. Bytes from the master do not
	// reset it: only a restart with the right mappedFileSizeCommitLog ends the refusals.
	mismatchLogged bool
}

// connected starts a new connection.
func (l *reconnectLog) connected() { l.readSinceConnect = false }

// received: bytes came from the master; the connection works.
func (l *reconnectLog) received() {
	if !l.readSinceConnect {
		l.readSinceConnect = true
		l.cause, l.suppressed, l.closedAfterReport = "", 0, 0
	}
}

// warn logs msg at WARN unless the same cause was warned less than reconnectWarnInterval ago
// (then at DEBUG); now is the HA clock in ms.
func (l *reconnectLog) warn(log *slog.Logger, now int64, cause, msg string, args ...any) {
	if cause == l.cause && now-l.warnedAt < reconnectWarnInterval.Milliseconds() {
		l.suppressed++
		log.Debug(msg, args...)
		return
	}
	if cause == l.cause && l.suppressed > 0 {
		args = append(args, "repeatsSinceLastWarn", l.suppressed)
	}
	l.cause, l.warnedAt, l.suppressed = cause, now, 0
	log.Warn(msg, args...)
}

// errCause is what makes two connection errors the same cause: the error without the
// addresses and ports of the socket (*net.OpError), so a new local port is no new cause.
func errCause(err error) string {
	if errors.Is(err, io.EOF) {
		return "EOF"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Op + ": " + op.Err.Error()
	}
	return err.Error()
}

// logConnectFailure logs a failed connect to the master at addr, rate-limited.
func (c *HAClient) logConnectFailure(addr string, err error) {
	c.rlog.warn(c.h.log, c.h.now(), "connect: "+errCause(err), "HAClient connect to master failed", "master", addr, "err", err)
}

// logReadFailure logs a failed read from the master, rate-limited; after refusedAfterReport
// connections in a row that the master closed right after the slave's first report, having
// sent nothing, it says what that most likely means and the way out instead.
func (c *HAClient) logReadFailure(err error) {
	l := &c.rlog
	if errors.Is(err, store.ErrFileSizeMismatch) {
		msg := "HAClient stops applying the master's bytes: this slave's commitlog files are not the master's size; " +
			"stop the slave, set its mappedFileSizeCommitLog to the master's, remove its store directory " +
			"(storePathRootDir), start it again"
		if l.mismatchLogged {
			c.h.log.Debug(msg, "master", c.connAddr, "err", err)
			return
		}
		l.mismatchLogged = true
		c.h.log.Error(msg, "master", c.connAddr, "slaveMaxOffset", int64(c.h.store.GetMaxPhyOffset()), "err", err)
		return
	}
	if errors.Is(err, io.EOF) && !l.readSinceConnect && c.lastWriteTimestamp != 0 {
		l.closedAfterReport++
	} else {
		l.closedAfterReport = 0
	}
	if l.closedAfterReport >= refusedAfterReport {
		l.warn(c.h.log, c.h.now(), "refused after report",
			"the master closes each connection right after this slave's first report, having sent nothing: it refuses "+
				"the slave's offset, most likely because this slave's store holds data the master never had (e.g. it "+
				"ran as a master; the master's log says so); a slave cannot be cut back: stop it, remove its store "+
				"directory (storePathRootDir), start it again",
			"master", c.connAddr, "slaveMaxOffset", c.currentReportedOffset, "closedInARow", l.closedAfterReport)
		return
	}
	l.warn(c.h.log, c.h.now(), "read: "+errCause(err), "HAClient read from master failed; reconnecting",
		"master", c.connAddr, "err", err)
}
