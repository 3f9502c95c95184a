package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
)

// TestMain runs main itself when the test binary is started with MQBENCH_MAIN=1, so the tests
// below check the binary's exit codes, output and signal handling.
func TestMain(m *testing.M) { mqtest.BinaryMain(m, "MQBENCH_MAIN", "mqbench", main) }

func mqbench(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MQBENCH_MAIN=1")
	return cmd
}

// No subcommand: the usage and exit status 2.
func TestUsage(t *testing.T) {
	var errOut bytes.Buffer
	cmd := mqbench()
	cmd.Stderr = &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	require.Equal(t, 2, exit.ExitCode())
	require.Contains(t, errOut.String(), "usage: mqbench producer")
}

// A producer without -d or -count runs until SIGINT, then ends as a finished run does: it
// prints its summary and exits 0.
func TestInterruptEndsWithSummary(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	cmd := mqbench("producer", "-n", c.NamesrvAddr(), "-t", "Bench_"+clienttest.Name(t), "-w", "2")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(out)
	var text strings.Builder
	for lines.Scan() { // the settings line, then a per-second line: the run is under way
		text.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "Current Time: ") {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	for lines.Scan() {
		text.WriteString(lines.Text() + "\n")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, text.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("mqbench did not exit after SIGINT:\n%s", text.String())
	}
	require.Regexp(t, `(?m)^\[Complete\] Send Total: [1-9]\d* requests Send Failed: 0 Response Failed: 0 Mode: sync `, text.String())
}
