package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// natsReadyPrefix starts the line the NATS child prints once it accepts connections.
const natsReadyPrefix = "nats-server ready url="

// natsChildMain is the harness binary's NATS child mode (natsChildEnv set): it runs a NATS
// server with JetStream (file store in -store, loopback, a random port) until SIGTERM or SIGINT,
// printing natsReadyPrefix and its URL on stdout when it is ready. -sync-always is nats-server's
// `sync_interval: always`. Returns the exit status.
func natsChildMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nats-child", flag.ContinueOnError)
	fs.SetOutput(stderr)
	store := fs.String("store", "", "JetStream store directory")
	syncAlways := fs.Bool("sync-always", false, "fsync after every write (sync_interval: always)")
	if err := fs.Parse(args); err != nil || *store == "" {
		fmt.Fprintln(stderr, "nats child: -store DIR is required")
		return 2
	}
	opts := &natsserver.Options{
		Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, JetStream: true, StoreDir: *store,
		SyncAlways: *syncAlways, NoSigs: true, NoLog: true, DisableJetStreamBanner: true,
	}
	s, err := natsserver.NewServer(opts)
	if err != nil {
		fmt.Fprintln(stderr, "nats child:", err)
		return 1
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		fmt.Fprintln(stderr, "nats child: not ready within 30 s")
		s.Shutdown()
		return 1
	}
	fmt.Fprintf(stdout, "%s%s\n", natsReadyPrefix, s.ClientURL())
	<-stop
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}
