package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() {
	level := new(slog.LevelVar) // INFO until the config's logLevel is known
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	// A tracer over the operating logger: steps stay off (they are below DEBUG).
	c, err := namesrv.Main(os.Args[1:], os.Stdout, trace.New(log, "namesrv"))
	if errors.Is(err, namesrv.ErrPrintedConfig) || errors.Is(err, flag.ErrHelp) {
		return
	}
	if errors.Is(err, conf.ErrUsage) {
		os.Exit(2) // the flag package printed the error and the usage
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mqnamesrv:", err)
		os.Exit(1)
	}
	if l, err := conf.ParseLogLevel(c.NamesrvConfig.LogLevel); err == nil {
		level.Set(l)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	s := <-sig
	log.Info("shutdown requested", "signal", s.String())
	addr := c.Addr()
	c.Shutdown()
	fmt.Printf("The Name Server[%s] shutdown OK\n", addr)
}
