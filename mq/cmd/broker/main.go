package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/dashboard"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
)

func main() {
	tuneGC(os.Getenv)
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is main over its arguments and streams: run, stopped by SIGINT or SIGTERM, and the
// exit status (startup.Main: the error printed once, prefixed "mqbroker: ").
func runMain(args []string, stdout, stderr io.Writer) int {
	return startup.Main("mqbroker", stderr, func(stop <-chan os.Signal) error { return run(args, stdout, stderr, stop) })
}

// run starts the broker (and, without name servers, one in-process:
// embedded.StartInProcessNamesrv), waits for a signal on stop, and shuts both down. With
// -cpuprofile the CPU profile covers everything from before the start to after the shutdown.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) (err error) {
	sc, err := broker.ParseCommandLine(args, stdout, stderr)
	if err != nil {
		return err
	}
	if sc.PrintOnly {
		return nil
	}
	if sc.CPUProfile != "" {
		stopProfile, err := startCPUProfile(sc.CPUProfile)
		if err != nil {
			return err
		}
		defer func() {
			if perr := stopProfile(); err == nil && perr != nil {
				err = fmt.Errorf("cpuprofile: %w", perr)
			}
		}()
	}
	log := sc.NewLogger(stderr)
	lns, err := bindListeners(sc)
	if err != nil {
		return err
	}
	tr, hub := consoleTracer(sc, log)
	var ns *namesrv.NamesrvController
	if sc.Broker.NamesrvAddr == "" {
		if ns, err = embedded.StartInProcessNamesrv(sc, tr.With("namesrv")); err != nil {
			lns.close()
			return err
		}
		fmt.Fprintf(stdout, "The Name Server boot success (in-process). listen=%s\n", ns.Addr())
	}
	b, err := broker.StartWithConfig(sc, stdout, tr)
	if err != nil {
		lns.close()
		if ns != nil {
			ns.Shutdown()
		}
		return err
	}
	exp, err := serveMetrics(lns.metrics, b, ns, log, stdout)
	var console *dashboard.Dashboard
	if err == nil {
		if console, err = startConsole(sc, lns.console, b, hub, log, stdout); err != nil {
			exp.Shutdown()
		}
	} else if lns.console != nil {
		_ = lns.console.Close()
	}
	if err != nil {
		b.Shutdown()
		if ns != nil {
			ns.Shutdown()
		}
		return err
	}
	s := <-stop
	log.Info("shutdown requested", "signal", s.String())
	if console != nil {
		console.Shutdown()
	}
	exp.Shutdown()
	b.Shutdown()
	if ns != nil {
		ns.Shutdown()
	}
	fmt.Fprintf(stdout, "The broker[%s, %s] shutdown OK\n", sc.Broker.BrokerName, b.BrokerAddr())
	return nil
}

// listeners are the HTTP ports mqbroker serves beside the broker, bound before anything starts
// so that a taken port stops the start before "boot success" (nil: not configured).
type listeners struct {
	metrics net.Listener // metricsPromExporterHost:metricsPromExporterPort, with metricsExporterType=PROM
	console net.Listener // dashboardAddr (-dashboard)
}

// bindListeners binds the metrics exporter's and the console's ports when configured; an
// address that cannot be bound is an error naming its keys, and nothing is left bound.
func bindListeners(sc *broker.StartupConfig) (listeners, error) {
	var lns listeners
	if cfg := sc.Broker.ExporterConfig; cfg.Enabled() {
		ln, err := metrics.Listen(cfg)
		if err != nil {
			return lns, err
		}
		lns.metrics = ln
	}
	if addr := sc.Dashboard.DashboardAddr; addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			lns.close()
			return listeners{}, fmt.Errorf("console: listen on dashboardAddr (-dashboard) %s: %w", addr, err)
		}
		lns.console = ln
	}
	return lns, nil
}

// close closes the listeners not yet handed to a server.
func (l listeners) close() {
	for _, ln := range []net.Listener{l.metrics, l.console} {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// serveMetrics serves /metrics on ln (bound by bindListeners when metricsExporterType=PROM):
// the broker's collector and, with an in-process name server, the name server's, on one
// endpoint. It returns nil (nothing served) when ln is nil.
func serveMetrics(ln net.Listener, b *broker.BrokerController, ns *namesrv.NamesrvController,
	log *slog.Logger, stdout io.Writer) (*metrics.Exporter, error) {
	if ln == nil {
		return nil, nil
	}
	cs := []prometheus.Collector{b.Metrics()}
	if ns != nil {
		cs = append(cs, ns.Metrics())
	}
	exp, err := metrics.ServeOn(ln, log, cs...)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "The metrics exporter serves %s\n", exp.URL())
	return exp, nil
}
