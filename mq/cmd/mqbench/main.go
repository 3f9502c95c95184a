package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
)

// main runs one benchmark (bench.Main) until it ends or SIGINT/SIGTERM stops it, and exits
// with its status.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := bench.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
