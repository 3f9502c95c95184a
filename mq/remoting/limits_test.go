package remoting

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestChannelMaxInflightBoundsOneConnection: a connection whose requests are all still being
// processed is not read further (at most ChannelMaxInflight of its requests are queued or
// running), while another connection is served at once; when the first one's requests finish,
// the rest of what it sent is read and answered.
func TestChannelMaxInflightBoundsOneConnection(t *testing.T) {
	release := make(chan struct{})
	var running, most atomic.Int32
	slow := ProcessorFunc(func(_ *Channel, req *RemotingCommand) (*RemotingCommand, error) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		running.Add(-1)
		return NewResponse(Success, ""), nil
	})
	s := startServer(t, ServerConfig{ChannelMaxInflight: 2}, nil, func(s *Server) {
		s.RegisterProcessor(testCode, slow, 8)
		s.RegisterProcessor(testCode+1, echo, 1)
	})
	flood := dialRaw(t, s)
	var reqs []*RemotingCommand
	for range 6 {
		reqs = append(reqs, NewRequest(testCode, nil, nil))
	}
	flood.send(t, reqs...)
	require.Eventually(t, func() bool { return running.Load() == 2 }, 5*time.Second, time.Millisecond)

	other := dialRaw(t, s)
	ping := NewRequest(testCode+1, nil, nil)
	other.send(t, ping)
	other.expect(t, ping.Opaque, Success, "another connection is served while the first is held")
	require.Equal(t, int32(2), running.Load(), "the first connection has only 2 requests in the pool")

	close(release)
	for range reqs {
		resp, err := flood.read()
		require.NoError(t, err)
		require.Equal(t, int32(Success), resp.Code)
	}
	require.Equal(t, int32(2), most.Load(), "never more than 2 of its requests at once")
}

// TestReadFrameGrowsWithTheBytes: a frame's buffer follows the bytes that arrived, not the
// length field: a 16 MiB length followed by a few bytes and silence holds at most frameChunk.
func TestReadFrameGrowsWithTheBytes(t *testing.T) {
	for _, n := range []int{0, 1, frameChunk - 1, frameChunk, frameChunk + 1, 3*frameChunk + 17} {
		want := bytes.Repeat([]byte{7}, n)
		got, err := readFrame(bytes.NewReader(want), n)
		require.NoError(t, err, n)
		require.Equal(t, want, got, n)
	}
	_, err := readFrame(bytes.NewReader([]byte("short")), 16<<20)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)

	// over TCP: the server keeps the connection (waiting for the rest) and serves others
	s := startServer(t, ServerConfig{}, nil, func(s *Server) { s.RegisterProcessor(testCode, echo, 1) })
	half := dialRaw(t, s)
	_, err = half.Write(append(binary.BigEndian.AppendUint32(nil, 16<<20-4), "abc"...))
	require.NoError(t, err)
	other := dialRaw(t, s)
	ping := NewRequest(testCode, nil, nil)
	other.send(t, ping)
	other.expect(t, ping.Opaque, Success)
}
