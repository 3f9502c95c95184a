package interop

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// A body the client cannot shrink (random bytes, ~4.5 MiB; the client zlib-compresses bodies
// over 4 KiB) is larger than maxMessageSize (4 MiB): the broker refuses it with
// MESSAGE_ILLEGAL (13) and its remark, which the client returns as the error text, and the same
// producer's next send succeeds (Java: CommitLog's encoder returns MESSAGE_SIZE_EXCEEDED,
// SendMessageProcessor#handlePutMessageResult answers MESSAGE_ILLEGAL; the connection stays up).
func TestOfficialClientOversizeBodyRefused(t *testing.T) {
	t.Parallel()
	_, p := startWithProducer(t, "big-producer")
	const topic = "BigTopic"
	sendSync(t, p, primitive.NewMessage(topic, []byte("before")))

	body := make([]byte, 4*1024*1024+512*1024)
	rng := rand.NewChaCha8([32]byte{1, 2, 3})
	_, _ = rng.Read(body)
	// Premise: zlib does not bring it under the limit.
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(body)
	require.NoError(t, zw.Close())
	require.Greater(t, z.Len(), 4*1024*1024)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, primitive.NewMessage(topic, body))
	require.Error(t, err, "an oversize body must be refused, got %v", res)
	require.ErrorContains(t, err, "CODE: 13")
	require.ErrorContains(t, err, "the message is illegal")
	require.ErrorContains(t, err, "msg body length limit")

	res = sendSync(t, p, primitive.NewMessage(topic, []byte("after")))
	require.Equal(t, primitive.SendOK, res.Status)
}

// Malformed frames sent over raw connections close only those connections (Java: NettyDecoder
// throws, the handler closes that channel): a raw connection opened before them and a fresh
// one still get answers, and the official client keeps sending. Checked on the broker and the
// name server.
func TestMalformedFramesCloseOnlyThatConnection(t *testing.T) {
	t.Parallel()
	c, p := startWithProducer(t, "frame-producer")
	const topic = "FrameTopic"
	sendSync(t, p, primitive.NewMessage(topic, []byte("before")))

	frame := func(length uint32, rest []byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, length), rest...)
	}
	withHeader := func(word uint32, header string) []byte {
		b := binary.BigEndian.AppendUint32(nil, word)
		b = append(b, header...)
		return frame(uint32(len(b)), b)
	}
	cases := []struct {
		name  string
		bytes []byte
	}{
		{"zero length", frame(0, nil)},
		{"length shorter than the header-length word", frame(2, []byte{0, 0})},
		{"length over the 16 MiB frame limit", frame(16*1024*1024, []byte("xxxx"))},
		{"negative length", frame(0xFFFFFFFF, []byte("xxxx"))},
		{"header length beyond the frame", frame(8, []byte{0, 0, 0, 100, '{', '}', ' ', ' '})},
		{"unknown serialize type", withHeader(7<<24|2, "{}")},
		{"garbage JSON header", withHeader(uint32(len("{\"code\":12,garbage")), "{\"code\":12,garbage")},
		{"binary noise", withHeader(uint32(len("\xff\xfe\x00\x01\x02\x03")), "\xff\xfe\x00\x01\x02\x03")},
		{"truncated ROCKETMQ header", withHeader(1<<24|3, "\x00\x0c\x00")},
	}

	servers := []struct {
		name  string
		addr  string
		valid func() *remoting.RemotingCommand
	}{
		{"broker", c.Brokers[0].BrokerAddr(), func() *remoting.RemotingCommand {
			return remoting.NewRequest(protocol.GetMaxOffset,
				protocol.EncodeHeader(&protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: 0}), nil)
		}},
		{"namesrv", c.NamesrvAddr(), func() *remoting.RemotingCommand {
			// TBW102: registered by the broker's start (a new topic reaches the name server
			// only with the broker's next, asynchronous, registration).
			return remoting.NewRequest(protocol.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil)
		}},
	}
	for _, srv := range servers {
		keep := dialRaw(t, srv.addr)
		resp := keep.invoke(t, srv.valid())
		require.Equal(t, int32(remoting.Success), resp.Code, "%s: %s", srv.name, resp.Remark)

		for _, tc := range cases {
			bad := dialRaw(t, srv.addr)
			_, err := bad.Write(tc.bytes)
			require.NoError(t, err)
			requireClosedByPeer(t, bad, srv.name+": "+tc.name)
		}

		resp = keep.invoke(t, srv.valid())
		require.Equal(t, int32(remoting.Success), resp.Code, "%s: the connection opened before still works", srv.name)
		resp = dialRaw(t, srv.addr).invoke(t, srv.valid())
		require.Equal(t, int32(remoting.Success), resp.Code, "%s: a new connection works", srv.name)
	}

	res := sendSync(t, p, primitive.NewMessage(topic, []byte("after")))
	require.Equal(t, primitive.SendOK, res.Status)
}

// requireClosedByPeer reads until the server closes the connection (EOF or reset); a read that
// times out means the server kept it open.
func requireClosedByPeer(t *testing.T, c *rawConn, what string) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err := io.Copy(io.Discard, c)
	if err == nil {
		return // EOF
	}
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("%s: the server did not close the connection within 5 s", what)
	}
	// connection reset: closed too
}
