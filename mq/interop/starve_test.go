package interop

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestSlowAndFloodingClientsDoNotStarveOthers: while some connections sent half a frame and
// then nothing, and one connection floods the broker with oneway sends as fast as it can
// write, the official producer's sync sends still succeed within its timeout (3 s each), and
// the name server still answers. Java: each Netty channel decodes on its own; the send pool's
// queue (sendThreadPoolQueueCapacity) and BrokerFastFailure bound what one client can queue.
func TestSlowAndFloodingClientsDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	c, p := startWithProducer(t, "starve-producer")
	broker := c.Brokers[0].BrokerAddr()
	sendSync(t, p, primitive.NewMessage("Starve", []byte("before")))

	// slow clients: a frame's length and half its header, then silence
	for range 20 {
		for _, addr := range []string{broker, c.NamesrvAddr()} {
			slow := dialRaw(t, addr)
			frame := remoting.EncodeFrame(nil, remoting.NewRequest(protocol.GetMaxOffset,
				protocol.EncodeHeader(&protocol.GetMaxOffsetRequestHeader{Topic: "Starve", QueueID: 0}), nil))
			_, err := slow.Write(frame[:len(frame)/2])
			require.NoError(t, err)
		}
	}

	// the flood: oneway SEND_MESSAGE frames back to back on one connection
	flood := dialRaw(t, broker)
	one := remoting.NewRequest(protocol.SendMessage, hostileSend("Flood", 0), make([]byte, 512))
	one.MarkOneway()
	var burst []byte
	for i := range 256 {
		one.Opaque = int32(i)
		burst = remoting.EncodeFrame(burst, one)
	}
	var flooded atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// The broker stops reading a connection with ChannelMaxInflight requests in flight:
			// a write that times out is that backpressure, and the rest of the burst is written
			// next (a frame cut short would make the stream garbage). The deadline only lets
			// the flood stop at cleanup.
			for rest := burst; len(rest) > 0; {
				_ = flood.SetWriteDeadline(time.Now().Add(time.Second))
				n, err := flood.Write(rest)
				rest = rest[n:]
				var ne net.Error
				if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
					return
				}
				if err != nil {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
			flooded.Add(256)
		}
	}()
	t.Cleanup(func() { close(stop); <-done })

	time.Sleep(500 * time.Millisecond) // the flood is under way
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		start := time.Now()
		res, err := p.SendSync(ctx, primitive.NewMessage("Starve", []byte("during")))
		cancel()
		require.NoError(t, err, "send %d during the flood (%d oneway frames so far)", i, flooded.Load())
		require.Equal(t, primitive.SendOK, res.Status)
		t.Logf("send %d: %v", i, time.Since(start))
	}
	t.Logf("%d oneway frames flooded", flooded.Load())
	// The flood sent many times what the broker holds of one connection (ChannelMaxInflight):
	// it ran into the bound all along, however fast this machine processes it.
	require.Greater(t, flooded.Load(), int64(10*remoting.DefaultChannelMaxInflight), "the flood was a flood")
}
