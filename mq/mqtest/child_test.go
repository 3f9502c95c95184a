package mqtest

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childEnv selects the kit's own child modes (see TestMain).
const childEnv = "MQTEST_SELF_CHILD"

func TestMain(m *testing.M) {
	ChildMain(m, childEnv, func(mode string) int {
		switch mode {
		case "serve":
			fmt.Println("before the address")
			ReportAddr("127.0.0.1:1")
			fmt.Println("after the address")
			select {}
		case "banner":
			fmt.Println("booting")
			fmt.Println("up at 127.0.0.1:3")
			select {}
		case "term":
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGTERM)
			ReportAddr("127.0.0.1:2")
			<-sig
			return 0
		default:
			fmt.Fprintln(os.Stderr, "no address today")
			return 3
		}
	})
}

// StartChild runs the test binary as a child, reads the address it reports and keeps the rest
// of its output; Kill ends it with SIGKILL.
func TestChildKill(t *testing.T) {
	c := MustStartChild(t, childEnv+"=serve")
	require.Equal(t, "127.0.0.1:1", c.Addr)
	require.ErrorIs(t, c.Wait(10*time.Millisecond), ErrChildRunning)
	c.Kill()
	err := c.Wait(time.Second)
	var ee interface{ Sys() any }
	require.ErrorAs(t, err, &ee)
	require.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
	require.Contains(t, c.Output(), "before the address\n")
	require.Contains(t, c.Output(), "after the address\n")
	require.NotContains(t, c.Output(), AddrPrefix)
	c.Kill() // a second Kill is harmless
}

// A child stopped with a signal it handles exits with its own status.
func TestChildSignal(t *testing.T) {
	c := MustStartChild(t, childEnv+"=term")
	require.NoError(t, c.Signal(syscall.SIGTERM))
	require.NoError(t, c.Wait(10*time.Second))
}

// A child that exits before it reports an address is an error holding its output.
func TestChildExitsEarly(t *testing.T) {
	_, err := StartChild(t, childEnv+"=fail")
	require.ErrorContains(t, err, "no address today")
	require.ErrorContains(t, err, "exit status 3")
}

// StartChildFunc takes the address from the first line its matcher accepts and leaves that
// line out of the output.
func TestStartChildFunc(t *testing.T) {
	c, err := StartChildFunc(t, func(line string) (string, bool) { return strings.CutPrefix(line, "up at ") }, childEnv+"=banner")
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:3", c.Addr)
	require.Contains(t, c.Output(), "booting\n")
	require.NotContains(t, c.Output(), "up at")
	c.Kill()
}
