package bench

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"
)

// RunOptions are what a producer run and a consumer run share. Zero fields take the defaults
// named.
type RunOptions struct {
	// NamesrvAddr is the name server list, "ip:port;ip:port" (required).
	NamesrvAddr string
	// Topic (BenchmarkTest) and Group (benchmark_producer, benchmark_consumer). Java: -t, -g.
	Topic string
	Group string
	// InstanceName names the client instance (default "mqbench-<unix ns>", unique per run as
	// the Java tools' currentTimeMillis instance name is).
	InstanceName string
	// Duration stops the run after this long; Count stops it after this many messages (sent,
	// acknowledged or failed; or consumed). Both zero: until ctx is done. Java: -q (messageNum).
	Duration time.Duration
	Count    int64
	// Report receives a line per ReportInterval (1 s), RocketMQ's per-second figures; nil: no
	// lines.
	Report         io.Writer
	ReportInterval time.Duration
}

func (o RunOptions) withDefaults(group string) RunOptions {
	if o.Topic == "" {
		o.Topic = DefaultTopic
	}
	if o.Group == "" {
		o.Group = group
	}
	if o.InstanceName == "" {
		o.InstanceName = "mqbench-" + strconv.FormatInt(wall.Now().UnixNano(), 10)
	}
	if o.ReportInterval <= 0 {
		o.ReportInterval = time.Second
	}
	return o
}

// begin checks the options a run cannot start without and bounds ctx by Duration; the caller
// calls cancel when the run is over.
func (o RunOptions) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if o.NamesrvAddr == "" {
		return nil, nil, errors.New("bench: no name server address")
	}
	if o.Duration > 0 {
		ctx, cancel := context.WithTimeout(ctx, o.Duration)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	return ctx, cancel, nil
}
