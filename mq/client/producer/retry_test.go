package producer

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// scriptedBroker answers every send with code (and a valid header for the store statuses), or
// never when silent; it counts the sends it got.
type scriptedBroker struct {
	srv    *remoting.Server
	code   atomic.Int32
	silent atomic.Bool
	sends  atomic.Int32
}

func startScriptedBroker(t testing.TB, code int32) *scriptedBroker {
	t.Helper()
	b := &scriptedBroker{}
	b.code.Store(code)
	b.srv = remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterDefaultProcessor(remoting.ProcessorFunc(func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			switch req.Code {
			case protocol.SendMessageV2, protocol.SendBatchMessage:
				b.sends.Add(1)
				if b.silent.Load() {
					return nil, nil
				}
				h, err := protocol.DecodeSendMessageRequestHeaderV2(req.ExtFields)
				if err != nil {
					return nil, err
				}
				resp := remoting.NewResponse(b.code.Load(), "scripted")
				resp.ExtFields = protocol.EncodeHeader(&protocol.SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000000000",
					QueueID: h.QueueID, QueueOffset: 5})
				return resp, nil
			}
			return remoting.NewResponse(remoting.Success, ""), nil
		}), 2)
	})
	return b
}

// startScriptedNamesrv routes topic "T" to the named addresses, 2 queues each, in name order.
func startScriptedNamesrv(t testing.TB, brokers map[string]string) string {
	t.Helper()
	r := &protocol.TopicRouteData{FilterServerTable: map[string][]string{}}
	for name, addr := range brokers {
		r.QueueDatas = append(r.QueueDatas, &protocol.QueueData{BrokerName: name, ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6})
		r.BrokerDatas = append(r.BrokerDatas, &protocol.BrokerData{Cluster: "c", BrokerName: name, BrokerAddrs: map[int64]string{0: addr}})
	}
	return remotingtest.StartRouteServer(t, r)
}

var tmsg = func() *primitive.Message { return &primitive.Message{Topic: "T", Body: []byte("x")} }

// DefaultMQProducerImpl#sendDefaultImpl's retry rules for a SYNC send (1 + 2 attempts): a code
// in retryResponseCodes tries the next queue and fails with ErrSendFailed wrapping the broker's
// error; any other error code fails at once; a store-timeout status is a result, retried only
// with retryAnotherBrokerWhenNotStoreOK (and then returned after the last attempt).
func TestSyncRetryRules(t *testing.T) {
	for _, tc := range []struct {
		name         string
		code         int32
		retryAnother bool
		attempts     int32
		status       SendStatus
		errIs        error
		brokerCode   int32
	}{
		{"success", protocol.Success, false, 1, SendOK, nil, 0},
		{"TOPIC_NOT_EXIST is retried", protocol.TopicNotExist, false, 3, 0, client.ErrSendFailed, 17},
		{"SYSTEM_ERROR is retried", protocol.SystemError, false, 3, 0, client.ErrSendFailed, 1},
		{"SYSTEM_BUSY is not", protocol.SystemBusy, false, 1, 0, nil, 2},
		{"MESSAGE_ILLEGAL is not", protocol.MessageIllegal, false, 1, 0, nil, 13},
		{"FLUSH_DISK_TIMEOUT is a result", protocol.FlushDiskTimeout, false, 1, FlushDiskTimeout, nil, 0},
		{"... retried when asked", protocol.FlushDiskTimeout, true, 3, FlushDiskTimeout, nil, 0},
		{"SLAVE_NOT_AVAILABLE retried when asked", protocol.SlaveNotAvailable, true, 3, SlaveNotAvailable, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := startScriptedBroker(t, tc.code)
			cfg := testConfig(t, startScriptedNamesrv(t, map[string]string{"broker-a": b.srv.Addr().String()}))
			cfg.RetryAnotherBrokerWhenNotStoreOK = tc.retryAnother
			p := startProducer(t, cfg)
			res, err := p.Send(context.Background(), tmsg())
			require.Equal(t, tc.attempts, b.sends.Load())
			if tc.brokerCode != 0 {
				var re *remoting.RemoteError
				require.True(t, errors.As(err, &re), "%v", err)
				require.Equal(t, tc.brokerCode, re.Code)
				if tc.errIs != nil {
					require.ErrorIs(t, err, tc.errIs)
				} else {
					require.NotErrorIs(t, err, client.ErrSendFailed)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.status, res.SendStatus)
		})
	}
}

