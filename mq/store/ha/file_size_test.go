package ha

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/stretchr/testify/require"
)

// TestSlaveWithLargerFilesStops: a slave whose CommitLog files (8 KiB) are larger than its
// master's (4 KiB) gets the master's end-of-file BLANK record inside its own file. It stops
// applying the master's bytes there — nothing written past the master's first file, which
// its reput would otherwise have taken for the end of its own — closes the connection and says
// once, at ERROR, what to fix; the reconnects that follow are refused the same way and logged
// at DEBUG only.
func TestSlaveWithLargerFilesStops(t *testing.T) {
	master := startNode(t, testConfig(t.TempDir(), store.AsyncMaster), store.Options{}, nil)
	log, w := logTo(slog.LevelDebug)
	sc := testConfig(t.TempDir(), store.Slave)
	sc.MappedFileSizeCommitLog = 8192
	sc.HaMasterAddress = master.haAddr()
	slave := startNodeLog(t, sc, store.Options{}, nil, log)
	waitReported(t, master, 1) // the slave starts from 0, not from the master's last file

	var firstFileEnd store.CommitLogOffset // where the master's BLANK record starts
	for i := 0; ; i++ {
		r := master.store.PutMessage(msg(0, i))
		require.Equal(t, store.PutOK, r.PutMessageStatus)
		if a := r.AppendMessageResult; a.WroteOffset >= 4096 {
			break
		} else {
			firstFileEnd = a.WroteOffset + store.CommitLogOffset(a.WroteBytes)
		}
	}
	putN(t, master.store, 100, 5, store.PutOK)

	const errorLine = `level=ERROR msg="HAClient stops applying the master's bytes: this slave's commitlog files are not the master's size; ` +
		`stop the slave, set its mappedFileSizeCommitLog to the master's, remove its store directory (storePathRootDir), start it again"`
	const debugLine = `level=DEBUG msg="HAClient stops applying the master's bytes`
	require.Eventually(t, func() bool { return strings.Count(w.String(), debugLine) >= 2 }, 10*time.Second, 5*time.Millisecond,
		"refused again after reconnecting; log:\n%s", w)
	out := w.String()
	require.Equal(t, 1, strings.Count(out, errorLine), "one ERROR; log:\n%s", out)
	require.NotContains(t, out, "level=WARN", "no reconnect WARNs either")
	require.Contains(t, out, "mappedFileSizeCommitLog=8192")
	require.Contains(t, out, "BLANK record at ")
	require.LessOrEqual(t, int64(slave.store.GetMaxPhyOffset()), int64(firstFileEnd), "nothing past the master's first file")
}
