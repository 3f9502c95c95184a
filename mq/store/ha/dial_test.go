package ha

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/stretchr/testify/require"
)

// hangingAddr is a loopback address whose connects hang: a socket listening with a backlog
// of 0 that never accepts, its one pending slot taken, so the kernel drops further SYNs.
func hangingAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, syscall.Listen(fd, 0))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	for range 4 { // fill the accept queue; then a connect hangs
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	t.Fatal("every connect on a full backlog succeeded: no address whose connects hang")
	return ""
}

// TestShutdownDuringDial: a slave whose master does not answer the TCP handshake shuts down
// at once — the connect in progress is abandoned, not waited out — and a new master address
// is taken meanwhile without waiting for the connect either.
func TestShutdownDuringDial(t *testing.T) {
	sc := testConfig(t.TempDir(), store.Slave)
	sc.HaMasterAddress = hangingAddr(t)
	slave := startNode(t, sc, store.Options{}, nil)
	time.Sleep(200 * time.Millisecond) // the HAClient loop is connecting now

	start := time.Now()
	slave.ha.UpdateMasterAddress("127.0.0.1:1")
	require.Less(t, time.Since(start), time.Second, "UpdateMasterAddress waited for a connect")
	start = time.Now()
	slave.ha.Shutdown()
	require.Less(t, time.Since(start), time.Second, "Shutdown waited for a connect")
}
