package broker

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// ClientChannelInfo is one client connection known from its heartbeats: the channel, the
// client's ID ("ip@instance"), language and version from the request, and when it was last
// refreshed. Mirrors org.apache.rocketmq.broker.client.ClientChannelInfo.
type ClientChannelInfo struct {
	Channel  *remoting.Channel
	ClientID string
	Language string
	Version  int32
	// LastUpdateTimestamp is the time of the last heartbeat on this channel.
	LastUpdateTimestamp time.Time
}

// ConsumerGroupEvent is what changed in a consumer group.
// Mirrors org.apache.rocketmq.broker.client.ConsumerGroupEvent.
type ConsumerGroupEvent int

const (
	// ConsumerGroupEventChange: the group's channels or subscriptions changed.
	ConsumerGroupEventChange ConsumerGroupEvent = iota
	// ConsumerGroupEventUnregister: the group has no channel left and was removed.
	ConsumerGroupEventUnregister
	// ConsumerGroupEventRegister: subscriptions were registered.
	ConsumerGroupEventRegister
)

// String returns Java's enum name.
func (e ConsumerGroupEvent) String() string {
	switch e {
	case ConsumerGroupEventChange:
		return "CHANGE"
	case ConsumerGroupEventUnregister:
		return "UNREGISTER"
	case ConsumerGroupEventRegister:
		return "REGISTER"
	}
	return "UNKNOWN"
}

// ConsumerIdsChangeListener is told about consumer group changes. For CHANGE, channels are the
// group's current channels (to be notified); for the other events it is nil.
// Mirrors org.apache.rocketmq.broker.client.ConsumerIdsChangeListener.
type ConsumerIdsChangeListener interface {
	Handle(event ConsumerGroupEvent, group string, channels []*remoting.Channel)
}
