package remoting

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// Option sets what a Server, a Client or a WorkerPool takes besides its config (the configs
// mirror Netty's and hold only their keys).
type Option func(*options)

type options struct {
	clock            clock.Clock
	responseObserver ResponseObserver
}

// ResponseObserver hears of every response a Server writes to a connection — a processor's
// answer, a held or late answer (WriteResponse), and the answers the server gives itself
// (REQUEST_CODE_NOT_SUPPORTED, SYSTEM_BUSY) — with its code, on the goroutine that writes it. It
// must be cheap and must not block: it runs on the request path (the broker counts codes with
// atomics). Oneway requests have no response and are not observed.
type ResponseObserver interface {
	ObserveResponse(code int32)
}

// WithResponseObserver sets a Server's ResponseObserver (nil or absent: none). A Client ignores it.
func WithResponseObserver(o ResponseObserver) Option {
	return func(o2 *options) { o2.responseObserver = o }
}

// WithClock sets the clock that stamps a connection's last read and write (idle detection) and
// a pool's queued requests (their age, which the broker's fast failure reads); nil or absent
// means clock.System. Socket deadlines are always wall-clock time: the kernel keeps them.
func WithClock(c clock.Clock) Option { return func(o *options) { o.clock = c } }

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	o.clock = clock.Or(o.clock)
	return o
}

// positiveOr sets *v to def unless *v is positive: a zero (or negative) config field takes its
// default (ServerConfig.withDefaults, ClientConfig.withDefaults).
func positiveOr[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}
