package broker

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// readFrames decodes the frames a raw connection receives (4-byte length, then the frame) into
// out until the connection fails.
func readFrames(conn net.Conn, out chan<- *remoting.RemotingCommand) {
	r := bufio.NewReader(conn)
	for {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return
		}
		frame := make([]byte, binary.BigEndian.Uint32(n[:]))
		if _, err := io.ReadFull(r, frame); err != nil {
			return
		}
		cmd, err := remoting.DecodeFrame(frame)
		if err != nil {
			return
		}
		out <- cmd
	}
}

// TestHeldPullsAreBounded: maxHeldPullRequests bounds what clients can park. Raw connections
// send more suspended pulls on an empty queue than the bound: the broker holds exactly the bound
// (the memory of held requests stays bounded), answers the others at once with PULL_NOT_FOUND —
// what a pull that found nothing new gets, so a client pulls again rather than backing off on
// an error — and keeps serving another consumer; a message then answers the held ones and
// frees their places.
func TestHeldPullsAreBounded(t *testing.T) {
	const bound, conns, perConn = 8, 4, 5
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.MaxHeldPullRequests = bound })
	tb.createTopic(t, "Parked", 2)
	hold := tb.b.PullRequestHoldService()

	answers := make(chan *remoting.RemotingCommand, conns*perConn)
	h := pullHeader("parker", "Parked", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*")
	for range conns {
		conn, err := net.Dial("tcp", tb.addr)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		go readFrames(conn, answers)
		var frames []byte
		for range perConn {
			frames = remoting.EncodeFrame(frames, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
		}
		_, err = conn.Write(frames)
		require.NoError(t, err)
	}
	for i := range conns*perConn - bound {
		select {
		case resp := <-answers:
			require.Equal(t, int32(protocol.PullNotFound), resp.Code, resp.Remark)
			require.Equal(t, int64(0), pullResponseHeader(t, resp).NextBeginOffset)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d pulls over the bound answered at once", i, conns*perConn-bound)
		}
	}
	require.Eventually(t, func() bool { return hold.HeldCount() == bound }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, int64(bound), hold.held.Load())

	// Another consumer is served while the bound is reached.
	tb.sendOK(t, "Parked", 1, "", []byte("other"))
	tb.waitDispatched(t, "Parked", 1, 1)
	resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage,
		protocol.EncodeHeader(pullHeader("other", "Parked", 1, 0, protocol.PullFlagSubscription, 0, "*")), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, bound, hold.HeldCount(), "nothing beyond the bound was held meanwhile")
	require.Empty(t, answers, "the held pulls stay held")

	// A message on the parked queue answers the held pulls and gives their places back.
	tb.sendOK(t, "Parked", 0, "", []byte("wake"))
	for i := range bound {
		select {
		case resp := <-answers:
			require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d held pulls answered by the message", i, bound)
		}
	}
	require.Equal(t, 0, hold.HeldCount())
	require.Equal(t, int64(0), hold.held.Load())
	got := tb.asyncPull(t, pullHeader("parker", "Parked", 0, 1, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*"))
	require.Eventually(t, func() bool { return hold.HeldCount() == 1 }, 5*time.Second, 5*time.Millisecond, "held again")
	require.Empty(t, got)
}
