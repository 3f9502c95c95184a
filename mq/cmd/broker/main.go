package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/dashboard"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
)

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

// runMain is main over its arguments and streams: run, stopped by SIGINT or SIGTERM, and the
// exit status (startup.Main: the error printed once, prefixed "mqbroker: ").
func runMain(args []string, stdout, stderr io.Writer) int {
	return startup.Main("mqbroker", stderr, func(stop <-chan os.Signal) error { return run(args, stdout, stderr, stop) })
}

// run starts the broker (and, without name servers, one in-process:
// embedded.StartInProcessNamesrv), waits for a signal on stop, and shuts both down.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error {
	sc, err := broker.ParseCommandLine(args, stdout, stderr)
	if err != nil {
		return err
	}
	if sc.PrintOnly {
		return nil
	}
	log := sc.NewLogger(stderr)
	tr, hub := consoleTracer(sc, log)
	var ns *namesrv.NamesrvController
	if sc.Broker.NamesrvAddr == "" {
		if ns, err = embedded.StartInProcessNamesrv(sc, tr.With("namesrv")); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "The Name Server boot success (in-process). listen=%s\n", ns.Addr())
	}
	b, err := broker.StartWithConfig(sc, stdout, tr)
	if err != nil {
		if ns != nil {
			ns.Shutdown()
		}
		return err
	}
	exp, err := serveMetrics(sc, b, ns, log, stdout)
	var console *dashboard.Dashboard
	if err == nil {
		if console, err = startConsole(sc, b, hub, log, stdout); err != nil {
			exp.Shutdown()
		}
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

// serveMetrics serves /metrics when metricsExporterType=PROM: the broker's collector and, with
// an in-process name server, the name server's, on one endpoint. It returns nil (nothing
// served) otherwise; a port that cannot be bound is an error naming the keys.
func serveMetrics(sc *broker.StartupConfig, b *broker.BrokerController, ns *namesrv.NamesrvController,
	log *slog.Logger, stdout io.Writer) (*metrics.Exporter, error) {
	cfg := sc.Broker.ExporterConfig
	if !cfg.Enabled() {
		return nil, nil
	}
	cs := []prometheus.Collector{b.Metrics()}
	if ns != nil {
		cs = append(cs, ns.Metrics())
	}
	exp, err := metrics.Serve(cfg, log, cs...)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "The metrics exporter serves %s\n", exp.URL())
	return exp, nil
}
