package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	err := run(os.Args[1:], os.Stdout, os.Stderr, sig)
	switch {
	case err == nil, errors.Is(err, namesrv.ErrPrintedConfig), errors.Is(err, flag.ErrHelp):
	case errors.Is(err, conf.ErrUsage):
		os.Exit(2) // the flag package printed the error and the usage
	default:
		fmt.Fprintln(os.Stderr, "mqnamesrv:", err)
		os.Exit(1)
	}
}

// run starts the name server, waits for a signal on stop, shuts it down and says so on stdout.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error {
	level := new(slog.LevelVar) // INFO until the config's logLevel is known
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// A tracer over the operating logger: steps stay off (they are below DEBUG).
	c, err := namesrv.Main(args, stdout, trace.New(log, "namesrv"))
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
