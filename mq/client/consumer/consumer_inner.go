package consumer

import (
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// consumerInner is the part of client.MQConsumerInner that the push and the lite pull consumer
// answer alike: the group's identity, copied from the config at construction (the config does
// not change afterwards), and the subscribed topics' routes and subscriptions, which go to the
// rebalance. Both consumers embed it, so c.mu and c.rebalance are its fields; mu is the
// consumer's own lock (the consumer's doc says what it guards) and lives here because
// Subscriptions reads rebalance, set by Start, under it. ConsumeType, DoRebalance and
// PersistConsumerOffset differ and stay with each consumer.
type consumerInner struct {
	group     string
	model     protocol.MessageModel
	fromWhere protocol.ConsumeFromWhere
	unitMode  bool

	mu        sync.Mutex
	rebalance *Rebalance // nil before Start
}

func newConsumerInner(group string, model protocol.MessageModel, from protocol.ConsumeFromWhere, unitMode bool) consumerInner {
	return consumerInner{group: group, model: model, fromWhere: from, unitMode: unitMode}
}

// GroupName is the consumer group.
func (c *consumerInner) GroupName() string { return c.group }

// MessageModel is CLUSTERING or BROADCASTING.
func (c *consumerInner) MessageModel() protocol.MessageModel { return c.model }

// ConsumeFromWhere is the configured start position.
func (c *consumerInner) ConsumeFromWhere() protocol.ConsumeFromWhere { return c.fromWhere }

// IsUnitMode is the config's unit mode.
func (c *consumerInner) IsUnitMode() bool { return c.unitMode }

// Subscriptions returns the subscriptions the heartbeat carries: the push consumer's include
// its retry topic; a lite pull consumer in assign mode has none.
func (c *consumerInner) Subscriptions() []protocol.SubscriptionData {
	c.mu.Lock()
	rb := c.rebalance
	c.mu.Unlock()
	return rb.HeartbeatSubscriptions()
}

// UpdateTopicSubscribeInfo installs a subscribed topic's readable queues.
func (c *consumerInner) UpdateTopicSubscribeInfo(topic string, info []primitive.MessageQueue) {
	c.rebalance.UpdateTopicSubscribeInfo(topic, info)
}

// IsSubscribeTopicNeedUpdate reports a subscribed topic without queues.
func (c *consumerInner) IsSubscribeTopicNeedUpdate(topic string) bool {
	return c.rebalance.IsSubscribeTopicNeedUpdate(topic)
}
