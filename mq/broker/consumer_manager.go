package broker

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ConsumerManager tracks the consumer groups and their channels from heartbeats and tells its
// ConsumerIdsChangeListener when a group's membership changes.
// Mirrors org.apache.rocketmq.broker.client.ConsumerManager.
//
// One mutex guards the whole table and every ConsumerGroupInfo in it; the listener is called
// after the mutex is released.
type ConsumerManager struct {
	listener ConsumerIdsChangeListener
	// channelExpiredTimeout: a channel not refreshed for this long is closed by the scan (120 s).
	channelExpiredTimeout time.Duration
	tr                    *trace.Tracer
	log                   *slog.Logger
	clock                 clock.Clock // channel refresh times and expiry

	mu            sync.Mutex
	consumerTable map[string]*ConsumerGroupInfo
}

// NewConsumerManager returns an empty manager; clk (nil: the system clock) times channel refreshes.
func NewConsumerManager(listener ConsumerIdsChangeListener, channelExpiredTimeout time.Duration,
	tr *trace.Tracer, log *slog.Logger, clk clock.Clock) *ConsumerManager {
	return &ConsumerManager{
		listener:              listener,
		channelExpiredTimeout: channelExpiredTimeout,
		tr:                    tr,
		log:                   orDiscard(log),
		clock:                 clock.Or(clk),
		consumerTable:         map[string]*ConsumerGroupInfo{},
	}
}

// GetConsumerGroupInfo returns a copy of group's info, or nil.
// Java: ConsumerManager#getConsumerGroupInfo.
func (m *ConsumerManager) GetConsumerGroupInfo(group string) *ConsumerGroupInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.consumerTable[group]
	if !ok {
		return nil
	}
	return g.clone()
}

// FindSubscriptionData returns group's subscription to topic.
// Java: ConsumerManager#findSubscriptionData.
func (m *ConsumerManager) FindSubscriptionData(group, topic string) (protocol.SubscriptionData, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.consumerTable[group]; ok {
		return g.FindSubscriptionData(topic)
	}
	return protocol.SubscriptionData{}, false
}

// FindChannel returns the channel info of clientID in group, or nil.
// Java: ConsumerManager#findChannel.
func (m *ConsumerManager) FindChannel(group, clientID string) *ClientChannelInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.consumerTable[group]; ok {
		for _, info := range g.ChannelInfoTable {
			if info.ClientID == clientID {
				cp := *info
				return &cp
			}
		}
	}
	return nil
}

// RegisterConsumer records a heartbeat of group on info's channel with subs; it returns whether
// the group's channels or subscriptions changed. On a change, with notify, the listener gets
// CHANGE with all the group's channels (they are sent NOTIFY_CONSUMER_IDS_CHANGED), then REGISTER.
// Java: ConsumerManager#registerConsumer.
func (m *ConsumerManager) RegisterConsumer(group string, info ClientChannelInfo, consumeType, messageModel,
	consumeFromWhere string, subs []protocol.SubscriptionData, notify bool) bool {
	now := m.clock.Now()
	m.mu.Lock()
	g, ok := m.consumerTable[group]
	if !ok {
		g = newConsumerGroupInfo(group, consumeType, messageModel, consumeFromWhere)
		m.consumerTable[group] = g
	}
	r1 := g.updateChannel(info, consumeType, messageModel, consumeFromWhere, now, m.log)
	r2 := g.updateSubscription(subs, now, m.log)
	channels := g.AllChannels()
	m.mu.Unlock()
	changed := r1 || r2
	if m.tr.Enabled() {
		m.tr.Step("ConsumerManager#registerConsumer", slog.String("group", group), slog.String("clientId", info.ClientID),
			slog.Int("channels", len(channels)), slog.Bool("changed", changed))
	}
	if changed && notify && m.listener != nil {
		m.listener.Handle(ConsumerGroupEventChange, group, channels)
	}
	if m.listener != nil {
		m.listener.Handle(ConsumerGroupEventRegister, group, nil)
	}
	return changed
}

