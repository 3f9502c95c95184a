package remoting

import (
	"errors"
	"strconv"
	"sync"
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

// TestRefusedRequestsTakeNoPoolSlot: the server's hook runs before a request is queued, so
// while the processor's only worker is busy and its queue holds one request, unsigned requests
// are still refused at once with the hook's remark (not queued behind the busy worker, not
// SYSTEM_BUSY): a flood of unsigned requests cannot starve signed clients of the pool. A
// panicking hook refuses its request with SYSTEM_ERROR and the server keeps serving.
func TestRefusedRequestsTakeNoPoolSlot(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(1)
	var first sync.Once
	pool := NewWorkerPool(1, 1)
	s := startServer(t, ServerConfig{}, nil, func(s *Server) {
		s.RegisterProcessorPool(testCode, ProcessorFunc(func(_ *Channel, req *RemotingCommand) (*RemotingCommand, error) {
			first.Do(started.Done)
			<-release
			return NewResponse(Success, ""), nil
		}), pool)
		s.RegisterRPCHook(hookFunc(func(_ string, req *RemotingCommand) error {
			switch req.ExtFields["AccessKey"] {
			case "good":
				return nil
			case "boom":
				panic("hook bug")
			}
			return errors.New("no signature")
		}))
	})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server's Shutdown, which waits for the held worker
	addr := s.Addr().String()
	signed := newClient(t)
	signed.RegisterRPCHook(hookFunc(func(_ string, req *RemotingCommand) error {
		req.AddExtField("AccessKey", "good")
		return nil
	}))
	busy := make(chan *RemotingCommand, 1)
	go func() {
		resp, _ := signed.InvokeSync(ctxTimeout(t, 10*time.Second), addr, NewRequest(testCode, nil, nil))
		busy <- resp
	}()
	started.Wait() // the only worker is held
	queued := make(chan *RemotingCommand, 1)
	go func() {
		resp, _ := signed.InvokeSync(ctxTimeout(t, 10*time.Second), addr, NewRequest(testCode, nil, nil))
		queued <- resp
	}()
	require.Eventually(t, func() bool { return pool.QueueLen() == 1 }, 5*time.Second, time.Millisecond,
		"the second signed request waits in the queue")

	unsigned := newClient(t)
	for range 20 {
		resp, err := unsigned.InvokeSync(ctxTimeout(t, 2*time.Second), addr, NewRequest(testCode, nil, nil))
		require.NoError(t, err, "refused at once, not queued behind the busy worker")
		require.Equal(t, &RemoteError{Code: SystemError, Remark: "no signature"}, resp.Err())
	}
	boom := newClient(t)
	boom.RegisterRPCHook(hookFunc(func(_ string, req *RemotingCommand) error {
		req.AddExtField("AccessKey", "boom")
		return nil
	}))
	resp, err := boom.InvokeSync(ctxTimeout(t, 2*time.Second), addr, NewRequest(testCode, nil, nil))
	require.NoError(t, err)
	require.Equal(t, SystemError, resp.Code)
	require.Contains(t, resp.Remark, "hook bug")

	unblock()
	require.Nil(t, (<-busy).Err())
	require.Nil(t, (<-queued).Err(), "the signed requests are served")
}

// shortProcessor is a HeaderDecoder that answers with what its request carried: the
// one-letter members it took (remark) and the number of ExtFields.
type shortProcessor struct{ NeverRejects }

func (shortProcessor) NewCustomHeader(code int32) CustomHeader { return shortHeaders(code) }

func (shortProcessor) ProcessRequest(_ *Channel, req *RemotingCommand) (*RemotingCommand, error) {
	h, _ := req.CustomHeader.(takeShort)
	resp := NewResponse(Success, h["a"])
	resp.AddExtField("ext", strconv.Itoa(len(req.ExtFields)))
	return resp, nil
}

// TestServerCustomHeader: a HeaderDecoder processor gets its members in the request's
// CustomHeader and the others in ExtFields; once an RPC hook is registered (it reads every
// member, the ACL signature covers them all) the server hands it the whole ExtFields map.
func TestServerCustomHeader(t *testing.T) {
	s := startServer(t, ServerConfig{}, nil, func(s *Server) { s.RegisterProcessor(testCode, shortProcessor{}, 1) })
	c := newClient(t)
	send := func() *RemotingCommand {
		resp, err := c.InvokeSync(ctxTimeout(t, 5*time.Second), s.Addr().String(),
			NewRequest(testCode, map[string]string{"a": "1", "topic": "T"}, nil))
		require.NoError(t, err)
		return resp
	}
	resp := send()
	require.Equal(t, "1", resp.Remark)
	require.Equal(t, "1", resp.ExtFields["ext"], "only topic stays in ExtFields")
	s.RegisterRPCHook(hookFunc(func(string, *RemotingCommand) error { return nil }))
	resp = send()
	require.Equal(t, "", resp.Remark)
	require.Equal(t, "2", resp.ExtFields["ext"], "with a hook every member is in ExtFields")
}
