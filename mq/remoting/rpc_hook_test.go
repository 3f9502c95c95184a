package remoting

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type hookFunc func(addr string, req *RemotingCommand) error

func (f hookFunc) DoBeforeRequest(addr string, req *RemotingCommand) error { return f(addr, req) }

// TestRPCHooks: the client's hook runs before a request leaves (its extFields reach the
// server); the server's hook sees the peer's address and the request before the processor,
// and its error refuses the request with SYSTEM_ERROR and the error's text, the processor
// never running. Java: NettyRemotingAbstract#doBeforeRpcHooks in processRequestCommand.
func TestRPCHooks(t *testing.T) {
	var processed atomic.Int32
	s := startServer(t, ServerConfig{}, nil, func(s *Server) {
		s.RegisterProcessor(testCode, ProcessorFunc(func(_ *Channel, req *RemotingCommand) (*RemotingCommand, error) {
			processed.Add(1)
			return NewResponse(Success, ""), nil
		}), 1)
		s.RegisterRPCHook(hookFunc(func(addr string, req *RemotingCommand) error {
			if req.ExtFields["AccessKey"] != "good" {
				return errors.New("no acl config for accessKey " + req.ExtFields["AccessKey"] + " from " + addr[:9])
			}
			return nil
		}))
	})
	c := newClient(t)
	key := "good"
	c.RegisterRPCHook(hookFunc(func(_ string, req *RemotingCommand) error {
		req.AddExtField("AccessKey", key)
		return nil
	}))
	resp, err := c.InvokeSync(ctxTimeout(t, 5*time.Second), s.Addr().String(), NewRequest(testCode, nil, nil))
	require.NoError(t, err)
	require.Nil(t, resp.Err())
	require.Equal(t, int32(1), processed.Load())

	key = "bad"
	resp, err = c.InvokeSync(ctxTimeout(t, 5*time.Second), s.Addr().String(), NewRequest(testCode, nil, nil))
	require.NoError(t, err)
	require.Equal(t, &RemoteError{Code: SystemError, Remark: "no acl config for accessKey bad from 127.0.0.1"}, resp.Err())
	require.Equal(t, int32(1), processed.Load(), "a refused request never reaches its processor")

	c.RegisterRPCHook(hookFunc(func(string, *RemotingCommand) error { return errors.New("cannot sign") }))
	_, err = c.InvokeSync(ctxTimeout(t, 5*time.Second), s.Addr().String(), NewRequest(testCode, nil, nil))
	require.ErrorContains(t, err, "cannot sign")
}

// TestClientHookOnlyOnSends: a request the server sends to the client (CHECK_TRANSACTION_STATE's
// direction) reaches the client's processor without passing the client's send hook.
func TestClientHookOnlyOnSends(t *testing.T) {
	events := &eventLog{}
	s := startServer(t, ServerConfig{}, events, func(s *Server) { s.RegisterProcessor(testCode, echo, 1) })
	c := newClient(t)
	var hooked atomic.Int32
	c.RegisterRPCHook(hookFunc(func(string, *RemotingCommand) error { hooked.Add(1); return nil }))
	c.RegisterProcessor(200, ProcessorFunc(func(_ *Channel, req *RemotingCommand) (*RemotingCommand, error) {
		return NewResponse(Success, req.ExtFields["AccessKey"]), nil
	}))
	_, local := connect(t, c, s)
	require.Equal(t, int32(1), hooked.Load(), "connect's request was sent through the hook")
	require.Eventually(t, func() bool { return events.has("connect " + local) }, 5*time.Second, 5*time.Millisecond)
	resp, err := events.channel("connect "+local).InvokeSync(ctxTimeout(t, 5*time.Second), NewRequest(200, nil, nil))
	require.NoError(t, err)
	require.Equal(t, Success, resp.Code)
	require.Equal(t, int32(1), hooked.Load(), "an incoming request does not pass the send hook")
}
