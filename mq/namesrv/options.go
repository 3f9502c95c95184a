package namesrv

import "github.com/annotated-rocketmq/rocketmq-go/mq/clock"

// Option sets what the name server takes besides NamesrvConfig (which holds only RocketMQ's
// keys and the two timings RocketMQ hard-codes).
type Option func(*options)

type options struct {
	clock clock.Clock
}

// WithClock sets the name server's one clock; nil or absent means clock.System. It stamps each
// broker's registration (BrokerLiveInfo.LastUpdateTimestamp) and decides expiry in
// ScanNotActiveBroker. Tests and chapters give it a clock.Manual, advance it and run the scan
// themselves. The remoting server keeps the system clock: connection idleness is wall time.
func WithClock(c clock.Clock) Option { return func(o *options) { o.clock = c } }

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	o.clock = clock.Or(o.clock)
	return o
}
