package ha

import (
	"bytes"
	"log/slog"
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

// TestMasterLogLines: on the master, a slave that hangs up cleanly (EOF) is INFO, not a failed read; "slave fall behind master" is INFO only when the slave is behind
// (a caught-up slave, behindBytes=0, is not logged at INFO).
func TestMasterLogLines(t *testing.T) {
	log, w := logTo(slog.LevelInfo)
	master := startNodeLog(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil, log)

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
