package embedded

import (
	"fmt"
	"net"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// StartInProcessNamesrv starts the name server that mqbroker runs beside its broker when no
// name server is given (-n, namesrvAddr, NAMESRV_ADDR), and points sc.Broker.NamesrvAddr at
// it. It listens where the broker does (sc.Keys.BindAddress) on port 9876, or on an ephemeral
// port when the broker's listenPort is 0 (tests); its kvConfig.json lives under
// storePathRootDir/namesrv; it speaks the broker's tls.server.mode. The broker registers with bindAddress:port, or 127.0.0.1:port
// when bindAddress is unspecified (0.0.0.0, ::). On error nothing is left running.
//
// Java: none; RocketMQ always runs mqnamesrv as its own process.
func StartInProcessNamesrv(sc *broker.StartupConfig, tr *trace.Tracer) (*namesrv.NamesrvController, error) {
	ns := newNamesrv(sc.Store.StorePathRootDir, inProcessListenAddr(sc), tr, nil, sc.Server.TLS)
	if err := namesrv.Start(ns); err != nil { // Start shuts down what it started
		return nil, fmt.Errorf("in-process name server: %w", err)
	}
	sc.Broker.NamesrvAddr = net.JoinHostPort(registerHost(sc.Keys.BindAddress), strconv.Itoa(ns.Port()))
	return ns, nil
}

// inProcessListenAddr is where StartInProcessNamesrv listens: the broker's bindAddress, port
// 9876 (0, ephemeral, for an ephemeral broker).
func inProcessListenAddr(sc *broker.StartupConfig) string {
	port := namesrv.DefaultListenPort
	if sc.Broker.ListenPort == 0 {
		port = 0 // an ephemeral broker (tests) gets an ephemeral name server
	}
	return sc.Keys.ListenAddr(port)
}

// registerHost is the host a broker on the same machine reaches a server bound to bind at:
// bind itself, or loopback for an unspecified address.
func registerHost(bind string) string {
	if ip := net.ParseIP(bind); ip == nil || ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return bind
}
