package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

// runMain is main over its arguments and streams: run, stopped by SIGINT or SIGTERM. It
// returns the exit status (startup.ExitCode: the error printed once, prefixed "mqbroker: ").
func runMain(args []string, stdout, stderr io.Writer) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	return startup.ExitCode("mqbroker", run(args, stdout, stderr, sig), stderr)
}

// run starts the broker (and, without name servers, one in-process: on 9876, or an ephemeral
// port when listenPort is 0; its kvConfig.json under storePathRootDir/namesrv), waits for a
// signal on stop, and shuts both down.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error {
	sc, err := broker.ParseCommandLine(args, stdout, stderr)
	if err != nil {
		return err
	}
	if sc.PrintOnly {
		return nil
	}
	log := sc.NewLogger(stderr)
	tr := trace.New(log, sc.Broker.BrokerName) // steps stay off: the handler's level is ≥ DEBUG
	var ns *namesrv.NamesrvController
	if sc.Broker.NamesrvAddr == "" {
		serverCfg := remoting.DefaultServerConfig()
		bind := sc.Keys.BindAddress // the in-process name server listens where the broker does
		port := namesrv.DefaultListenPort
		if sc.Broker.ListenPort == 0 {
			port = 0 // an ephemeral broker (tests) gets an ephemeral name server
		}
		serverCfg.ListenAddr = net.JoinHostPort(bind, fmt.Sprint(port))
		nc := namesrv.DefaultNamesrvConfig()
		nc.KvConfigPath = filepath.Join(sc.Store.StorePathRootDir, "namesrv", "kvConfig.json")
		ns = namesrv.NewNamesrvController(nc, serverCfg, tr.With("namesrv"))
		if err := namesrv.Start(ns); err != nil { // Start shuts down what it started
			return fmt.Errorf("in-process name server: %w", err)
		}
		if ip := net.ParseIP(bind); ip == nil || ip.IsUnspecified() {
			bind = "127.0.0.1"
		}
		sc.Broker.NamesrvAddr = net.JoinHostPort(bind, fmt.Sprint(ns.Port()))
		fmt.Fprintf(stdout, "The Name Server boot success (in-process). listen=%s\n", ns.Addr())
	}
	b, err := broker.StartWithConfig(sc, stdout, tr)
	if err != nil {
		if ns != nil {
			ns.Shutdown()
		}
		return err
	}
	s := <-stop
	log.Info("shutdown requested", "signal", s.String())
	b.Shutdown()
	if ns != nil {
		ns.Shutdown()
	}
	fmt.Fprintf(stdout, "The broker[%s, %s] shutdown OK\n", sc.Broker.BrokerName, b.BrokerAddr())
	return nil
}
