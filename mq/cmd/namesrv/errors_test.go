package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
)

// runExit runs mqnamesrv as main does, without a signal (every case here ends before it would
// wait), and returns the exit status and what went to stdout and stderr.
func runExit(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = startup.ExitCode("mqnamesrv", run(args, &out, &errOut, nil), &errOut)
	return code, out.String(), errOut.String()
}

// TestErrorTexts: as mqbroker's, a bad flag exits 2 with the flag package's line and the usage
// on stderr (stdout stays empty); -h exits 0 with the usage on stderr; every other error is
// printed once, with one "mqnamesrv: " prefix, and exits 1; -p exits 0 with the properties
// alone on stdout.
func TestErrorTexts(t *testing.T) {
	code, stdout, stderr := runExit("-x")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Equal(t, 1, strings.Count(stderr, "flag provided but not defined: -x"), stderr)
	require.Contains(t, stderr, "Usage: mqnamesrv")

	code, stdout, stderr = runExit("-h")
	require.Equal(t, 0, code)
	require.Empty(t, stdout)
	for _, d := range []string{"Usage: mqnamesrv", "listenPort=9876", "bindAddress=0.0.0.0", "kvConfigPath="} {
		require.Contains(t, stderr, d, "-h shows the defaults")
	}

	for _, args := range [][]string{{"-c", "/nonexistent/namesrv.conf"}, {"extra"},
		{"-p", "-c", conftest.Write(t, "ns.conf", "bindAddress=localhost")}} {
		code, stdout, stderr = runExit(args...)
		require.Equal(t, 1, code, args)
		require.Empty(t, stdout, args)
		require.Equal(t, 1, strings.Count(stderr, "mqnamesrv:"), "one prefix, printed once: %q", stderr)
	}

	code, stdout, stderr = runExit("-p")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "listenPort=9876\n")
	require.Empty(t, stderr)
}
