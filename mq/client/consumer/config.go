package consumer

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// Config is a push consumer's configuration: the shared client part and the consumer's own, and
// beside them the Go-only client Options (logger, clock, index seed, scheduled tasks off).
// Mirrors org.apache.rocketmq.client.consumer.DefaultMQPushConsumer's fields (it extends
// ClientConfig). Start from DefaultConfig; zero fields take the defaults.
type Config struct {
	client.ClientConfig
	// Options are the client's settings that are not RocketMQ keys; they go with ClientConfig
	// to the MQClientInstance (the first registrant's win).
	Options client.Options
	// ConsumerGroup names the group; required. Java: consumerGroup.
	ConsumerGroup string
	// MessageModel is CLUSTERING (default: the group shares the queues) or BROADCASTING.
	MessageModel protocol.MessageModel
	// ConsumeFromWhere is where a group without a committed offset starts
	// (CONSUME_FROM_LAST_OFFSET).
	ConsumeFromWhere protocol.ConsumeFromWhere
	// ConsumeTimestamp is the start time for CONSUME_FROM_TIMESTAMP (default: 30 min before start).
	ConsumeTimestamp time.Time
	// AllocateMessageQueueStrategy splits queues in CLUSTERING (AllocateMessageQueueAveragely).
	AllocateMessageQueueStrategy AllocateMessageQueueStrategy
	// ConsumeThreadMin and ConsumeThreadMax bound the consume workers (20, 20). Java's pool
	// never grows past its core size with an unbounded queue, so Min is what runs.
	ConsumeThreadMin int
	ConsumeThreadMax int
	// ConsumeConcurrentlyMaxSpan: pulling a queue pauses while the offsets it holds span more
	// than this (2000). Java: consumeConcurrentlyMaxSpan.
	ConsumeConcurrentlyMaxSpan int64
	// PullThresholdForQueue: pulling a queue pauses while it holds this many messages (1000).
	PullThresholdForQueue int64
	// PullThresholdSizeForQueue: ... or this many MiB of bodies (100). Java: pullThresholdSizeForQueue.
	PullThresholdSizeForQueue int64
	// PullInterval is the pause between two pulls of a queue (0). Java: pullInterval (ms).
	PullInterval time.Duration
	// ConsumeMessageBatchMaxSize is how many messages one listener call gets (1).
	ConsumeMessageBatchMaxSize int
	// PullBatchSize is how many messages one pull asks for (32). Java: pullBatchSize.
	PullBatchSize int32
	// PostSubscriptionWhenPull sends the expression with every pull (false: the broker uses the
	// heartbeat's). Java: postSubscriptionWhenPull.
	PostSubscriptionWhenPull bool
	// MaxReconsumeTimes: a message failing this many times goes to %DLQ% (-1 = 16).
	MaxReconsumeTimes int32
	// SuspendCurrentQueueTime is for orderly consumers (1 s). Java: suspendCurrentQueueTimeMillis.
	SuspendCurrentQueueTime time.Duration
	// UnlockDelayTime is how long an orderly consumer keeps the broker lock of a queue taken
	// away while messages of it are still cached (20 s). Java: the
	// rocketmq.client.unlockDelayTimeMills system property.
	UnlockDelayTime time.Duration
	// BrokerSuspendMaxTime is how long a broker may hold a pull with nothing new (15 s), and
	// ConsumerPullTimeout bounds the pull (30 s). Java: BROKER_SUSPEND_MAX_TIME_MILLIS,
	// CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND.
	BrokerSuspendMaxTime time.Duration
	ConsumerPullTimeout  time.Duration
	// OffsetStoreDir is where a BROADCASTING consumer keeps <clientId>/<group>/offsets.json.
	// Required for BROADCASTING. Java: rocketmq.client.localOffsetStoreDir (~/.rocketmq_offsets).
	// Deviation: no default under the home directory; the caller names it.
	OffsetStoreDir string
}

