package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const crashChildEnv = "ROCKETMQ_GO_STORE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	if dir := os.Getenv(powerCutChildEnv); dir != "" {
		powerCutChild(dir, os.Getenv(powerCutModeEnv))
		return
	}
	os.Exit(m.Run())
}

// startChild runs the test binary again with no tests and env ("NAME=value") added to its
// environment: the store process a crash or power-cut test kills. It returns the process and
// its standard output as lines; its standard error is the test's. At t's cleanup a child still
// running is killed. (mq/mqtest's child kit does this for the tests above the store, which
// this package's tests cannot import: mqtest imports the store.)
func startChild(t *testing.T, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(stdout)
}

func crashConfig(dir string) storeSetup {
	cfg := smallConfig(dir)
	cfg.MappedFileSizeCommitLog = 64 * 1024
	cfg.ManualServices = false
	cfg.Clock = nil
	return cfg
}

// crashChild puts messages forever, printing "i queueOffset" after each acknowledged put,
// until the parent kills it.
func crashChild(dir string) {
	s := mustStart(crashConfig(dir))
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		r := s.PutMessage(newMsg("Crash", int32(i%3), "msg-"+strconv.Itoa(i), ""))
		if r.PutMessageStatus != PutOK {
			panic(r.PutMessageStatus.String())
		}
		fmt.Fprintf(w, "%d %d\n", i, r.AppendMessageResult.LogicsOffset)
		w.Flush()
	}
}

// TestCrashRecovery kills a store process with SIGKILL while it appends, then reopens the
// directory: the abort file is there, recovery truncates any torn tail, Start dispatches what
// the ConsumeQueues missed, and every acknowledged message is readable at its queue offset.
// (ASYNC_FLUSH: a process crash loses nothing acknowledged, the page cache survives it.)
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	cmd, sc := startChild(t, crashChildEnv+"="+dir)
	acked := map[int]int64{}
	for sc.Scan() && len(acked) < 2000 {
		f := strings.Fields(sc.Text())
		i, _ := strconv.Atoi(f[0])
		q, _ := strconv.ParseInt(f[1], 10, 64)
		acked[i] = q
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Len(t, acked, 2000)
	_, err := os.Stat(dir + "/abort")
	require.NoError(t, err, "a killed store leaves its abort file")

	s := openStore(t, crashConfig(dir), nil, nil)
	for q := int32(0); q < 3; q++ {
		require.GreaterOrEqual(t, s.GetMaxOffsetInQueue("Crash", q), int64(2000/3))
	}
	for i, qo := range acked {
		g := s.GetMessage("g", "Crash", int32(i%3), QueueOffset(qo), 1, nil)
		require.Equal(t, Found, g.Status, "message %d", i)
		m, err := decodeRecord(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "msg-"+strconv.Itoa(i), string(m.Body))
	}
	// and the log goes on
	next := s.GetMaxOffsetInQueue("Crash", 0)
	r := put(t, s, newMsg("Crash", 0, "after", ""))
	require.Equal(t, next, r.LogicsOffset)
}
