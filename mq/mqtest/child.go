package mqtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// AddrPrefix starts the line on which a child reports the address it serves on.
const AddrPrefix = "MQTEST_CHILD_ADDR="

// ChildStartTimeout bounds how long StartChild waits for the child's address line.
const ChildStartTimeout = 30 * time.Second

// ChildMain is the TestMain of a package whose tests run the test binary again as a helper
// process (a broker that a crash test kills): when the environment holds env, the binary is
// that child — it runs child with env's value and exits with the code child returns;
// otherwise it runs the tests.
func ChildMain(m *testing.M, env string, child func(value string) int) {
	if v := os.Getenv(env); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// BinaryMain is the TestMain of a command's package whose tests run the test binary as the
// command itself: when the environment holds env=1 the binary is the command name, and main
// runs with the binary's arguments (exiting as main does; returning, with code 0); otherwise
// the tests run.
func BinaryMain(m *testing.M, env, name string, main func()) {
	if os.Getenv(env) == "1" {
		os.Args = append([]string{name}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// ReportAddr is the child's side of StartChild: it prints the address line StartChild waits for.
func ReportAddr(addr string) { fmt.Printf("%s%s\n", AddrPrefix, addr) }

// Child is the test binary run again as a helper process by StartChild.
type Child struct {
	// Addr is the address the child reported (ReportAddr).
	Addr string

	cmd    *exec.Cmd
	mu     sync.Mutex
	output bytes.Buffer // stdout but the address line, and all of stderr
	waited chan struct{}
	err    error // cmd.Wait's result, set before waited closes
}

// StartChild runs the test binary again with no tests and env ("NAME=value") added to its
// environment, and waits for the address it reports (ChildStartTimeout at most). When the
// child exits first, or never reports, the error holds its output. At t's cleanup a child
// still running is killed.
func StartChild(t testing.TB, env ...string) (*Child, error) {
	t.Helper()
	return StartChildFunc(t, func(line string) (string, bool) { return strings.CutPrefix(line, AddrPrefix) }, env...)
}

// StartChildFunc is StartChild for a child that reports its address its own way (a binary's
// boot banner): the first line of standard output for which addrOf answers true gives the
// address, and that line is left out of Output.
func StartChildFunc(t testing.TB, addrOf func(line string) (addr string, ok bool), env ...string) (*Child, error) {
	t.Helper()
	c := &Child{cmd: exec.Command(os.Args[0], "-test.run=^$"), waited: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stderr = childWriter{c}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if a, ok := addrOf(line); ok && !sent {
				addr <- a
				sent = true
				continue
			}
			_, _ = childWriter{c}.Write([]byte(line + "\n"))
		}
		_, _ = io.Copy(io.Discard, stdout)
		// Wait closes stdout: call it only once everything was read
		c.err = c.cmd.Wait()
		close(c.waited)
	}()
	t.Cleanup(c.Kill)
	select {
	case c.Addr = <-addr:
		return c, nil
	case <-c.waited:
		return nil, fmt.Errorf("child exited before it reported its address: %v\n%s", c.err, c.Output())
	case <-time.After(ChildStartTimeout):
		c.Kill()
		return nil, fmt.Errorf("child did not report its address within %s\n%s", ChildStartTimeout, c.Output())
	}
}

// MustStartChild is StartChild failing the test on error.
func MustStartChild(t testing.TB, env ...string) *Child {
	t.Helper()
	c, err := StartChild(t, env...)
	require.NoError(t, err)
	return c
}

// Output is what the child wrote so far: standard output but the address line, and standard error.
func (c *Child) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.output.String()
}

// Kill sends SIGKILL (as kill -9 does: no shutdown code runs) and waits for the child to
// exit. A child that has exited already is left as it is.
func (c *Child) Kill() {
	select {
	case <-c.waited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.waited
}

// Signal sends sig to the child.
func (c *Child) Signal(sig os.Signal) error { return c.cmd.Process.Signal(sig) }

// ErrChildRunning is Wait's answer when the child did not exit in time.
var ErrChildRunning = errors.New("the child is still running")

// Wait waits up to timeout for the child to exit and returns its exit error (nil for status
// 0), or ErrChildRunning.
func (c *Child) Wait(timeout time.Duration) error {
	select {
	case <-c.waited:
		return c.err
	case <-time.After(timeout):
		return ErrChildRunning
	}
}

type childWriter struct{ c *Child }

func (w childWriter) Write(b []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return w.c.output.Write(b)
}
