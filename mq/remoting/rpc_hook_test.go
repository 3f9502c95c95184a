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
