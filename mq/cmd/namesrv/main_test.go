package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
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
