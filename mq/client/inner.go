package client

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// MQProducerInner is what an MQClientInstance needs of a producer registered with it: the
// topics to refresh, and where to put a refreshed route. mq/client/producer's DefaultMQProducer
// implements it. Mirrors org.apache.rocketmq.client.impl.producer.MQProducerInner (the
// transaction-check half is TransactionStateChecker).
type MQProducerInner interface {
	// PublishTopicList returns the topics the producer has sent to (and its createTopicKey).
	PublishTopicList() []string
	// IsPublishTopicNeedUpdate reports a topic without a usable publish route.
	IsPublishTopicNeedUpdate(topic string) bool
	// UpdateTopicPublishInfo installs a route the instance fetched.
	UpdateTopicPublishInfo(topic string, info *TopicPublishInfo)
	// IsUnitMode is the producer's unitMode.
	IsUnitMode() bool
}

// TransactionStateChecker is implemented by producers that answer a broker's
// CHECK_TRANSACTION_STATE (39): the instance hands them the half message and the header, and
// they answer with END_TRANSACTION. Java: MQProducerInner#checkTransactionState.
type TransactionStateChecker interface {
	CheckTransactionState(brokerAddr string, msg *primitive.MessageExt, header *protocol.CheckTransactionStateRequestHeader)
}

// OffsetResetter is implemented by consumers that follow a broker's RESET_CONSUMER_CLIENT_OFFSET
// (220): their queues of topic restart from the given queue offsets (ConsumeQueue units).
// Java: MQClientInstance#resetOffset (over DefaultMQPushConsumerImpl).
type OffsetResetter interface {
	ResetOffset(topic string, offsets map[primitive.MessageQueue]int64)
}

// MQConsumerInner is what an MQClientInstance needs of a consumer registered with it: its
// heartbeat data, the topics to refresh, and the hooks its scheduled tasks call (rebalance,
// offset persistence). Mirrors org.apache.rocketmq.client.impl.consumer.MQConsumerInner.
type MQConsumerInner interface {
	GroupName() string
	MessageModel() protocol.MessageModel
	ConsumeType() protocol.ConsumeType
	ConsumeFromWhere() protocol.ConsumeFromWhere
	// Subscriptions returns the consumer's subscriptions (its %RETRY% topic included, as Java's).
	Subscriptions() []protocol.SubscriptionData
	// DoRebalance reassigns the consumer's queues (called by the RebalanceService).
	DoRebalance()
	// PersistConsumerOffset writes the consumer's offsets (every PersistConsumerOffsetInterval).
	PersistConsumerOffset()
	// UpdateTopicSubscribeInfo installs the readable queues of a refreshed route.
	UpdateTopicSubscribeInfo(topic string, info []primitive.MessageQueue)
	// IsSubscribeTopicNeedUpdate reports a subscribed topic without queues.
	IsSubscribeTopicNeedUpdate(topic string) bool
	IsUnitMode() bool
}
