package remoting

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// codeCounter is a ResponseObserver that counts codes.
type codeCounter struct {
	mu    sync.Mutex
	codes map[int32]int
}

func (c *codeCounter) ObserveResponse(code int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.codes[code]++
}

func (c *codeCounter) count(code int32) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.codes[code]
}

// TestResponseObserverAndConnectionCount: the observer sees a processor's answer and the
// server's own REQUEST_CODE_NOT_SUPPORTED, not a oneway request; ConnectionCount follows a
// client's connection open and closed.
func TestResponseObserverAndConnectionCount(t *testing.T) {
	obs := &codeCounter{codes: map[int32]int{}}
	s := startServer(t, ServerConfig{}, nil, func(s *Server) { s.RegisterProcessor(testCode, echo, 1) },
		WithResponseObserver(obs))
	require.Zero(t, s.ConnectionCount())
	c := newClient(t)
	addr, _ := connect(t, c, s)
	require.Equal(t, 1, s.ConnectionCount())
	_, err := c.InvokeSync(ctxTimeout(t, 5*time.Second), addr, NewRequest(999, nil, nil))
	require.NoError(t, err)
	require.NoError(t, c.InvokeOneway(addr, NewRequest(testCode, nil, nil)))
	_, err = c.InvokeSync(ctxTimeout(t, 5*time.Second), addr, NewRequest(testCode, nil, nil))
	require.NoError(t, err)
	require.Equal(t, 2, obs.count(Success), "two answered echo requests; the oneway one is not answered")
	require.Equal(t, 1, obs.count(RequestCodeNotSupported))
	c.Shutdown()
	require.Eventually(t, func() bool { return s.ConnectionCount() == 0 }, 5*time.Second, 5*time.Millisecond)
}
