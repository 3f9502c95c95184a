package ha

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// logTo is a text logger at level writing to a buffer the test reads while goroutines write.
func logTo(level slog.Level) (*slog.Logger, *trace.SyncWriter) {
	w := &trace.SyncWriter{W: new(bytes.Buffer)}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), w
}

// TestMasterLogLines: on the master, a slave reporting an offset beyond the master's CommitLog
// end gets a WARN that says what it means and the way out; a slave that hangs up cleanly (EOF)
// is INFO, not a failed read; "slave fall behind master" is INFO only when the slave is behind
// (a caught-up slave, behindBytes=0, is not logged at INFO).
func TestMasterLogLines(t *testing.T) {
	log, w := logTo(slog.LevelInfo)
	master := startNodeLog(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil, log)

	ahead := dialFakeSlave(t, master)
	ahead.report(t, 1000)
	_ = ahead.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := ahead.conn.Read(make([]byte, 64))
	require.Error(t, err, "the master closes the connection")
	require.Eventually(t, func() bool { return strings.Contains(w.String(), "remove its store directory") }, 5*time.Second, 5*time.Millisecond)
	require.Regexp(t, `level=WARN msg="slave reported an offset beyond the master's CommitLog end: its store holds data `+
		`this master never had \(e.g. it ran as a master\); a slave cannot be cut back: stop it, remove its store directory `+
		`\(storePathRootDir\), start it again; closing the connection" slave=127\.0\.0\.1:[0-9]+ slaveOffset=1000 masterMaxOffset=0`, w.String())

	caughtUp := dialFakeSlave(t, master) // the master is empty: 0 is its end
	caughtUp.report(t, 0)
	require.Eventually(t, func() bool {
		return strings.Contains(w.String(), `msg="slave requested offset" slave=`+caughtUp.conn.LocalAddr().String())
	}, 5*time.Second, 5*time.Millisecond, "log:\n%s", w)
	require.NoError(t, caughtUp.conn.Close())
	require.Eventually(t, func() bool {
		return strings.Contains(w.String(), `level=INFO msg="slave closed the HA connection" slave=`+caughtUp.conn.LocalAddr().String())
	}, 5*time.Second, 5*time.Millisecond)
	require.NotContains(t, w.String(), "HA read from slave failed", "a clean hang-up is no failure")
	require.NotContains(t, w.String(), "slave fall behind master", "behindBytes=0 is not logged at INFO")

	r := master.store.PutMessage(msg(0, 0))
	require.Equal(t, store.PutOK, r.PutMessageStatus)
	behind := dialFakeSlave(t, master)
	behind.report(t, 0)
	require.Eventually(t, func() bool {
		return strings.Contains(w.String(), `level=INFO msg="slave fall behind master" slave=`+behind.conn.LocalAddr().String()+
			" slaveAckOffset=0 behindBytes="+strconv.FormatInt(int64(master.store.GetMaxPhyOffset()), 10))
	}, 5*time.Second, 5*time.Millisecond)
}

// TestSlaveExplainsAMasterRefusingIt: a master that closes every connection right after the
// slave's first report, sending nothing (what ours does to a slave ahead of it), makes the
// slave say once, at WARN, what that most likely means and the way out; the reconnect WARN
// comes once too, its repeats at DEBUG, not every reconnect. Bytes from the master reset the
// limit: the next failure is warned again.
func TestSlaveExplainsAMasterRefusingIt(t *testing.T) {
	f := startFakeMaster(t)
	log, w := logTo(slog.LevelDebug)
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = f.ln.Addr().String()
	startNodeLog(t, sc, store.Options{}, nil, log)

	const refusedWarn = `level=WARN msg="the master closes each connection right after this slave's first report, having sent nothing`
	const refusedDebug = `level=DEBUG msg="the master closes each connection right after this slave's first report, having sent nothing`
	const readWarn = `level=WARN msg="HAClient read from master failed; reconnecting"`
	for range 5 {
		c, _ := f.next(t)
		require.NoError(t, c.Close())
	}
	require.Eventually(t, func() bool { return strings.Count(w.String(), refusedDebug) >= 3 }, 10*time.Second, 5*time.Millisecond,
		"log:\n%s", w)
	require.Equal(t, 1, strings.Count(w.String(), readWarn), "log:\n%s", w)
	require.Equal(t, 1, strings.Count(w.String(), refusedWarn), "log:\n%s", w)
	require.Contains(t, w.String(), "remove its store directory (storePathRootDir), start it again")
	require.Contains(t, w.String(), "closedInARow=2")

	c, off := f.next(t) // this master answers with a heartbeat, then hangs up
	_, err := c.Write(frame(off, nil))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return strings.Count(w.String(), readWarn) == 2 }, 10*time.Second, 5*time.Millisecond,
		"after bytes from the master a failure is warned again; log:\n%s", w)
}

// TestReconnectLogLimit: the same cause is warned once, then at DEBUG until
// reconnectWarnInterval passed, when the WARN counts the repeats; another cause is warned at
// once. A socket error's cause leaves out its addresses.
func TestReconnectLogLimit(t *testing.T) {
	log, w := logTo(slog.LevelDebug)
	var l reconnectLog
	l.warn(log, 0, "a", "m")
	l.warn(log, 1000, "a", "m")
	l.warn(log, reconnectWarnInterval.Milliseconds()-1, "a", "m")
	require.Equal(t, 1, strings.Count(w.String(), "level=WARN"))
	require.Equal(t, 2, strings.Count(w.String(), "level=DEBUG"))
	l.warn(log, reconnectWarnInterval.Milliseconds(), "a", "m")
	require.Equal(t, 2, strings.Count(w.String(), "level=WARN"))
	require.Contains(t, w.String(), "repeatsSinceLastWarn=2")
	l.warn(log, reconnectWarnInterval.Milliseconds()+1, "b", "m")
	require.Equal(t, 3, strings.Count(w.String(), "level=WARN"))

	e1 := &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{Port: 1}, Err: errors.New("connection reset by peer")}
	e2 := &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{Port: 2}, Err: errors.New("connection reset by peer")}
	require.NotEqual(t, e1.Error(), e2.Error())
	require.Equal(t, errCause(e1), errCause(e2))
	require.Equal(t, "EOF", errCause(io.EOF))
}
