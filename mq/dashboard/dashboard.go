package dashboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Config configures a Dashboard.
type Config struct {
	// Addr is where the console listens, "host:port" (":8080"; port 0: an ephemeral port).
	Addr string
	// NamesrvAddr lists the name servers the admin operations ask, "ip:port;ip:port" (required).
	NamesrvAddr string
	// Hub is the broker's trace hub (the handler under its tracer): the live trace subscribes to
	// it. Nil: the trace page says the live trace is not available.
	Hub *trace.Hub
	// WriteEnable lets pages change something (the send-a-test-message form); off, every such
	// request is answered 403 Forbidden. The broker's key: dashboardWriteEnable.
	WriteEnable bool
	// Locks tells which client holds a queue's lock (the broker's RebalanceLockManager): only
	// orderly consumers lock queues, so it shows whether a group consumes orderly. Nil: "unknown".
	Locks QueueLockOwners
	// Clock is the source of time (nil: the system clock).
	Clock clock.Clock
	// Logger receives the console's operating log (nil: none).
	Logger *slog.Logger
	// Timeout bounds each admin request (default 5 s).
	Timeout time.Duration
	// HoldFor is how long the live trace holds a step that names no topic while it waits for the
	// dispatch that says whose message it was (default 2 s).
	HoldFor time.Duration
	// MaxWatchers bounds the live trace pages open at once (default 16); one more is answered
	// 503.
	MaxWatchers int
}

// QueueLockOwners is the part of the broker's RebalanceLockManager the console reads.
type QueueLockOwners interface {
	// LockedQueues returns the queues group holds locked now, with the owners' client ids.
	LockedQueues(group string) map[primitive.MessageQueue]string
}

// Dashboard is the web console: server-rendered pages over mq/admin's operations and the live
// step trace over a trace.Hub. Java: none in RocketMQ itself; the RocketMQ Dashboard
// (rocketmq-dashboard, a separate Spring application) is its counterpart.
type Dashboard struct {
	cfg   Config
	clk   clock.Clock
	log   *slog.Logger
	admin *admin.DefaultMQAdminExt
	mux   *http.ServeMux
	srv   *http.Server
	ln    net.Listener
	done  chan struct{} // closed by Shutdown: open streams end

	watchMu  sync.Mutex
	watchers int

	prodMu sync.Mutex
	prod   *producer.DefaultMQProducer // started by the first test send

	serveErr chan error
}

// ErrNoNameServer: Config.NamesrvAddr is empty.
var ErrNoNameServer = errors.New("dashboard: no name server address")

// New returns a console for cfg with its routes; it listens only after Start.
func New(cfg Config) (*Dashboard, error) {
	if cfg.NamesrvAddr == "" {
		return nil, ErrNoNameServer
	}
	if cfg.HoldFor <= 0 {
		cfg.HoldFor = 2 * time.Second
	}
	if cfg.MaxWatchers <= 0 {
		cfg.MaxWatchers = 16
	}
	a, err := admin.New(admin.Config{NamesrvAddr: cfg.NamesrvAddr, Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	lg := cfg.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	d := &Dashboard{cfg: cfg, clk: clock.Or(cfg.Clock), log: lg, admin: a, done: make(chan struct{})}
	d.routes()
	return d, nil
}

// routes registers the pages. Every page is GET (HEAD); /send is the one request that changes
// something (POST, and only with WriteEnable).
func (d *Dashboard) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", d.page(d.clusterPage))
	m.HandleFunc("GET /topics", d.page(d.topicsPage))
	m.HandleFunc("GET /topic", d.page(d.topicPage))
	m.HandleFunc("GET /groups", d.page(d.groupsPage))
	m.HandleFunc("GET /group", d.page(d.groupPage))
	m.HandleFunc("GET /message", d.page(d.messagePage))
	m.HandleFunc("GET /trace", d.page(d.tracePage))
	m.HandleFunc("GET /trace/events", d.traceEvents)
	m.HandleFunc("POST /send", d.send)
	m.Handle("GET /static/", http.FileServerFS(assets))
	d.mux = m
}

// Handler is the console's HTTP handler (tests serve it themselves).
func (d *Dashboard) Handler() http.Handler { return d.mux }

// Start listens on Config.Addr and serves in a goroutine (ServeOn); Addr tells the address bound.
func (d *Dashboard) Start() error {
	ln, err := net.Listen("tcp", d.cfg.Addr)
	if err != nil {
		return fmt.Errorf("dashboard: listen %s: %w", d.cfg.Addr, err)
	}
	d.ServeOn(ln)
	return nil
}

// ServeOn serves the console on ln, bound by the caller (mqbroker binds before the broker
// starts, so a taken port stops the start early), in a goroutine; Shutdown closes ln.
func (d *Dashboard) ServeOn(ln net.Listener) {
	d.ln = ln
	d.srv = &http.Server{Handler: d.mux, ReadHeaderTimeout: 10 * time.Second}
	d.serveErr = make(chan error, 1)
	go func() { d.serveErr <- d.srv.Serve(ln) }()
	d.log.Info("dashboard listening", "addr", ln.Addr().String(), "writeEnable", d.cfg.WriteEnable)
}

// Addr is the address the console listens on ("" before Start).
func (d *Dashboard) Addr() string {
	if d.ln == nil {
		return ""
	}
	return d.ln.Addr().String()
}

// URL is the console's front page, with a loopback host when it listens on every interface.
func (d *Dashboard) URL() string {
	host, port, _ := net.SplitHostPort(d.Addr())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return (&url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/"}).String()
}

// Shutdown ends the live streams, stops the server (waiting up to 5 s for the pages being
// answered), then the test producer and the admin client. Safe to call once.
func (d *Dashboard) Shutdown() {
	close(d.done)
	if d.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := d.srv.Shutdown(ctx); err != nil {
			_ = d.srv.Close()
		}
		cancel()
		<-d.serveErr
	}
	d.prodMu.Lock()
	if d.prod != nil {
		d.prod.Shutdown()
		d.prod = nil
	}
	d.prodMu.Unlock()
	d.admin.Shutdown()
}
