package remoting

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestRemoteHostBytes: a TCP channel's RemoteHostBytes is primitive.HostBytes of its
// RemoteAddr (8 bytes for IPv4: address and port), built once with the channel;
// a channel whose address is not ip:port (a pipe) has none.
func TestRemoteHostBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	dialed, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer dialed.Close()
	accepted, err := ln.Accept()
	require.NoError(t, err)
	defer accepted.Close()

	ch := newChannel(accepted, nopOwner{}, DefaultMaxFrameSize, discardLogger, clock.System{})
	want, err := primitive.HostBytes(ch.RemoteAddr())
	require.NoError(t, err)
	require.Len(t, want, 8)
	require.Equal(t, want, ch.RemoteHostBytes())

	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	require.Nil(t, newChannel(a, nopOwner{}, DefaultMaxFrameSize, discardLogger, clock.System{}).RemoteHostBytes())
}
