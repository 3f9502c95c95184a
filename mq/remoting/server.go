package remoting

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ServerConfig mirrors org.apache.rocketmq.remoting.netty.NettyServerConfig (the fields that
// mean something here). Zero fields take the defaults of DefaultServerConfig.
type ServerConfig struct {
	// ListenAddr is "host:port" ("127.0.0.1:0" for an ephemeral port, ":10911").
	// Java: listenPort (default 8888; the name server sets 9876, the broker 10911).
	ListenAddr string
	// MaxFrameSize is the largest whole frame read, in bytes, length field included.
	// Default 16 MiB. Java: NettyDecoder's com.rocketmq.remoting.frameMaxLength.
	MaxFrameSize int
	// ChannelMaxIdle closes a connection that has neither read nor written for this long.
	// Default 120 s. Java: serverChannelMaxIdleTimeSeconds.
	ChannelMaxIdle time.Duration
	// ChannelMaxInflight is how many requests one connection may have queued or running in
	// the worker pools; its reader waits (reads nothing more) while it has that many.
	// Default 256: another client's request waits in a pool queue behind at most that many of a
	// flooding connection's, so it stays within waitTimeMillsInSendQueue (200 ms) down to
	// about 1 300 puts/s (a 2-core machine under load), where 1024 needed 5 100.
	// Held requests (a suspended pull) do not count: their processor has
	// returned. While the reader waits it reads no responses either, so a processor must not
	// wait for the answer to a request it sends on the channel it serves (none does: the
	// broker calls clients back oneway or on behalf of another connection).
	// Deviation: Java has no such bound: one channel's flood fills the shared pool queues, and
	// every client then gets SYSTEM_BUSY.
	ChannelMaxInflight int
	// ServerWorkerThreads is the pool size used when a registration asks for workers ≤ 0.
	// Default 8. Java: serverWorkerThreads.
	// Deviation: Java uses it for the Netty handler threads; here every connection has its own
	// reader and writer goroutines, so it only sizes default pools.
	ServerWorkerThreads int
	// TLS is tls.server.mode and its certificates (tls.go; TLSServerKeys.Build). The zero
	// value is disabled: connections are read as they come.
	TLS TLSServer
}

// DefaultChannelMaxInflight is ServerConfig.ChannelMaxInflight's default.
const DefaultChannelMaxInflight = 256

// DefaultServerConfig returns NettyServerConfig's defaults: port 8888, 16 MiB frames, 120 s
// idle, 8 worker threads; and 256 requests in flight per connection.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		ListenAddr:          ":8888",
		MaxFrameSize:        DefaultMaxFrameSize,
		ChannelMaxIdle:      120 * time.Second,
		ChannelMaxInflight:  DefaultChannelMaxInflight,
		ServerWorkerThreads: 8,
	}
}

func (cfg ServerConfig) withDefaults() ServerConfig {
	def := DefaultServerConfig()
	if cfg.ListenAddr == "" {
		cfg.ListenAddr = def.ListenAddr
	}
	positiveOr(&cfg.MaxFrameSize, def.MaxFrameSize)
	positiveOr(&cfg.ChannelMaxIdle, def.ChannelMaxIdle)
	positiveOr(&cfg.ServerWorkerThreads, def.ServerWorkerThreads)
	positiveOr(&cfg.ChannelMaxInflight, def.ChannelMaxInflight)
	return cfg
}

// Server accepts connections and answers requests by code.
// Mirrors org.apache.rocketmq.remoting.netty.NettyRemotingServer.
//
// Goroutines: one accept loop; per connection a reader and a writer (see Channel); the worker
// pools; the event executor (listener calls); the idle scanner. Shutdown waits for all of them.
// mu guards ln, channels and the started/stopped state.
type Server struct {
	cfg      ServerConfig
	listener ChannelEventListener
	tr       *trace.Tracer
	log      *slog.Logger
	table    processorTable
	clock    clock.Clock
	observer ResponseObserver // WithResponseObserver; nil: none

	mu       sync.Mutex
	ln       net.Listener
	channels map[*Channel]struct{}
	started  bool
	stopped  bool

	acceptDone chan struct{}
	connWG     sync.WaitGroup
	events     *eventExecutor
	idle       *service.ServiceThread
}

// NewServer returns a server that is not yet listening. listener may be nil; tr may be nil
// (trace off); operating logs go to tr's logger.
func NewServer(cfg ServerConfig, listener ChannelEventListener, tr *trace.Tracer, opts ...Option) *Server {
	log := loggerOf(tr.Logger())
	o := buildOptions(opts)
	return &Server{
		clock:      o.clock,
		observer:   o.responseObserver,
		cfg:        cfg.withDefaults(),
		listener:   listener,
		tr:         tr,
		log:        log,
		channels:   make(map[*Channel]struct{}),
		acceptDone: make(chan struct{}),
		events:     newEventExecutor(listener, log),
		idle:       service.New("NettyServerIdleScanner"),
	}
}

// RegisterProcessor routes requests of code to p, run by its own pool of workers goroutines
// (ServerWorkerThreads when ≤ 0) with a queue of DefaultPoolQueueCapacity.
// Java: NettyRemotingServer#registerProcessor.
func (s *Server) RegisterProcessor(code int32, p RequestProcessor, workers int) {
	s.table.register(code, p, NewWorkerPool(s.workers(workers), DefaultPoolQueueCapacity, WithClock(s.clock)))
}

