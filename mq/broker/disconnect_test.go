package broker

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestConsumerGoneIsNoWarning: a consumer that goes away while its pull is held (a client
// process that exits resets its connections) is normal operation: the broker logs the reset at
// INFO and the held pull's answer to the closed channel at DEBUG, and no WARN.
func TestConsumerGoneIsNoWarning(t *testing.T) {
	log := &trace.SyncWriter{W: new(bytes.Buffer)}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tb := startTestBroker(t, trace.New(logger, "broker-a"))
	tb.createTopic(t, "Gone", 1)

	conn, err := net.Dial("tcp", tb.addr)
	require.NoError(t, err)
	h := pullHeader("g", "Gone", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*")
	_, err = conn.Write(remoting.EncodeFrame(nil, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil)))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return tb.b.PullRequestHoldService().HeldCount() == 1 },
		5*time.Second, 5*time.Millisecond, "the pull is held")
	require.NoError(t, conn.(*net.TCPConn).SetLinger(0)) // close with RST, as an exiting process may
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "channel closed by the peer") },
		5*time.Second, 5*time.Millisecond, log.String())

	tb.sendOK(t, "Gone", 0, "", []byte("late")) // wakes the held pull, whose channel is gone
	require.Eventually(t, func() bool { return tb.b.PullRequestHoldService().HeldCount() == 0 },
		5*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "held pull answered a closed channel") },
		5*time.Second, 5*time.Millisecond, log.String())
	require.NotContains(t, log.String(), "level=WARN", log.String())
}
