package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/dashboard"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// consoleTracer is the tracer of the broker (and of its in-process name server): over the
// operating log, and, when the console is on (dashboardAddr, -dashboard), over a trace.Hub the
// console's live trace pages subscribe to. The hub is nil without a console.
func consoleTracer(sc *broker.StartupConfig, log *slog.Logger) (*trace.Tracer, *trace.Hub) {
	if sc.Dashboard.DashboardAddr == "" {
		return trace.New(log, sc.Broker.BrokerName), nil // steps stay off: the handler's level is ≥ DEBUG
	}
	hub := trace.NewHub(log.Handler()) // steps only while a live trace page watches
	return trace.New(slog.New(hub), sc.Broker.BrokerName), hub
}

// startConsole serves the web console of b on ln (bound by bindListeners when dashboardAddr is
// set; nil, nil when ln is nil) and prints its address. It runs in the broker's process because
// the live trace streams the broker's own steps (mq/dashboard's doc). On an error ln is closed.
func startConsole(sc *broker.StartupConfig, ln net.Listener, b *broker.BrokerController, hub *trace.Hub, log *slog.Logger, stdout io.Writer) (*dashboard.Dashboard, error) {
	if ln == nil {
		return nil, nil
	}
	d, err := dashboard.New(dashboard.Config{Addr: sc.Dashboard.DashboardAddr, NamesrvAddr: sc.Broker.NamesrvAddr,
		Hub: hub, WriteEnable: sc.Dashboard.DashboardWriteEnable, Locks: b.RebalanceLockManager(), Logger: log})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	d.ServeOn(ln)
	fmt.Fprintf(stdout, "The console boot success. %s (dashboardWriteEnable=%t)\n", d.URL(), sc.Dashboard.DashboardWriteEnable)
	return d, nil
}
