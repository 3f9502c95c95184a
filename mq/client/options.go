package client

import (
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// Options are a client's settings that are not RocketMQ's: the seams chapters and tests use,
// and the logger every Go component takes. They travel beside ClientConfig (which holds only
// RocketMQ's keys) in every producer's and consumer's config to the MQClientInstance of their
// clientId. As with ClientConfig, the first producer or consumer of a clientId creates the
// instance with its Options; the others share that instance and its Options
// (MQClientManager.GetOrCreateMQClientInstance). The zero value is production behaviour:
// scheduled tasks on, silent, wall clock, random round-robin starts.
type Options struct {
	// DisableScheduledTasks starts the instance without its background route refresh, heartbeat,
	// offset persistence and rebalance (and a push consumer without its pull loop): the caller
	// drives UpdateAllTopicRouteInfoFromNameServer, SendHeartbeatToAllBrokerWithLock,
	// PersistAllConsumerOffset, DoRebalance and PullMessageService.DoPull itself.
	// Chapters and tests use it so that nothing happens behind their back.
	// Not a RocketMQ key. Deviation: Java has no such switch.
	DisableScheduledTasks bool
	// Logger receives step records (level trace.LevelStep) and operating logs; nil is silent.
	// Not a RocketMQ key. Deviation: Java logs through its own ClientLogger, always on.
	Logger *slog.Logger
	// Clock is the client's time (send latency, fault items, born timestamps, subscription
	// versions, ProcessQueue pull and consume times); nil is the wall clock (clock.System).
	// Not a RocketMQ key. Java: System.currentTimeMillis. Timeouts are context deadlines on the
	// monotonic clock and do not follow it.
	Clock clock.Clock
	// IndexSeed gives the start value of each round-robin index (TopicPublishInfo's
	// sendWhichQueue, the fault tolerance's whichItemWorst); nil is random, as Java's
	// ThreadLocalIndex (Math.abs(random.nextInt())). Chapters fix it to get the same queues
	// every run. Not a RocketMQ key.
	IndexSeed func() int32
	// TraceName, when set, tags this client's step lines "client-<TraceName>" (its
	// MQClientInstance) and "consumer-<TraceName>" (a push consumer) instead of "client" and
	// "consumer", so that a log of several clients in one process tells them apart (chapter 6:
	// consumers A and B). Not a RocketMQ key.
	TraceName string
	// AccessKey, SecretKey and SecurityToken, when AccessKey and SecretKey are set, sign every
	// request the instance sends (acl_client_rpc_hook.go) for a broker with aclEnable=true;
	// SecurityToken is optional. Java: the AclClientRPCHook (SessionCredentials) handed to a
	// producer's or consumer's constructor; as there, the first producer or consumer of a
	// clientId decides for the instance.
	AccessKey, SecretKey, SecurityToken string
}

// Component is the trace component of a part of this client: base ("client", "consumer"), or
// base-TraceName when TraceName is set.
func (o Options) Component(base string) string {
	if o.TraceName == "" {
		return base
	}
	return base + "-" + o.TraceName
}

// Log is Logger, or a logger that discards everything when Logger is nil.
func (o Options) Log() *slog.Logger {
	if o.Logger == nil {
		return discardLogger
	}
	return o.Logger
}

// discardLogger drops every record.
var discardLogger = slog.New(slog.DiscardHandler)

// Now reads the client's clock (Clock, or the wall clock when it is nil).
func (o *Options) Now() time.Time { return clock.Or(o.Clock).Now() }

// NextIndexSeed returns a start value for a round-robin index: IndexSeed's, or a random one as
// Java's ThreadLocalIndex takes (Math.abs(random.nextInt())).
func (o *Options) NextIndexSeed() int32 {
	if o.IndexSeed != nil {
		return o.IndexSeed()
	}
	return randomSeed()
}