// UnregisterConsumer removes info's channel from group (UNREGISTER_CLIENT); a group left
// without channels is removed (UNREGISTER). With notify, the remaining channels get CHANGE.
// Java: ConsumerManager#unregisterConsumer.
func (m *ConsumerManager) UnregisterConsumer(group string, info ClientChannelInfo, notify bool) {
	m.mu.Lock()
	g, ok := m.consumerTable[group]
	removedGroup := false
	var channels []*remoting.Channel
	if ok {
		g.unregisterChannel(info.Channel)
		if len(g.ChannelInfoTable) == 0 {
			delete(m.consumerTable, group)
			removedGroup = true
		}
		channels = g.AllChannels()
	}
	m.mu.Unlock()
	if m.tr.Enabled() {
		m.tr.Step("ConsumerManager#unregisterConsumer", slog.String("group", group), slog.String("clientId", info.ClientID),
			slog.Int("channels", len(channels)), slog.Bool("groupRemoved", removedGroup))
	}
	if !ok || m.listener == nil {
		return
	}
	if removedGroup {
		m.listener.Handle(ConsumerGroupEventUnregister, group, nil)
	}
	if notify {
		m.listener.Handle(ConsumerGroupEventChange, group, channels)
	}
}

// DoChannelCloseEvent removes ch from every group (the connection closed, idled out or failed);
// each group that lost it is told CHANGE (its remaining channels), a group left empty is removed
// (UNREGISTER). Java: ConsumerManager#doChannelCloseEvent.
func (m *ConsumerManager) DoChannelCloseEvent(remoteAddr string, ch *remoting.Channel) {
	type change struct {
		group    string
		removed  bool
		channels []*remoting.Channel
	}
	var changes []change
	m.mu.Lock()
	for group, g := range m.consumerTable {
		if !g.doChannelCloseEvent(ch) {
			continue
		}
		c := change{group: group, channels: g.AllChannels()}
		if len(g.ChannelInfoTable) == 0 {
			delete(m.consumerTable, group)
			c.removed = true
		}
		changes = append(changes, c)
	}
	m.mu.Unlock()
	for _, c := range changes {
		m.log.Info("consumer channel closed", "group", c.group, "remoteAddr", remoteAddr, "groupRemoved", c.removed)
		if m.tr.Enabled() {
			m.tr.Step("ConsumerManager#doChannelCloseEvent", slog.String("group", c.group),
				slog.Int("channels", len(c.channels)), slog.Bool("groupRemoved", c.removed))
		}
		if m.listener == nil {
			continue
		}
		if c.removed {
			m.listener.Handle(ConsumerGroupEventUnregister, c.group, nil)
		}
		m.listener.Handle(ConsumerGroupEventChange, c.group, c.channels)
	}
}

// ScanNotActiveChannel closes and removes every channel not refreshed for
// channelExpiredTimeout; a group left empty is removed. (Closing the channel also fires the
// close event, which then finds nothing left to remove — as in Java.)
// Java: ConsumerManager#scanNotActiveChannel.
func (m *ConsumerManager) ScanNotActiveChannel() {
	now := m.clock.Now()
	var expired []*ClientChannelInfo
	m.mu.Lock()
	for group, g := range m.consumerTable {
		for ch, info := range g.ChannelInfoTable {
			if now.Sub(info.LastUpdateTimestamp) > m.channelExpiredTimeout {
				expired = append(expired, info)
				delete(g.ChannelInfoTable, ch)
			}
		}
		if len(g.ChannelInfoTable) == 0 {
			delete(m.consumerTable, group)
		}
	}
	m.mu.Unlock()
	for _, info := range expired {
		m.log.Warn("consumer channel expired, closing it", "clientId", info.ClientID,
			"remoteAddr", info.Channel.RemoteAddr())
		_ = info.Channel.Close()
	}
}

// Groups returns the names of all known groups.
func (m *ConsumerManager) Groups() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Collect(maps.Keys(m.consumerTable))
}
