package main

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
)

// runExit runs mqbroker as main does, without a signal (every case here fails before it
// would wait), and returns the exit status and what went to stdout and stderr.
func runExit(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = startup.ExitCode("mqbroker", run(args, &out, &errOut, nil), &errOut)
	return code, out.String(), errOut.String()
}

// TestErrorTexts: each error is printed once, with one "mqbroker: " prefix; a bad flag exits 2
// with the flag package's line and the usage; -h exits 0.
func TestErrorTexts(t *testing.T) {
	code, _, stderr := runExit("-x")
	require.Equal(t, 2, code)
	require.Equal(t, 1, strings.Count(stderr, "flag provided but not defined: -x"), stderr)
	require.Contains(t, stderr, "Usage: mqbroker")

	for _, args := range [][]string{{"-c", "/nonexistent/broker.conf"}, {"extra"}, {"-p", "-n", "garbage"}} {
		code, _, stderr = runExit(args...)
		require.Equal(t, 1, code, args)
		require.Equal(t, 1, strings.Count(stderr, "mqbroker:"), "one prefix, printed once: %q", stderr)
	}

	code, _, stderr = runExit("-h")
	require.Equal(t, 0, code)
	for _, d := range []string{"listenPort=10911", "listenPort-2", "bindAddress=0.0.0.0", "brokerIP1=127.0.0.1", "storePathRootDir=", "9876"} {
		require.Contains(t, stderr, d, "-h shows the defaults")
	}
}

// TestInvalidConfigStartsNothing: an invalid value stops the command before the in-process
// name server starts, with the message -p gives for it.
func TestInvalidConfigStartsNothing(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "")
	conf := overlay(t, "broker.conf", append(storeOverlay(t), "flushDiskType=FAST", "logLevel=TRACE")...)
	code, stdout, startErr := runExit("-c", conf)
	require.Equal(t, 1, code)
	require.NotContains(t, stdout, "Name Server boot success")
	require.Contains(t, startErr, `flushDiskType="FAST"`)
	require.Contains(t, startErr, `logLevel "TRACE"`)
	code, _, printErr := runExit("-c", conf, "-p")
	require.Equal(t, 1, code)
	require.Equal(t, startErr, printErr, "-p and a start say the same")
}

// listenWithFreeNext listens on an ephemeral loopback port P whose P+1 is free at the time, so a
// broker told listenPort=P fails on P, not on its HA port P+1 (which it binds first, as Java's
// store starts its HAService before the broker's servers).
func listenWithFreeNext(t *testing.T) net.Listener {
	t.Helper()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		next, err := net.Listen("tcp", ":"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port+1))
		if err == nil {
			require.NoError(t, next.Close())
			return ln
		}
		require.NoError(t, ln.Close())
	}
}

// TestFailedStartSaysNoShutdown: a broker whose port is taken reports that, and no "broker shut
// down" or "shutdown OK" for a broker that never ran.
func TestFailedStartSaysNoShutdown(t *testing.T) {
	ln := listenWithFreeNext(t)
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	conf := overlay(t, "broker.conf", append(storeOverlay(t), "listenPort="+port)...)
	code, stdout, stderr := runExit("-c", conf, "-n", "127.0.0.1:1")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "mqbroker: broker listen port "+port+" is taken")
	require.NotContains(t, stderr, "shut down")
	require.NotContains(t, stdout, "shutdown OK")
}
