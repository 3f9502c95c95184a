package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestMain runs main itself when the test binary is started with MQADMIN_MAIN=1: the binary's
// own exit codes and output are what TestBinary checks.
func TestMain(m *testing.M) { mqtest.BinaryMain(m, "MQADMIN_MAIN", "mqadmin", main) }

// mqadmin runs this test binary as mqadmin with args: its exit code, stdout and stderr.
func mqadmin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MQADMIN_MAIN=1", "NAMESRV_ADDR=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(t, err)
	return 0, out.String(), errOut.String()
}

// TestBinary: the binary lists its subcommands and exits 0; a subcommand's -h exits 0; a
// missing name server exits 2 with the reason on stderr; an unreachable one exits 1.
func TestBinary(t *testing.T) {
	code, out, _ := mqadmin(t)
	require.Equal(t, 0, code)
	require.Contains(t, out, "The most commonly used mqadmin commands are:")
	require.Contains(t, out, "   clusterList ")

	code, out, _ = mqadmin(t, "topicRoute", "-h")
	require.Equal(t, 0, code)
	require.Contains(t, out, "usage: mqadmin topicRoute")

	code, _, errOut := mqadmin(t, "topicList")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "no name server address (set -n or NAMESRV_ADDR)")

	code, _, errOut = mqadmin(t, "topicList", "-n", "127.0.0.1:1")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "topicList command failed")
}
