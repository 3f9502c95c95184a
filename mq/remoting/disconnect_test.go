package remoting

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestIsPeerGone: a reset, a broken pipe, a closed channel or a cut frame is the peer going
// away; anything else (a frame too large, a decode error) is not.
func TestIsPeerGone(t *testing.T) {
	for _, err := range []error{
		&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)},
		&net.OpError{Op: "write", Err: os.NewSyscallError("write", syscall.EPIPE)},
		fmt.Errorf("%w: 127.0.0.1:1", ErrChannelClosed),
		io.ErrUnexpectedEOF,
	} {
		require.True(t, IsPeerGone(err), "%v", err)
	}
	for _, err := range []error{ErrFrameTooLarge, errors.New("decode frame: bad header"), io.EOF} {
		require.False(t, IsPeerGone(err), "%v", err)
	}
}

// closeCounter counts close events.
type closeCounter struct{ closed chan struct{} }

func (c *closeCounter) OnChannelConnect(string, *Channel)   {}
func (c *closeCounter) OnChannelClose(string, *Channel)     { c.closed <- struct{}{} }
func (c *closeCounter) OnChannelIdle(string, *Channel)      {}
func (c *closeCounter) OnChannelException(string, *Channel) {}

// TestPeerResetIsNoWarning: a client that resets its connection (what a process exiting with
// unread bytes does) is logged at INFO, not WARN; the channel still closes with its events.
func TestPeerResetIsNoWarning(t *testing.T) {
	log := &trace.SyncWriter{W: new(bytes.Buffer)}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l := &closeCounter{closed: make(chan struct{}, 1)}
	s := NewServer(ServerConfig{ListenAddr: "127.0.0.1:0"}, l, trace.New(logger, "srv"))
	s.RegisterProcessor(testCode, echo, 1)
	require.NoError(t, s.Start())
	defer s.Shutdown()

	conn, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	req := NewRequest(testCode, nil, []byte("hi"))
	_, err = conn.Write(EncodeFrame(nil, req))
	require.NoError(t, err)
	// Read the answer, so the server waits in read; then close with SO_LINGER 0: the kernel
	// sends RST and the server's read fails with ECONNRESET.
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	var lenBuf [4]byte
	_, err = io.ReadFull(conn, lenBuf[:])
	require.NoError(t, err)
	_, err = io.ReadFull(conn, make([]byte, binary.BigEndian.Uint32(lenBuf[:])))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).SetLinger(0))
	require.NoError(t, conn.Close())

	select {
	case <-l.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("no close event")
	}
	require.Contains(t, log.String(), `level=INFO msg="channel closed by the peer"`)
	require.NotContains(t, log.String(), "level=WARN", log.String())
}
