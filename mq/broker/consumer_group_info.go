package broker

import (
	"log/slog"
	"slices"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ConsumerGroupInfo is what the broker knows of one consumer group from heartbeats: its
// channels (keyed by connection, as Java keys them by Netty channel) and its subscriptions by
// topic. Guarded by the owning ConsumerManager's lock.
// Mirrors org.apache.rocketmq.broker.client.ConsumerGroupInfo.
type ConsumerGroupInfo struct {
	GroupName        string
	ChannelInfoTable map[*remoting.Channel]*ClientChannelInfo
	// SubscriptionTable maps topic → subscription (tag codes rebuilt with Java hashing).
	SubscriptionTable map[string]protocol.SubscriptionData
	// ConsumeType is "CONSUME_PASSIVELY" (push) or "CONSUME_ACTIVELY" (pull).
	ConsumeType string
	// MessageModel is "CLUSTERING" or "BROADCASTING".
	MessageModel string
	// ConsumeFromWhere is e.g. "CONSUME_FROM_LAST_OFFSET".
	ConsumeFromWhere    string
	LastUpdateTimestamp time.Time
}

func newConsumerGroupInfo(group, consumeType, messageModel, consumeFromWhere string) *ConsumerGroupInfo {
	return &ConsumerGroupInfo{
		GroupName:         group,
		ChannelInfoTable:  map[*remoting.Channel]*ClientChannelInfo{},
		SubscriptionTable: map[string]protocol.SubscriptionData{},
		ConsumeType:       consumeType,
		MessageModel:      messageModel,
		ConsumeFromWhere:  consumeFromWhere,
	}
}

// clone returns a deep copy (ClientChannelInfo values copied) for callers outside the lock.
func (g *ConsumerGroupInfo) clone() *ConsumerGroupInfo {
	c := *g
	c.ChannelInfoTable = make(map[*remoting.Channel]*ClientChannelInfo, len(g.ChannelInfoTable))
	for ch, info := range g.ChannelInfoTable {
		cp := *info
		c.ChannelInfoTable[ch] = &cp
	}
	c.SubscriptionTable = make(map[string]protocol.SubscriptionData, len(g.SubscriptionTable))
	for t, s := range g.SubscriptionTable {
		c.SubscriptionTable[t] = s
	}
	return &c
}

// AllClientIDs returns the client IDs of all channels, sorted (Java returns them in map order;
// the client sorts them anyway). Java: ConsumerGroupInfo#getAllClientId.
func (g *ConsumerGroupInfo) AllClientIDs() []string {
	out := make([]string, 0, len(g.ChannelInfoTable))
	for _, info := range g.ChannelInfoTable {
		out = append(out, info.ClientID)
	}
	slices.Sort(out)
	return out
}

// AllChannels returns the group's channels. Java: ConsumerGroupInfo#getAllChannel.
func (g *ConsumerGroupInfo) AllChannels() []*remoting.Channel {
	out := make([]*remoting.Channel, 0, len(g.ChannelInfoTable))
	for ch := range g.ChannelInfoTable {
		out = append(out, ch)
	}
	return out
}

// FindSubscriptionData returns topic's subscription. Java: ConsumerGroupInfo#findSubscriptionData.
func (g *ConsumerGroupInfo) FindSubscriptionData(topic string) (protocol.SubscriptionData, bool) {
	s, ok := g.SubscriptionTable[topic]
	return s, ok
}

// updateChannel records info's channel; true when the channel is new to the group. A known
// channel whose client ID changed is replaced (Java logs this as an error). Both timestamps are
// refreshed. Java: ConsumerGroupInfo#updateChannel.
func (g *ConsumerGroupInfo) updateChannel(info ClientChannelInfo, consumeType, messageModel, consumeFromWhere string,
	now time.Time, log *slog.Logger) bool {
	g.ConsumeType, g.MessageModel, g.ConsumeFromWhere = consumeType, messageModel, consumeFromWhere
	updated := false
	old, ok := g.ChannelInfoTable[info.Channel]
	if !ok {
		cp := info
		old = &cp
		g.ChannelInfoTable[info.Channel] = old
		updated = true
		log.Info("new consumer connected", "group", g.GroupName, "clientId", info.ClientID,
			"remoteAddr", info.Channel.RemoteAddr())
	} else if old.ClientID != info.ClientID {
		log.Error("consumer channel exists in broker, but clientId is not equal",
			"group", g.GroupName, "old", old.ClientID, "new", info.ClientID)
		cp := info
		old = &cp
		g.ChannelInfoTable[info.Channel] = old
	}
	g.LastUpdateTimestamp = now
	old.LastUpdateTimestamp = now
	return updated
}

// updateSubscription merges subs into the table: a new topic is added (changed), a newer
// subVersion replaces the old entry (not a change), a topic missing from subs is removed
// (changed). Java: ConsumerGroupInfo#updateSubscription.
func (g *ConsumerGroupInfo) updateSubscription(subs []protocol.SubscriptionData, now time.Time, log *slog.Logger) bool {
	updated := false
	for _, s := range subs {
		old, ok := g.SubscriptionTable[s.Topic]
		if !ok {
			g.SubscriptionTable[s.Topic] = s
			updated = true
			log.Info("subscription changed, add new topic", "group", g.GroupName, "topic", s.Topic)
		} else if s.SubVersion > old.SubVersion {
			g.SubscriptionTable[s.Topic] = s
		}
	}
	for topic := range g.SubscriptionTable {
		if !slices.ContainsFunc(subs, func(s protocol.SubscriptionData) bool { return s.Topic == topic }) {
			delete(g.SubscriptionTable, topic)
			updated = true
			log.Warn("subscription changed, group remove topic", "group", g.GroupName, "topic", topic)
		}
	}
	g.LastUpdateTimestamp = now
	return updated
}

// unregisterChannel removes info's channel; true when it was there.
// Java: ConsumerGroupInfo#unregisterChannel.
func (g *ConsumerGroupInfo) unregisterChannel(ch *remoting.Channel) bool {
	if _, ok := g.ChannelInfoTable[ch]; !ok {
		return false
	}
	delete(g.ChannelInfoTable, ch)
	return true
}

// doChannelCloseEvent removes ch; true when it was there.
// Java: ConsumerGroupInfo#doChannelCloseEvent.
func (g *ConsumerGroupInfo) doChannelCloseEvent(ch *remoting.Channel) bool {
	return g.unregisterChannel(ch)
}
