package consumer

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// consumerInner is the part of client.MQConsumerInner that the push and the lite pull consumer
// answer alike: the group's identity, copied from the config at construction (the config does
// not change afterwards), and the subscribed topics' routes and subscriptions, which go to the
// rebalance. Both consumers embed it, so c.mu, c.state, c.instance and c.rebalance are its
// fields; mu is the consumer's own lock (the consumer's doc says what it guards) and lives here
// because Subscriptions reads rebalance, set by Start, under it. The start and shutdown steps
// both consumers take alike are here too (subscribeNow, beginShutdown). ConsumeType,
// DoRebalance and PersistConsumerOffset differ and stay with each consumer.
type consumerInner struct {
	group     string
	model     protocol.MessageModel
	fromWhere protocol.ConsumeFromWhere
	unitMode  bool

	mu        sync.Mutex
	state     atomic.Int32             // client.ServiceState
	instance  *client.MQClientInstance // nil before Start
	rebalance *Rebalance               // nil before Start
}

func newConsumerInner(group string, model protocol.MessageModel, from protocol.ConsumeFromWhere, unitMode bool) consumerInner {
	return consumerInner{group: group, model: model, fromWhere: from, unitMode: unitMode}
}

// startable, called with mu held by Start, is nil for a consumer not started yet (CREATE_JUST);
// otherwise it releases mu and returns client.ErrServiceState naming kind ("PushConsumer").
func (c *consumerInner) startable(kind string) error {
	if st := client.ServiceState(c.state.Load()); st != client.CreateJust {
		c.mu.Unlock()
		return fmt.Errorf("%w: the %s service state not OK, maybe started once, %s", client.ErrServiceState, kind, st)
	}
	return nil
}

// prepareStart, called with mu held by Start, takes the result of the consumer's checkConfig:
// an error releases mu and is returned; otherwise the consumer is START_FAILED until Start
// succeeds, and a CLUSTERING consumer's instance name becomes the process id when it is
// DEFAULT (cc.ChangeInstanceNameToPID).
func (c *consumerInner) prepareStart(checked error, cc *client.ClientConfig) error {
	if checked != nil {
		c.mu.Unlock()
		return checked
	}
	c.state.Store(int32(client.StartFailed))
	if c.model == protocol.Clustering {
		cc.ChangeInstanceNameToPID()
	}
	return nil
}

// subscribeNow, called with mu held, releases it and, once the consumer has started, puts sd
// (its subVersion now) in the rebalance and tells the brokers by a heartbeat; before Start the
// subscription waits in the consumer's own table. Java: the "if running" tail of
// DefaultMQPushConsumerImpl#subscribe and DefaultLitePullConsumerImpl#subscribe.
func (c *consumerInner) subscribeNow(sd *protocol.SubscriptionData, now time.Time) (started bool) {
	rb, inst := c.rebalance, c.instance
	c.mu.Unlock()
	if rb == nil {
		return false
	}
	sd.SubVersion = now.UnixMilli()
	rb.PutSubscription(sd)
	inst.SendHeartbeatToAllBrokerWithLock()
	return true
}

// beginShutdown moves a running consumer to SHUTDOWN_ALREADY and ends its rebalancing
// (Rebalance.Stop: the pass in flight finishes while the group is still registered, so no
// GET_CONSUMER_LIST_BY_GROUP follows the UNREGISTER_CLIENT; no other begins). It reports false,
// doing nothing, when the consumer was not running.
func (c *consumerInner) beginShutdown() bool {
	c.mu.Lock()
	if client.ServiceState(c.state.Load()) != client.Running {
		c.mu.Unlock()
		return false
	}
	c.state.Store(int32(client.ShutdownAlready))
	c.mu.Unlock()
	c.rebalance.Stop()
	return true
}

// Instance is the consumer's MQClientInstance (nil before Start).
func (c *consumerInner) Instance() *client.MQClientInstance { return c.instance }

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
