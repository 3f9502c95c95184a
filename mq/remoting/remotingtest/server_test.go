package remotingtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// The started server answers by the processors registered; a dead address refuses connections.
func TestStartServerAndDeadAddr(t *testing.T) {
	s := StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(7, remoting.ProcessorFunc(func(*remoting.Channel, *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			return remoting.NewResponse(remoting.Success, "seven"), nil
		}), 1)
	})
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c.Shutdown)
	require.Equal(t, "seven", Invoke(t, c, s.Addr().String(), remoting.NewRequest(7, nil, nil)).Remark)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.InvokeSync(ctx, DeadAddr(t), remoting.NewRequest(7, nil, nil))
	require.ErrorIs(t, err, remoting.ErrConnect)
}

// The route server answers any topic with its route.
func TestStartRouteServer(t *testing.T) {
	route := &protocol.TopicRouteData{FilterServerTable: map[string][]string{},
		QueueDatas: []*protocol.QueueData{{BrokerName: "b", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}}}
	addr := StartRouteServer(t, route)
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c.Shutdown)
	h := protocol.GetRouteInfoRequestHeader{Topic: "any"}
	resp := Invoke(t, c, addr, remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&h), nil))
	require.Equal(t, route.Encode(), resp.Body)
}
