package consumer

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// LitePullConfig is a lite pull consumer's configuration: the shared client part, the Go-only
// client Options, and DefaultLitePullConsumer's own fields; each tag carries the RocketMQ key.
// Mirrors org.apache.rocketmq.client.consumer.DefaultLitePullConsumer's fields (it extends
// ClientConfig). Start from DefaultLitePullConfig; zero fields take the defaults (AutoCommit is
// a plain bool: DefaultLitePullConfig sets it true, as Java's default).
type LitePullConfig struct {
	client.ClientConfig
	// Options are the client's settings that are not RocketMQ keys (see Config.Options).
	Options client.Options
	// ConsumerGroup names the group; required.
	ConsumerGroup string `prop:"consumerGroup"`
	// MessageModel is CLUSTERING (default) or BROADCASTING.
	MessageModel protocol.MessageModel `prop:"messageModel"`
	// ConsumeFromWhere is where a queue without a committed offset starts (CONSUME_FROM_LAST_OFFSET).
	ConsumeFromWhere protocol.ConsumeFromWhere `prop:"consumeFromWhere"`
	// ConsumeTimestamp is the start time for CONSUME_FROM_TIMESTAMP (default: 30 min before start).
	ConsumeTimestamp time.Time `prop:"consumeTimestamp"`
	// AllocateMessageQueueStrategy splits queues in CLUSTERING (AllocateMessageQueueAveragely).
	AllocateMessageQueueStrategy AllocateMessageQueueStrategy `prop:"allocateMessageQueueStrategy"`
	// AutoCommit makes Poll commit the consumed offsets every AutoCommitInterval (true).
	AutoCommit bool `prop:"autoCommit"`
	// AutoCommitInterval is the least time between two automatic commits (5 s).
	AutoCommitInterval time.Duration `prop:"autoCommitIntervalMillis"`
	// PullBatchSize is how many messages one pull asks for, so one Poll returns at most this
	// many (10).
	PullBatchSize int32 `prop:"pullBatchSize"`
	// PullThreadNums bounds the pulls in flight at once (20).
	PullThreadNums int `prop:"pullThreadNums"`
	// PullThresholdForAll: no queue is pulled while the consume request cache holds more than
	// this many messages (cached requests × PullBatchSize) (10 000).
	PullThresholdForAll int64 `prop:"pullThresholdForAll"`
	// ConsumeMaxSpan: a queue is not pulled while the offsets it caches span more than this (2000).
	ConsumeMaxSpan int64 `prop:"consumeMaxSpan"`
	// PullThresholdForQueue: a queue is not pulled while it caches more messages than this (1000).
	PullThresholdForQueue int64 `prop:"pullThresholdForQueue"`
	// PullThresholdSizeForQueue: ... or more MiB of bodies than this (100).
	PullThresholdSizeForQueue int64 `prop:"pullThresholdSizeForQueue"`
	// PollTimeout is Poll's wait when the caller gives none (PollDefault) (5 s).
	PollTimeout time.Duration `prop:"pollTimeoutMillis"`
	// PullTimeDelayWhenException is the pause of a queue's pull task after a failed pull (1 s).
	PullTimeDelayWhenException time.Duration `prop:"pullTimeDelayMillsWhenException"`
	// BrokerSuspendMaxTime is how long the broker may hold a pull with nothing new (20 s), and
	// ConsumerTimeoutWhenSuspend bounds such a pull (30 s; it must exceed the former).
	BrokerSuspendMaxTime       time.Duration `prop:"brokerSuspendMaxTimeMillis"`
	ConsumerTimeoutWhenSuspend time.Duration `prop:"consumerTimeoutMillisWhenSuspend"`
	// OffsetStoreDir is where a BROADCASTING consumer keeps its offsets (required then; see
	// Config.OffsetStoreDir).
	OffsetStoreDir string `prop:"rocketmq.client.localOffsetStoreDir"`
}

// Defaults of DefaultLitePullConsumer and DefaultLitePullConsumerImpl (4.9.8).
const (
	defaultLitePullBatchSize          = 10
	defaultLitePullThreadNums         = 20
	defaultLitePullThresholdForAll    = 10000
	defaultLiteConsumeMaxSpan         = 2000
	defaultLiteAutoCommitInterval     = 5 * time.Second
	defaultLitePollTimeout            = 5 * time.Second
	defaultLitePullDelayWhenException = time.Second
	defaultLiteBrokerSuspendMaxTime   = 20 * time.Second
	defaultLiteConsumerTimeoutSuspend = 30 * time.Second
	// litePullDelayWhenPause is Java's PULL_TIME_DELAY_MILLS_WHEN_PAUSE (1000 ms); flow control
	// waits pullTimeDelayWhenFlowControl (50 ms), as the push consumer's.
	litePullDelayWhenPause = time.Second
)

// DefaultLitePullConfig returns DefaultLitePullConsumer's defaults for group.
func DefaultLitePullConfig(group string) LitePullConfig {
	return LitePullConfig{
		ClientConfig:               client.DefaultClientConfig(),
		ConsumerGroup:              group,
		MessageModel:               protocol.Clustering,
		ConsumeFromWhere:           protocol.ConsumeFromLastOffset,
		AutoCommit:                 true,
		AutoCommitInterval:         defaultLiteAutoCommitInterval,
		PullBatchSize:              defaultLitePullBatchSize,
		PullThreadNums:             defaultLitePullThreadNums,
		PullThresholdForAll:        defaultLitePullThresholdForAll,
		ConsumeMaxSpan:             defaultLiteConsumeMaxSpan,
		PullThresholdForQueue:      defaultPullThresholdForQueue,
		PullThresholdSizeForQueue:  defaultPullThresholdSizeForQueue,
		PollTimeout:                defaultLitePollTimeout,
		PullTimeDelayWhenException: defaultLitePullDelayWhenException,
		BrokerSuspendMaxTime:       defaultLiteBrokerSuspendMaxTime,
		ConsumerTimeoutWhenSuspend: defaultLiteConsumerTimeoutSuspend,
	}
}

func (c LitePullConfig) withDefaults() LitePullConfig {
	d := DefaultLitePullConfig(c.ConsumerGroup)
	if c.MessageModel == "" {
		c.MessageModel = d.MessageModel
	}
	if c.ConsumeFromWhere == "" {
		c.ConsumeFromWhere = d.ConsumeFromWhere
	}
	client.DefaultIfUnset(&c.AutoCommitInterval, d.AutoCommitInterval)
	client.DefaultIfUnset(&c.PullBatchSize, d.PullBatchSize)
	client.DefaultIfUnset(&c.PullThreadNums, d.PullThreadNums)
	client.DefaultIfUnset(&c.PullThresholdForAll, d.PullThresholdForAll)
	client.DefaultIfUnset(&c.ConsumeMaxSpan, d.ConsumeMaxSpan)
	client.DefaultIfUnset(&c.PullThresholdForQueue, d.PullThresholdForQueue)
	client.DefaultIfUnset(&c.PullThresholdSizeForQueue, d.PullThresholdSizeForQueue)
	client.DefaultIfUnset(&c.PollTimeout, d.PollTimeout)
	client.DefaultIfUnset(&c.PullTimeDelayWhenException, d.PullTimeDelayWhenException)
	client.DefaultIfUnset(&c.BrokerSuspendMaxTime, d.BrokerSuspendMaxTime)
	client.DefaultIfUnset(&c.ConsumerTimeoutWhenSuspend, d.ConsumerTimeoutWhenSuspend)
	return c
}