// A SYNC send whose broker cannot be reached fails over to the other broker, and with the fault
// tolerance on records a fault item with isolation (600000 ms).
func TestSyncFailoverAndIsolation(t *testing.T) {
	b := startScriptedBroker(t, protocol.Success)
	cfg := testConfig(t, startScriptedNamesrv(t, map[string]string{"broker-a": remotingtest.DeadAddr(t), "broker-b": b.srv.Addr().String()}))
	cfg.SendLatencyFaultEnable = true
	cfg.Options.IndexSeed = func() int32 { return -1 }
	now := time.UnixMilli(1_700_000_000_000)
	cfg.Options.Clock = clock.NewManual(now)
	p := startProducer(t, cfg)
	res, err := p.Send(context.Background(), tmsg())
	require.NoError(t, err)
	require.Equal(t, "broker-b", res.MessageQueue.BrokerName)
	items := p.FaultStrategy().LatencyFaultTolerance().FaultItems()
	require.Len(t, items, 2)
	require.Equal(t, "broker-a", items[0].Name())
	require.Equal(t, now.UnixMilli()+600000, items[0].StartTimestamp())
	require.Equal(t, now.UnixMilli(), items[1].StartTimestamp(), "broker-b answered in 0 ms: no pause")
}

// A SYNC send to a broker that never answers runs out of its budget: the first attempt times out
// and the send fails with ErrCallTimeout before a second attempt (RemotingTooMuchRequestException).
func TestSyncTimeout(t *testing.T) {
	b := startScriptedBroker(t, protocol.Success)
	b.silent.Store(true)
	cfg := testConfig(t, startScriptedNamesrv(t, map[string]string{"broker-a": b.srv.Addr().String()}))
	cfg.SendMsgTimeout = 200 * time.Millisecond
	p := startProducer(t, cfg)
	start := time.Now()
	_, err := p.Send(context.Background(), tmsg())
	require.ErrorIs(t, err, client.ErrCallTimeout)
	require.Equal(t, int32(1), b.sends.Load())
	require.Less(t, time.Since(start), 2*time.Second)
}

// MQClientAPIImpl#sendMessageAsync: a transport failure is retried retryTimesWhenSendAsyncFailed
// times (each attempt traced as a callback run), then the callback gets the error once; a
// broker error code is not retried.
func TestAsyncRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dead     bool
		code     int32
		attempts int
		kind     string
	}{
		{"unreachable broker: 1 + 2 attempts", true, 0, 3, "connect"},
		{"SYSTEM_ERROR: no retry", false, protocol.SystemError, 1, "code=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := remotingtest.DeadAddr(t)
			if !tc.dead {
				addr = startScriptedBroker(t, tc.code).srv.Addr().String()
			}
			rec := trace.NewRecorder()
			cfg := testConfig(t, startScriptedNamesrv(t, map[string]string{"broker-a": addr}))
			cfg.Options.Logger = slog.New(rec)
			p := startProducer(t, cfg)
			var calls atomic.Int32
			var gotErr error
			var mu sync.Mutex
			require.NoError(t, p.SendAsync(context.Background(), tmsg(), func(_ *SendResult, err error) {
				calls.Add(1)
				mu.Lock()
				gotErr = err
				mu.Unlock()
			}))
			p.Shutdown() // waits for the callback
			require.Equal(t, int32(1), calls.Load())
			mu.Lock()
			require.Equal(t, tc.kind, client.ErrorKind(gotErr))
			mu.Unlock()
			n := 0
			for _, l := range rec.Labels() {
				if l == "MQClientAPIImpl#sendMessageAsync" {
					n++
				}
			}
			require.Equal(t, tc.attempts, n)
		})
	}
}

// A send to the queue a MessageQueueSelector chose is tried once: SYSTEM_ERROR, which
// sendDefaultImpl retries on the next queue, fails a selected send at once, so an order's
// messages never land on two queues. Java: DefaultMQProducerImpl#sendSelectImpl (no retry loop).
func TestSelectedSendIsNotRetried(t *testing.T) {
	b := startScriptedBroker(t, protocol.SystemError)
	cfg := testConfig(t, startScriptedNamesrv(t, map[string]string{"broker-a": b.srv.Addr().String()}))
	p := startProducer(t, cfg)
	_, err := p.SendWithSelector(context.Background(), tmsg(), SelectMessageQueueByHash{}, "order-7")
	var re *remoting.RemoteError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Equal(t, int32(protocol.SystemError), re.Code)
	require.Equal(t, int32(1), b.sends.Load(), "one attempt, no other queue")

	b.code.Store(protocol.Success)
	var queues []int32
	for range 3 {
		res, err := p.SendWithSelector(context.Background(), tmsg(), SelectMessageQueueByHash{}, "order-7")
		require.NoError(t, err)
		queues = append(queues, res.MessageQueue.QueueID)
	}
	require.Equal(t, []int32{queues[0], queues[0], queues[0]}, queues, "same arg, same queue")
}
