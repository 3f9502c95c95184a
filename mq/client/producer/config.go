package producer

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// Config is a producer's configuration: the shared client part and the producer's own, and
// beside them the Go-only client Options (logger, clock, index seed, scheduled tasks off).
// Mirrors org.apache.rocketmq.client.producer.DefaultMQProducer's fields (it extends ClientConfig).
//
// Start from DefaultConfig: a zero retry count means "no retry", not "the default". Zero
// durations, sizes, the empty createTopicKey and nil tables do take their defaults.
type Config struct {
	client.ClientConfig
	// Options are the client's settings that are not RocketMQ keys; they go with ClientConfig
	// to the MQClientInstance (the first registrant's win).
	Options client.Options
	// ProducerGroup names the producer; required, not DEFAULT_PRODUCER. Java: producerGroup.
	ProducerGroup string
	// CreateTopicKey is the auto-create template a new topic is sent through (TBW102).
	CreateTopicKey string
	// DefaultTopicQueueNums is the queue count asked for a topic created on first send (4).
	DefaultTopicQueueNums int32
	// SendMsgTimeout bounds a whole send, retries included (3 s). Java: sendMsgTimeout (ms).
	SendMsgTimeout time.Duration
	// CompressMsgBodyOverHowmuch: single-message bodies of at least this many bytes are
	// zlib-compressed (4096). Java: compressMsgBodyOverHowmuch.
	CompressMsgBodyOverHowmuch int
	// CompressLevel is the zlib level (5). Java: the rocketmq.message.compressLevel property.
	CompressLevel int
	// RetryTimesWhenSendFailed is how many more queues a SYNC send tries after a failure (2).
	RetryTimesWhenSendFailed int
	// RetryTimesWhenSendAsyncFailed is how many times an ASYNC send is retried after a transport
	// failure (2).
	RetryTimesWhenSendAsyncFailed int
	// RetryAnotherBrokerWhenNotStoreOK retries a SYNC send whose status is not SEND_OK (false).
	RetryAnotherBrokerWhenNotStoreOK bool
	// MaxMessageSize is the largest body accepted, in bytes (4 MiB). Java: maxMessageSize.
	MaxMessageSize int
	// SendLatencyFaultEnable turns on the latency fault tolerance (false, as in Java).
	// Java: MQFaultStrategy#sendLatencyFaultEnable.
	SendLatencyFaultEnable bool
	// LatencyMax and NotAvailableDuration are MQFaultStrategy's tables in ms; nil takes
	// {50, 100, 550, 1000, 2000, 3000, 15000} and {0, 0, 30000, 60000, 120000, 180000, 600000}.
	LatencyMax           []int64
	NotAvailableDuration []int64
	// RetryResponseCodes are the broker codes after which a SYNC send tries another queue; nil
	// takes Java's TOPIC_NOT_EXIST 17, SERVICE_NOT_AVAILABLE 14, SYSTEM_ERROR 1, NO_PERMISSION 16,
	// NO_BUYER_ID 204, NOT_IN_CURRENT_UNIT 205. Java: DefaultMQProducer#retryResponseCodes.
	RetryResponseCodes []int32
}

// Defaults of DefaultMQProducer (4.9.8), pinned by TestDefaultConfigMatchesJava.
const (
	defaultTopicQueueNums             = 4
	defaultSendMsgTimeout             = 3 * time.Second
	defaultCompressMsgBodyOverHowmuch = 4096
	defaultCompressLevel              = 5
	defaultRetryTimes                 = 2
	defaultMaxMessageSize             = 4 * 1024 * 1024
)

// DefaultConfig returns DefaultMQProducer's defaults for group: TBW102 with 4 queues, 3 s
// timeout, compression from 4 KiB at level 5, 2 retries (sync and async), 4 MiB bodies, latency
// fault tolerance off.
func DefaultConfig(group string) Config {
	return Config{
		ClientConfig:                  client.DefaultClientConfig(),
		ProducerGroup:                 group,
		CreateTopicKey:                protocol.DefaultTopic,
		DefaultTopicQueueNums:         defaultTopicQueueNums,
		SendMsgTimeout:                defaultSendMsgTimeout,
		CompressMsgBodyOverHowmuch:    defaultCompressMsgBodyOverHowmuch,
		CompressLevel:                 defaultCompressLevel,
		RetryTimesWhenSendFailed:      defaultRetryTimes,
		RetryTimesWhenSendAsyncFailed: defaultRetryTimes,
		MaxMessageSize:                defaultMaxMessageSize,
	}
}

func (c Config) withDefaults() Config {
	if c.CreateTopicKey == "" {
		c.CreateTopicKey = protocol.DefaultTopic
	}
	client.DefaultIfUnset(&c.DefaultTopicQueueNums, defaultTopicQueueNums)
	client.DefaultIfUnset(&c.SendMsgTimeout, defaultSendMsgTimeout)
	client.DefaultIfUnset(&c.CompressMsgBodyOverHowmuch, defaultCompressMsgBodyOverHowmuch)
	if c.CompressLevel == 0 {
		c.CompressLevel = defaultCompressLevel
	}
	client.DefaultIfUnset(&c.MaxMessageSize, defaultMaxMessageSize)
	if c.RetryResponseCodes == nil {
		c.RetryResponseCodes = []int32{protocol.TopicNotExist, protocol.ServiceNotAvailable, protocol.SystemError,
			protocol.NoPermission, protocol.NoBuyerID, protocol.NotInCurrentUnit}
	}
	return c
}
