package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the exporter serves the metrics.
const Path = "/metrics"

// shutdownWait bounds how long Shutdown waits for scrapes in progress.
const shutdownWait = 5 * time.Second

// Exporter serves a registry in Prometheus' text format on http://addr/metrics.
// Mirrors the PROM branch of RocketMQ 5's BrokerMetricsManager#init (a Prometheus HTTP server
// on metricsPromExporterHost:metricsPromExporterPort).
//
// Goroutines: one HTTP server (its accept loop and a goroutine per connection); Shutdown
// stops it and waits for it.
type Exporter struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Listen binds cfg's host and port for an exporter (ServeOn serves on it). A port that cannot be
// bound is an error naming the keys. The broker binds before it starts, so a taken port stops
// the start before "boot success" is printed.
func Listen(cfg ExporterConfig) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.ListenAddr())
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on metricsPromExporterHost:metricsPromExporterPort %s: %w", cfg.ListenAddr(), err)
	}
	return ln, nil
}

// Serve is Listen, then ServeOn.
func Serve(cfg ExporterConfig, log *slog.Logger, cs ...prometheus.Collector) (*Exporter, error) {
	ln, err := Listen(cfg)
	if err != nil {
		return nil, err
	}
	return ServeOn(ln, log, cs...)
}

// ServeOn registers cs on a new registry, with the Go runtime's and the process's collectors,
// and serves it on ln under /metrics. A collector that does not register (a duplicate series)
// is an error; ln is then closed and nothing is left running. log (nil: none) gets a line per
// failed scrape.
func ServeOn(ln net.Listener, log *slog.Logger, cs ...prometheus.Collector) (*Exporter, error) {
	reg := prometheus.NewRegistry()
	all := append([]prometheus.Collector{collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}, cs...)
	for _, c := range all {
		if err := reg.Register(c); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("metrics: register collector: %w", err)
		}
	}
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}
	if log != nil {
		opts.ErrorLog = slogPrinter{log}
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(reg, opts))
	e := &Exporter{ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(e.done)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && log != nil {
			log.Warn("metrics exporter stopped", "err", err)
		}
	}()
	return e, nil
}

// Addr is the address the exporter listens on ("0.0.0.0:5557", or the ephemeral port bound).
func (e *Exporter) Addr() *net.TCPAddr { return e.ln.Addr().(*net.TCPAddr) }

// URL is the metrics URL on the loopback interface when the exporter listens on every
// interface, else on its host: "http://127.0.0.1:5557/metrics".
func (e *Exporter) URL() string {
	a := *e.Addr()
	if a.IP.IsUnspecified() {
		a.IP = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + a.String() + Path
}

// Shutdown stops the server, waits up to 5 s for scrapes in progress, and returns once its
// goroutine is gone. Safe on a nil Exporter.
func (e *Exporter) Shutdown() {
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		_ = e.srv.Close()
	}
	<-e.done
}

// slogPrinter is promhttp's error logger over slog.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Warn("metrics scrape: " + fmt.Sprint(v...)) }
