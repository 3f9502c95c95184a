package broker

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Option sets what NewBrokerController takes besides RocketMQ's configs (BrokerConfig and
// MessageStoreConfig hold only RocketMQ's keys).
type Option func(*BrokerController)

// WithClock sets the broker's one clock; nil or absent means clock.System. It is the time of
// the DataVersions of topics.json and subscriptionGroup.json, of client channel expiry
// (channelExpiredTimeout, checked every clientHousekeepingInterval of wall time: moving this
// clock past the timeout expires every client channel at the next check, as a test may want),
// of long polling (a held pull's suspend time and its deadline) and of fast failure (the age of
// queued requests, stamped by the broker's worker pools), and the message store's unless
// WithStoreOptions gives the store a clock of its own. The remoting servers and the name-server
// client keep the system clock: connection idleness (channelMaxIdle) stays wall time.
func WithClock(c clock.Clock) Option { return func(b *BrokerController) { b.clock = clock.Or(c) } }

// WithHATracer gives the broker's HA service (master/slave replication, chapter 9) a step
// tracer; absent or nil, HA's steps are not traced — the broker's own trace (chapters 1–5)
// shows a broker without its replication listener. HA's operating logs go to the broker's
// logger either way.
func WithHATracer(tr *trace.Tracer) Option { return func(b *BrokerController) { b.haTracer = tr } }
