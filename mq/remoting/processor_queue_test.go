package remoting

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// TestAnswerQueued: requests waiting behind a busy worker can be answered from the queue's
// head — oldest first, stopping at the first one decide keeps — with the request's opaque;
// answered requests are never processed, kept ones are, and a oneway request leaves the queue
// without an answer. The broker's BrokerFastFailure is built on this (Java: polling the
// executor's queue and RequestTask#returnResponse).
func TestAnswerQueued(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	processed := make(chan int32, 8)
	clk := clock.NewManualMillis(1_700_000_000_000)
	pool := NewWorkerPool(1, 16, WithClock(clk))
	s := startServer(t, ServerConfig{}, nil, func(s *Server) {
		s.RegisterProcessorPool(2, ProcessorFunc(func(ch *Channel, req *RemotingCommand) (*RemotingCommand, error) {
			processed <- req.Opaque
			select {
			case started <- struct{}{}:
			default:
			}
			<-release
			return echo(ch, req)
		}), pool)
	})
	rc := dialRaw(t, s)
	first := NewRequest(2, nil, nil)
	rc.send(t, first)
	<-started // the only worker is busy with first
	oneway, old, young := NewRequest(2, nil, nil), NewRequest(2, nil, nil), NewRequest(2, nil, nil)
	oneway.MarkOneway()
	rc.send(t, oneway, old, young)
	require.Eventually(t, func() bool { return pool.QueueLen() == 3 }, 5*time.Second, time.Millisecond)

	var seen []int32
	var lefts []int
	n := pool.AnswerQueued(func(q QueuedRequest, left int) *RemotingCommand {
		require.Equal(t, clk.Now(), q.Enqueued, "stamped on the pool's clock")
		require.NotEmpty(t, q.RemoteAddr)
		seen = append(seen, q.Request.Opaque)
		lefts = append(lefts, left)
		if q.Request.Opaque == young.Opaque {
			return nil // keep it and stop
		}
		return NewResponse(SystemBusy, "[TIMEOUT_CLEAN_QUEUE]busy")
	})
	require.Equal(t, 2, n)
	require.Equal(t, []int32{oneway.Opaque, old.Opaque, young.Opaque}, seen)
	require.Equal(t, []int{2, 1, 0}, lefts)
	require.Equal(t, 1, pool.QueueLen())

	resp := rc.expect(t, old.Opaque, SystemBusy, "the oneway request got no answer")
	require.Equal(t, "[TIMEOUT_CLEAN_QUEUE]busy", resp.Remark)
	require.True(t, resp.IsResponse())

	close(release)
	for _, want := range []int32{first.Opaque, young.Opaque} {
		rc.expect(t, want, Success)
	}
	require.Equal(t, first.Opaque, <-processed)
	require.Equal(t, young.Opaque, <-processed, "answered requests were not processed")
	require.Zero(t, pool.AnswerQueued(func(QueuedRequest, int) *RemotingCommand { return nil }))
}
