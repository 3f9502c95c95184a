package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

// runMain is main over its arguments and streams: run, stopped by SIGINT or SIGTERM, and the
// exit status (startup.Main: the error printed once, prefixed "mqnamesrv: ").
func runMain(args []string, stdout, stderr io.Writer) int {
	return startup.Main("mqnamesrv", stderr, func(stop <-chan os.Signal) error { return run(args, stdout, stderr, stop) })
}

// run starts the name server, waits for a signal on stop, shuts it down and says so on stdout.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error {
	level := new(slog.LevelVar) // INFO until the config's logLevel is known
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// A tracer over the operating logger: steps stay off (they are below DEBUG).
	c, err := namesrv.Main(args, stdout, stderr, trace.New(log, "namesrv"))
	if err != nil {
		return err
	}
	if l, err := conf.ParseLogLevel(c.NamesrvConfig.LogLevel); err == nil {
		level.Set(l)
	}
	s := <-stop
	log.Info("shutdown requested", "signal", s.String())
	addr := c.Addr()
	c.Shutdown()
	fmt.Fprintf(stdout, "The Name Server[%s] shutdown OK\n", addr)
	return nil
}
