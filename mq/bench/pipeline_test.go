package bench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

// holdingBroker answers sends only in rounds: it holds every send until window of them are
// outstanding, then answers them all. It records the connections sends came on and the
// most sends it ever held.
type holdingBroker struct {
	window  int
	mu      sync.Mutex
	held    []*remoting.RemotingCommand // requests not answered yet
	chans   map[*remoting.Channel]bool
	maxHeld int
}

func (b *holdingBroker) process(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	if req.Code != protocol.SendMessageV2 {
		return remoting.NewResponse(remoting.Success, ""), nil // heartbeats, unregister
	}
	h, err := protocol.DecodeSendMessageRequestHeaderV2(req.ExtFields)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.chans[ch] = true
	b.held = append(b.held, req)
	b.maxHeld = max(b.maxHeld, len(b.held))
	if len(b.held) < b.window {
		return nil, nil // answered later, with its round
	}
	for _, r := range b.held {
		resp := remoting.NewResponse(remoting.Success, "")
		resp.ExtFields = protocol.EncodeHeader(&protocol.SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000000000", QueueID: h.QueueID})
		if err := ch.WriteResponse(resp.ResponseTo(r)); err != nil {
			return nil, err
		}
	}
	b.held = b.held[:0]
	return nil, nil
}

// Async sends are pipelined on one connection: a broker that answers only once Inflight sends
// are outstanding at once gets them (a client that waited for answers, or spread the sends
// over connections, would stall here until SendMsgTimeout and count failures), and never more
// than Inflight. Count is a multiple of Inflight so every round completes.
func TestAsyncSendsPipelineOnOneConnection(t *testing.T) {
	const inflight = 32
	b := &holdingBroker{window: inflight, chans: map[*remoting.Channel]bool{}}
	srv := remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterDefaultProcessor(remoting.ProcessorFunc(b.process), 1)
	})
	ns := remotingtest.StartRouteServer(t, &protocol.TopicRouteData{
		QueueDatas:        []*protocol.QueueData{{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}},
		BrokerDatas:       []*protocol.BrokerData{{Cluster: "c", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: srv.Addr().String()}}},
		FilterServerTable: map[string][]string{},
	})
	s, err := RunProducer(context.Background(), ProducerOptions{RunOptions: RunOptions{NamesrvAddr: ns, Topic: "T", InstanceName: clienttest.InstanceName(t, "p"),
		Count: 10 * inflight}, Async: true, Inflight: inflight,
		Configure: func(cfg *producer.Config) { cfg.SendMsgTimeout = 20 * time.Second }})
	require.NoError(t, err)
	require.Equal(t, int64(10*inflight), s.Messages)
	require.Zero(t, s.SendFailed+s.ResponseFailed)
	b.mu.Lock()
	defer b.mu.Unlock()
	require.Len(t, b.chans, 1, "one connection carries every send")
	require.Equal(t, inflight, b.maxHeld, "never more than Inflight outstanding")
}
