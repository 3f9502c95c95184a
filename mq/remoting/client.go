package remoting

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ClientConfig mirrors org.apache.rocketmq.remoting.netty.NettyClientConfig (the fields that
// mean something here). Zero fields take the defaults of DefaultClientConfig.
type ClientConfig struct {
	// ConnectTimeout bounds opening a connection. Default 3 s. Java: connectTimeoutMillis.
	ConnectTimeout time.Duration
	// MaxFrameSize is the largest whole frame read, in bytes, length field included. Default 16 MiB.
	MaxFrameSize int
	// ChannelMaxIdle closes a connection that has neither read nor written for this long; the
	// next call reconnects. Default 120 s. Java: clientChannelMaxIdleTimeSeconds.
	ChannelMaxIdle time.Duration
	// ClientWorkerThreads runs the processors of requests the peer sends us. Default 4.
	// Java: clientWorkerThreads.
	ClientWorkerThreads int
	// TLS, when set, makes every connection TLS (the handshake within ConnectTimeout); nil is
	// plain. Java: tls.enable with NettyClientConfig's useTLS. See ClientTLS.
	TLS *tls.Config
}

// DefaultClientConfig returns NettyClientConfig's defaults: 3 s connect, 16 MiB frames, 120 s
// idle, 4 worker threads.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		ConnectTimeout:      3 * time.Second,
		MaxFrameSize:        DefaultMaxFrameSize,
		ChannelMaxIdle:      120 * time.Second,
		ClientWorkerThreads: 4,
	}
}

func (cfg ClientConfig) withDefaults() ClientConfig {
	def := DefaultClientConfig()
	positiveOr(&cfg.ConnectTimeout, def.ConnectTimeout)
	positiveOr(&cfg.MaxFrameSize, def.MaxFrameSize)
	positiveOr(&cfg.ChannelMaxIdle, def.ChannelMaxIdle)
	positiveOr(&cfg.ClientWorkerThreads, def.ClientWorkerThreads)
	return cfg
}

// Client sends requests to servers by address, one connection per address string, opened on
// first use and shared by every caller. Responses are matched to requests by opaque on the
// connection they came from. Mirrors org.apache.rocketmq.remoting.netty.NettyRemotingClient.
//
// Goroutines: per connection a reader and a writer; one worker pool for requests the peers
// send us; the idle scanner. mu guards conns and stopped.
type Client struct {
	cfg   ClientConfig
	tr    *trace.Tracer
	log   *slog.Logger
	table processorTable
	clock clock.Clock
	pool  *WorkerPool

	mu      sync.Mutex
	conns   map[string]*clientConn
	stopped bool

	connWG sync.WaitGroup
	idle   *service.ServiceThread
}

// clientConn is one address's entry: ready closes once the dial finished (ch or err set).
type clientConn struct {
	ready chan struct{}
	ch    *Channel
	err   error
}

// NewClient returns a client; tr may be nil (operating logs go to its logger).
func NewClient(cfg ClientConfig, tr *trace.Tracer, opts ...Option) *Client {
	cfg = cfg.withDefaults()
	clk := buildOptions(opts).clock
	c := &Client{
		clock: clk,
		cfg:   cfg,
		tr:    tr,
		log:   loggerOf(tr.Logger()),
		pool:  NewWorkerPool(cfg.ClientWorkerThreads, DefaultPoolQueueCapacity, WithClock(clk)),
		conns: make(map[string]*clientConn),
		idle:  service.New("NettyClientIdleScanner"),
	}
	c.table.own(c.pool)
	interval := min(max(cfg.ChannelMaxIdle/4, 5*time.Millisecond), time.Second)
	c.idle.RunEvery(interval, interval, c.scanIdle)
	return c
}

// RegisterProcessor routes requests of code that a server sends us (CHECK_TRANSACTION_STATE,
// NOTIFY_CONSUMER_IDS_CHANGED, ...) to p, on the client's worker pool.
// Java: NettyRemotingClient#registerProcessor.
func (c *Client) RegisterProcessor(code int32, p RequestProcessor) {
	c.table.register(code, p, c.pool)
}

// InvokeSync sends req to addr and waits for its response until ctx is done (ctx's deadline is
// the call's timeout). Errors: ErrConnect, ErrTimeout, ErrChannelClosed, ErrShutdown (wrapped).
// A non-SUCCESS response is returned as a response. Java: NettyRemotingClient#invokeSync.
func (c *Client) InvokeSync(ctx context.Context, addr string, req *RemotingCommand) (*RemotingCommand, error) {
	if err := c.beforeSend(addr, req); err != nil {
		return nil, err
	}
	ch, err := c.channel(ctx, addr)
	if err != nil {
		return nil, err
	}
	return ch.InvokeSync(ctx, req)
}

// InvokeAsync sends req to addr; cb gets the response or an error exactly once, on its own
// goroutine, unless InvokeAsync returns an error (then cb is never called).
// Java: NettyRemotingClient#invokeAsync.
func (c *Client) InvokeAsync(ctx context.Context, addr string, req *RemotingCommand, cb func(*RemotingCommand, error)) error {
	if err := c.beforeSend(addr, req); err != nil {
		return err
	}
	ch, err := c.channel(ctx, addr)
	if err != nil {
		return err
	}
	return ch.InvokeAsync(ctx, req, cb)
}

