// Command broker runs a RocketMQ broker (RocketMQ's mqbroker).
//
//	go run ./mq/cmd/broker                        # name server in-process on 9876, broker on 10911, store ~/store
//	go run ./mq/cmd/broker -n "10.0.0.1:9876"     # register with these name servers instead (';'-separated)
//	go run ./mq/cmd/broker -c broker.conf         # RocketMQ keys: brokerName, listenPort, storePathRootDir, ...
//	go run ./mq/cmd/broker -p                     # print the effective config
//
// With no name server given (-n, namesrvAddr in the -c file, or the NAMESRV_ADDR environment
// variable) it starts a name server in the same process on port 9876, so one command gives a
// working RocketMQ. SIGINT or SIGTERM shuts the broker down, then the name server.
package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mqbroker:", err)
		os.Exit(1)
	}
}

func run() error {
	sc, err := broker.ParseCommandLine(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		return err
	}
	if sc.PrintOnly {
		return nil
	}
	var ns *namesrv.NamesrvController
	if sc.Broker.NamesrvAddr == "" {
		serverCfg := remoting.DefaultServerConfig()
		serverCfg.ListenAddr = net.JoinHostPort("", fmt.Sprint(namesrv.DefaultListenPort))
		ns = namesrv.NewNamesrvController(namesrv.DefaultNamesrvConfig(), serverCfg, nil)
		if err := namesrv.Start(ns); err != nil {
			return fmt.Errorf("in-process name server: %w", err)
		}
		sc.Broker.NamesrvAddr = fmt.Sprintf("127.0.0.1:%d", ns.Port())
		fmt.Printf("The Name Server boot success (in-process). listen=%s\n", ns.Addr())
	}
	b, err := broker.StartWithConfig(sc, os.Stdout, nil)
	if err != nil {
		if ns != nil {
			ns.Shutdown()
		}
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	b.Shutdown()
	if ns != nil {
		ns.Shutdown()
	}
	return nil
}
