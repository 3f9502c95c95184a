package broker

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// DefaultConsumerIdsChangeListener sends NOTIFY_CONSUMER_IDS_CHANGED (code 40, header
// consumerGroup, oneway) to every channel of a group whose membership changed, so its consumers
// rebalance at once instead of at their next 20 s rebalance.
// Mirrors org.apache.rocketmq.broker.client.DefaultConsumerIdsChangeListener (REGISTER and
// UNREGISTER only feed the SQL92 ConsumerFilterManager there, which is not built).
type DefaultConsumerIdsChangeListener struct {
	cfg *BrokerConfig
	tr  *trace.Tracer
	log *slog.Logger
}

// NewDefaultConsumerIdsChangeListener returns the listener.
func NewDefaultConsumerIdsChangeListener(cfg *BrokerConfig, tr *trace.Tracer, log *slog.Logger) *DefaultConsumerIdsChangeListener {
	return &DefaultConsumerIdsChangeListener{cfg: cfg, tr: tr, log: orDiscard(log)}
}

// Handle implements ConsumerIdsChangeListener. Java: DefaultConsumerIdsChangeListener#handle.
func (l *DefaultConsumerIdsChangeListener) Handle(event ConsumerGroupEvent, group string, channels []*remoting.Channel) {
	if event != ConsumerGroupEventChange {
		return
	}
	if !l.cfg.NotifyConsumerIdsChangedEnable {
		return
	}
	if l.tr.Enabled() {
		l.tr.Step("DefaultConsumerIdsChangeListener#handle", slog.String("event", event.String()),
			slog.String("group", group), slog.Int("channels", len(channels)))
	}
	for _, ch := range channels {
		notifyConsumerIdsChanged(ch, group, l.log)
	}
}

// notifyConsumerIdsChanged sends NOTIFY_CONSUMER_IDS_CHANGED oneway on ch.
// Java: Broker2Client#notifyConsumerIdsChanged.
func notifyConsumerIdsChanged(ch *remoting.Channel, group string, log *slog.Logger) {
	h := protocol.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: group}
	req := remoting.NewRequest(protocol.NotifyConsumerIdsChanged, protocol.EncodeHeader(&h), nil)
	if err := ch.InvokeOneway(req); err != nil {
		log.Warn("notifyConsumerIdsChanged failed", "group", group, "remoteAddr", ch.RemoteAddr(), "err", err)
	}
}