// RegisterProcessorPool routes requests of code to p on a given pool, which may serve several
// codes (and several servers). The server shuts the pool down in Shutdown.
func (s *Server) RegisterProcessorPool(code int32, p RequestProcessor, pool *WorkerPool) {
	s.table.register(code, p, pool)
}

// RegisterDefaultProcessor routes every code without its own processor to p.
// Java: NettyRemotingServer#registerDefaultProcessor.
func (s *Server) RegisterDefaultProcessor(p RequestProcessor, workers int) {
	s.table.registerDefault(p, NewWorkerPool(s.workers(workers), DefaultPoolQueueCapacity, WithClock(s.clock)))
}

func (s *Server) workers(n int) int {
	if n <= 0 {
		return s.cfg.ServerWorkerThreads
	}
	return n
}

// Start listens on ListenAddr and starts serving. A taken port (or any listen failure) is
// returned as an error naming the address. Java: NettyRemotingServer#start.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrShutdown
	}
	if s.started {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("remoting: %w", err) // net says "listen tcp ADDR: ..."
	}
	s.ln = ln
	s.started = true
	if s.tr.Enabled() {
		// The configured port, not the bound one: an ephemeral port would make traces differ.
		s.tr.Step("NettyRemotingServer#start", slog.Int("listenPort", configuredPort(s.cfg.ListenAddr)))
	}
	s.events.start()
	interval := min(max(s.cfg.ChannelMaxIdle/4, 5*time.Millisecond), time.Second)
	s.idle.RunEvery(interval, interval, s.scanIdle)
	go s.acceptLoop(ln)
	return nil
}

func configuredPort(addr string) int {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(port)
	return n
}

// Addr is the bound address (nil before Start).
func (s *Server) Addr() *net.TCPAddr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr().(*net.TCPAddr)
}

// Port is the bound port (0 before Start). Java: NettyRemotingServer#localListenPort.
func (s *Server) Port() int {
	if a := s.Addr(); a != nil {
		return a.Port
	}
	return 0
}

func (s *Server) acceptLoop(ln net.Listener) {
	defer close(s.acceptDone)
	var backoff time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little and retry.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed", "err", err, "retryIn", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		ch := newChannel(s.cfg.TLS.wrap(conn), s, s.cfg.MaxFrameSize, s.log, s.clock)
		ch.slots = make(chan struct{}, s.cfg.ChannelMaxInflight)
		ch.observer = s.observer
		s.mu.Lock()
		s.channels[ch] = struct{}{}
		s.mu.Unlock()
		s.events.put(eventConnect, ch)
		ch.start(&s.connWG)
	}
}

// ConnectionCount is the number of connections open now (accepted and not yet closed).
// Java: NettyRemotingServer's channel count, as the broker's connection metrics read it.
func (s *Server) ConnectionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.channels)
}

// dispatchRequest implements channelOwner.
func (s *Server) dispatchRequest(ch *Channel, req *RemotingCommand) {
	s.table.dispatch(ch, req, s.log)
}

// headerFunc implements channelOwner: the CustomHeader of a request's processor
// (processorTable.customHeader).
func (s *Server) headerFunc() HeaderFunc { return s.table.customHeader }

// channelException implements channelOwner. Java: NettyConnectManageHandler#exceptionCaught.
func (s *Server) channelException(ch *Channel, err error) {
	if IsPeerGone(err) {
		s.log.Info("channel closed by the peer", "remoteAddr", ch.RemoteAddr(), "err", err)
	} else {
		s.log.Warn("channel exception, closing it", "remoteAddr", ch.RemoteAddr(), "err", err)
	}
	s.events.put(eventException, ch)
}

// channelClosed implements channelOwner. Java: NettyConnectManageHandler#channelInactive.
func (s *Server) channelClosed(ch *Channel) {
	s.mu.Lock()
	delete(s.channels, ch)
	s.mu.Unlock()
	s.events.put(eventClose, ch)
}

// scanIdle closes channels idle (no read, no write) for ChannelMaxIdle, after an IDLE event.
// Java: IdleStateHandler(0, 0, serverChannelMaxIdleTimeSeconds) + NettyConnectManageHandler#userEventTriggered.
//
// Deviation: one scanner per server instead of a timer per channel; a channel closes within
// ChannelMaxIdle + the scan interval (ChannelMaxIdle/4, at most 1 s).
func (s *Server) scanIdle() {
	cutoff := s.clock.Now().Add(-s.cfg.ChannelMaxIdle).UnixNano()
	var idle []*Channel
	s.mu.Lock()
	for ch := range s.channels {
		if ch.IsActive() && ch.idleSince(cutoff) {
			idle = append(idle, ch)
		}
	}
	s.mu.Unlock()
	for _, ch := range idle {
		s.log.Warn("channel idle, closing it", "remoteAddr", ch.RemoteAddr())
		s.events.put(eventIdle, ch)
		_ = ch.Close()
	}
}

// Shutdown stops accepting, stops reading, answers every request already read, flushes the
// writers, closes the connections, stops the pools, delivers the remaining events and waits
// for every goroutine. Safe to call more than once, and before Start.
// Java: NettyRemotingServer#shutdown.
func (s *Server) Shutdown() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	ln, started := s.ln, s.started
	s.mu.Unlock()
	if started {
		_ = ln.Close()
		<-s.acceptDone
	}
	s.idle.Shutdown()
	s.mu.Lock()
	for ch := range s.channels {
		_ = ch.conn.SetReadDeadline(time.Unix(1, 0)) // the reader stops after what it has buffered
	}
	s.mu.Unlock()
	s.connWG.Wait()
	s.table.shutdownPools()
	s.events.shutdown()
}
