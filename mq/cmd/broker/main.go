package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

// runMain is main over its arguments and streams: run, stopped by SIGINT or SIGTERM. It
// returns the exit status: 1 after an error (printed to stderr), else 0 (also after -h, which
// printed the usage).
func runMain(args []string, stdout, stderr io.Writer) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	if err := run(args, stdout, stderr, sig); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	return 0
}

// run starts the broker (and, without name servers, one in-process), waits for a signal on
// stop, and shuts both down.
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
		serverCfg.ListenAddr = net.JoinHostPort("", fmt.Sprint(namesrv.DefaultListenPort))
		ns = namesrv.NewNamesrvController(namesrv.DefaultNamesrvConfig(), serverCfg, tr.With("namesrv"))
		if err := namesrv.Start(ns); err != nil {
			ns.Shutdown()
			return fmt.Errorf("in-process name server: %w", err)
		}
		sc.Broker.NamesrvAddr = fmt.Sprintf("127.0.0.1:%d", ns.Port())
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