// Defaults of DefaultMQPushConsumer (4.9.8).
const (
	defaultConsumeThread              = 20
	defaultConsumeConcurrentlyMaxSpan = 2000
	defaultPullThresholdForQueue      = 1000
	defaultPullThresholdSizeForQueue  = 100 // MiB
	defaultConsumeMessageBatchMaxSize = 1
	defaultPullBatchSize              = 32
	defaultMaxReconsumeTimes          = 16
	defaultBrokerSuspendMaxTime       = 15 * time.Second
	defaultConsumerPullTimeout        = 30 * time.Second
	// pullTimeDelayWhenException, pullTimeDelayWhenFlowControl, pullTimeDelayWhenSuspend:
	// Java's PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION (3000), _FLOW_CONTROL (50), _SUSPEND (1000).
	pullTimeDelayWhenException   = 3 * time.Second
	pullTimeDelayWhenFlowControl = 50 * time.Millisecond
	pullTimeDelayWhenSuspend     = time.Second
	// consumeLaterDelay is how long a batch whose send-back failed waits before it is consumed
	// again locally (5 s). Java: submitConsumeRequestLater.
	consumeLaterDelay = 5 * time.Second
)

// DefaultConfig returns DefaultMQPushConsumer's defaults for group.
func DefaultConfig(group string) Config {
	return Config{
		ClientConfig:               client.DefaultClientConfig(),
		ConsumerGroup:              group,
		MessageModel:               protocol.Clustering,
		ConsumeFromWhere:           protocol.ConsumeFromLastOffset,
		ConsumeThreadMin:           defaultConsumeThread,
		ConsumeThreadMax:           defaultConsumeThread,
		ConsumeConcurrentlyMaxSpan: defaultConsumeConcurrentlyMaxSpan,
		PullThresholdForQueue:      defaultPullThresholdForQueue,
		PullThresholdSizeForQueue:  defaultPullThresholdSizeForQueue,
		ConsumeMessageBatchMaxSize: defaultConsumeMessageBatchMaxSize,
		PullBatchSize:              defaultPullBatchSize,
		MaxReconsumeTimes:          -1,
		SuspendCurrentQueueTime:    time.Second,
		UnlockDelayTime:            20 * time.Second,
		BrokerSuspendMaxTime:       defaultBrokerSuspendMaxTime,
		ConsumerPullTimeout:        defaultConsumerPullTimeout,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig(c.ConsumerGroup)
	if c.MessageModel == "" {
		c.MessageModel = d.MessageModel
	}
	if c.ConsumeFromWhere == "" {
		c.ConsumeFromWhere = d.ConsumeFromWhere
	}
	client.DefaultIfUnset(&c.ConsumeThreadMin, d.ConsumeThreadMin)
	if c.ConsumeThreadMax < c.ConsumeThreadMin {
		c.ConsumeThreadMax = c.ConsumeThreadMin
	}
	client.DefaultIfUnset(&c.ConsumeConcurrentlyMaxSpan, d.ConsumeConcurrentlyMaxSpan)
	client.DefaultIfUnset(&c.PullThresholdForQueue, d.PullThresholdForQueue)
	client.DefaultIfUnset(&c.PullThresholdSizeForQueue, d.PullThresholdSizeForQueue)
	client.DefaultIfUnset(&c.ConsumeMessageBatchMaxSize, d.ConsumeMessageBatchMaxSize)
	client.DefaultIfUnset(&c.PullBatchSize, d.PullBatchSize)
	if c.MaxReconsumeTimes == 0 {
		c.MaxReconsumeTimes = -1
	}
	client.DefaultIfUnset(&c.BrokerSuspendMaxTime, d.BrokerSuspendMaxTime)
	client.DefaultIfUnset(&c.ConsumerPullTimeout, d.ConsumerPullTimeout)
	client.DefaultIfUnset(&c.SuspendCurrentQueueTime, d.SuspendCurrentQueueTime)
	client.DefaultIfUnset(&c.UnlockDelayTime, d.UnlockDelayTime)
	return c
}

// maxReconsumeTimes is MaxReconsumeTimes with -1 read as 16. Java: getMaxReconsumeTimes.
func (c *Config) maxReconsumeTimes() int32 {
	if c.MaxReconsumeTimes == -1 {
		return defaultMaxReconsumeTimes
	}
	return c.MaxReconsumeTimes
}
