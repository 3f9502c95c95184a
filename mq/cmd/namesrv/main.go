package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/startup"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// main runs run until SIGINT or SIGTERM; startup.Main prints an error once, prefixed
// "mqnamesrv: ", and gives the exit status.
func main() {
	os.Exit(startup.Main("mqnamesrv", os.Stderr, func(stop <-chan os.Signal) error {
		return run(os.Args[1:], os.Stdout, os.Stderr, stop)
	}))
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
	var exp *metrics.Exporter
	if mc := c.NamesrvConfig.ExporterConfig; mc.Enabled() {
		if exp, err = metrics.Serve(mc, log, c.Metrics()); err != nil {
			c.Shutdown()
			return err
		}
		fmt.Fprintf(stdout, "The metrics exporter serves %s\n", exp.URL())
	}
	s := <-stop
	log.Info("shutdown requested", "signal", s.String())
	exp.Shutdown()
	addr := c.Addr()
	c.Shutdown()
	fmt.Fprintf(stdout, "The Name Server[%s] shutdown OK\n", addr)
	return nil
}
