package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestStopSaysSo: the name server started from conf/namesrv.conf (overlaid with an ephemeral
// loopback port and a temp KV file) prints its boot line, and on a signal stops and prints
// "shutdown OK" with its address.
func TestStopSaysSo(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "conf", "namesrv.conf"))
	require.NoError(t, err)
	dir := t.TempDir()
	text = append(text, "\nlistenPort=0\nbindAddress=127.0.0.1\nkvConfigPath="+filepath.Join(dir, "kv.json")+"\n"...)
	file := filepath.Join(dir, "namesrv.conf")
	require.NoError(t, os.WriteFile(file, text, 0o644))

	out, errOut := &trace.SyncWriter{W: new(bytes.Buffer)}, &trace.SyncWriter{W: new(bytes.Buffer)}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-c", file}, out, errOut, stop) }()
	require.Eventually(t, func() bool { return bytes.Contains([]byte(out.String()), []byte("boot success")) },
		10*time.Second, 5*time.Millisecond, "stderr: %s", errOut.String())
	stop <- syscall.SIGTERM
	require.NoError(t, <-done)
	require.Regexp(t, `The Name Server\[127\.0\.0\.1:[0-9]+\] shutdown OK\n`, out.String())
	require.Contains(t, errOut.String(), `msg="shutdown requested" signal=terminated`)
}

// TestBadConfigStartsNothing: -p with an invalid value fails with the start's message.
func TestBadConfigStartsNothing(t *testing.T) {
	file := conftest.Write(t, "ns.conf", "logLevel=TRACE")
	out, errOut := &trace.SyncWriter{W: new(bytes.Buffer)}, &trace.SyncWriter{W: new(bytes.Buffer)}
	printErr := run([]string{"-c", file, "-p"}, out, errOut, nil)
	startErr := run([]string{"-c", file}, out, errOut, nil)
	require.ErrorContains(t, printErr, `logLevel "TRACE"`)
	require.EqualError(t, startErr, printErr.Error())
	require.NotContains(t, out.String(), "boot success")
}

// exit is mqnamesrv's main over args with no signal (every case of TestErrorTexts ends before
// the wait): the exit status, stdout, stderr.
func exit(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	return startup.ExitCode("mqnamesrv", run(args, &out, &errOut, nil), &errOut), out.String(), errOut.String()
}

// TestErrorTexts: as mqbroker's, a bad flag exits 2 with the flag package's line and the usage
// on stderr (stdout stays empty); -h exits 0 with the usage on stderr; every other error is
// printed once, with one "mqnamesrv: " prefix, and exits 1; -p exits 0 with the properties
// alone on stdout.
func TestErrorTexts(t *testing.T) {
	code, stdout, stderr := exit("-x")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Equal(t, 1, strings.Count(stderr, "flag provided but not defined: -x"), stderr)
	require.Contains(t, stderr, "Usage: mqnamesrv")

	code, stdout, stderr = exit("-h")
	require.Equal(t, 0, code)
	require.Empty(t, stdout)
	for _, d := range []string{"Usage: mqnamesrv", "listenPort=9876", "bindAddress=0.0.0.0", "kvConfigPath="} {
		require.Contains(t, stderr, d, "-h shows the defaults")
	}

	for _, args := range [][]string{{"-c", "/nonexistent/namesrv.conf"}, {"extra"},
		{"-p", "-c", conftest.Write(t, "ns.conf", "bindAddress=localhost")}} {
		code, stdout, stderr = exit(args...)
		require.Equal(t, 1, code, args)
		require.Empty(t, stdout, args)
		require.Equal(t, 1, strings.Count(stderr, "mqnamesrv:"), "one prefix, printed once: %q", stderr)
	}

	code, stdout, stderr = exit("-p")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "listenPort=9876\n")
	require.Empty(t, stderr)
}