// InvokeOneway marks req oneway and sends it to addr; nothing is awaited.
// Java: NettyRemotingClient#invokeOneway.
func (c *Client) InvokeOneway(addr string, req *RemotingCommand) error {
	if err := c.beforeSend(addr, req); err != nil {
		return err
	}
	ch, err := c.channel(context.Background(), addr)
	if err != nil {
		return err
	}
	return ch.InvokeOneway(req)
}

// channel returns the open connection to addr, dialling it if needed; concurrent callers for
// one address share one dial. Java: NettyRemotingClient#getAndCreateChannel.
func (c *Client) channel(ctx context.Context, addr string) (*Channel, error) {
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		if c.stopped {
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: client", ErrShutdown)
		}
		e, ok := c.conns[addr]
		if !ok {
			e = &clientConn{ready: make(chan struct{})}
			c.conns[addr] = e
			go c.dial(addr, e)
		}
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %s: %w", ErrConnect, addr, ctx.Err())
		}
		if e.err != nil {
			return nil, e.err
		}
		if e.ch.IsActive() || attempt > 0 {
			return e.ch, nil // on a second stale channel, the send reports ErrChannelClosed
		}
		c.forget(addr, e) // closed but not yet removed: dial again
	}
}

// dial opens the connection of entry e, independent of any caller's context.
func (c *Client) dial(addr string, e *clientConn) {
	conn, err := c.dialConn(addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.ready)
	if err == nil && c.stopped {
		_ = conn.Close()
		err = ErrShutdown
	}
	if err != nil {
		e.err = fmt.Errorf("%w: %s: %w", ErrConnect, addr, err)
		if c.conns[addr] == e {
			delete(c.conns, addr) // the next call dials again
		}
		return
	}
	e.ch = newChannel(conn, c, c.cfg.MaxFrameSize, c.log, c.clock)
	e.ch.key = addr
	e.ch.start(&c.connWG)
}

// dialConn opens a plain or, with cfg.TLS, a TLS connection (handshake done) to addr.
func (c *Client) dialConn(addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: c.cfg.ConnectTimeout}
	if c.cfg.TLS == nil {
		return d.Dial("tcp", addr)
	}
	return tls.DialWithDialer(d, "tcp", addr, c.cfg.TLS)
}

func (c *Client) forget(addr string, e *clientConn) {
	c.mu.Lock()
	if c.conns[addr] == e {
		delete(c.conns, addr)
	}
	c.mu.Unlock()
}

// CloseChannel closes the connection to addr (if any); the next call reconnects.
// Java: NettyRemotingClient#closeChannel.
func (c *Client) CloseChannel(addr string) {
	c.mu.Lock()
	e, ok := c.conns[addr]
	if ok {
		delete(c.conns, addr)
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	<-e.ready
	if e.ch != nil {
		_ = e.ch.Close()
	}
}

// dispatchRequest implements channelOwner.
func (c *Client) dispatchRequest(ch *Channel, req *RemotingCommand) {
	c.table.dispatch(ch, req, c.log)
}

// headerFunc implements channelOwner: a client's requests (from servers) keep every extFields
// member in ExtFields.
func (c *Client) headerFunc() HeaderFunc { return nil }

// channelException implements channelOwner.
func (c *Client) channelException(ch *Channel, err error) {
	c.log.Warn("channel exception, closing it", "remoteAddr", ch.RemoteAddr(), "err", err)
}

// channelClosed implements channelOwner: the address's entry goes, so the next call redials.
func (c *Client) channelClosed(ch *Channel) {
	c.mu.Lock()
	if e, ok := c.conns[ch.key]; ok && e.ch == ch {
		delete(c.conns, ch.key)
	}
	c.mu.Unlock()
}

// scanIdle closes connections idle for ChannelMaxIdle.
func (c *Client) scanIdle() {
	cutoff := c.clock.Now().Add(-c.cfg.ChannelMaxIdle).UnixNano()
	var idle []*Channel
	c.mu.Lock()
	for _, e := range c.conns {
		select {
		case <-e.ready:
			if e.ch != nil && e.ch.IsActive() && e.ch.idleSince(cutoff) {
				idle = append(idle, e.ch)
			}
		default:
		}
	}
	c.mu.Unlock()
	for _, ch := range idle {
		c.log.Info("client channel idle, closing it", "remoteAddr", ch.RemoteAddr())
		_ = ch.Close()
	}
}

// Shutdown closes every connection (waiting requests fail with ErrChannelClosed), stops the
// worker pool and waits for every goroutine. Safe to call more than once.
// Java: NettyRemotingClient#shutdown.
func (c *Client) Shutdown() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	entries := make([]*clientConn, 0, len(c.conns))
	for _, e := range c.conns {
		entries = append(entries, e)
	}
	c.mu.Unlock()
	c.idle.Shutdown()
	for _, e := range entries {
		<-e.ready
		if e.ch != nil {
			_ = e.ch.Close()
		}
	}
	c.connWG.Wait()
	c.table.shutdownPools()
}
