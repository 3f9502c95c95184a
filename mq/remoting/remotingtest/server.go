package remotingtest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// StartServer starts a remoting server on a free port of 127.0.0.1 with the processors that
// register adds, and shuts it down at the test's cleanup. Its address is s.Addr().String().
func StartServer(t testing.TB, register func(s *remoting.Server)) *remoting.Server {
	t.Helper()
	s := remoting.NewServer(remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, nil, nil)
	register(s)
	require.NoError(t, s.Start())
	t.Cleanup(s.Shutdown)
	return s
}

// StartRouteServer starts a stand-in name server (StartServer) that answers every
// GET_ROUTEINFO_BY_TOPIC with route, whatever the topic, and returns its address.
func StartRouteServer(t testing.TB, route *protocol.TopicRouteData) string {
	t.Helper()
	s := StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(protocol.GetRouteinfoByTopic, remoting.ProcessorFunc(func(*remoting.Channel, *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			resp := remoting.NewResponse(remoting.Success, "")
			resp.Body = route.Encode()
			return resp, nil
		}), 1)
	})
	return s.Addr().String()
}

// DeadAddr returns a loopback address nothing listens on: a port that was just free.
func DeadAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// InvokeTimeout bounds one request of Call and Invoke.
const InvokeTimeout = 10 * time.Second

// Call sends req to addr through c and waits for the answer (InvokeTimeout at most); a
// transport failure is its error. Chapters and crash children, which have no testing.T, use it.
func Call(c *remoting.Client, addr string, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(context.Background(), InvokeTimeout)
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// Invoke is Call whose transport failure (or no answer within InvokeTimeout) fails the test.
func Invoke(t testing.TB, c *remoting.Client, addr string, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	t.Helper()
	resp, err := Call(c, addr, req)
	require.NoError(t, err)
	return resp
}
