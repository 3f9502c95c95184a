package broker

import (
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// The managers' lookups and removals that only the admin requests use, kept beside the
// AdminBrokerProcessor that calls them.

// WhichTopicByConsumer returns the topics group has offsets on, sorted.
// Java: ConsumerOffsetManager#whichTopicByConsumer.
func (m *ConsumerOffsetManager) WhichTopicByConsumer(group string) []string {
	out := m.keysWhere(func(t, g string) (string, bool) { return t, g == group })
	slices.Sort(out)
	return out
}

// RemoveOffset drops every offset of group. Java: ConsumerOffsetManager#removeOffset.
func (m *ConsumerOffsetManager) RemoveOffset(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.offsetTable {
		if _, g, ok := strings.Cut(key, TopicGroupSeparator); ok && g == group {
			delete(m.offsetTable, key)
		}
	}
}

// QueryTopicConsumeByWho returns the online groups that subscribe topic, sorted.
// Java: ConsumerManager#queryTopicConsumeByWho.
func (m *ConsumerManager) QueryTopicConsumeByWho(topic string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for g, info := range m.consumerTable {
		if _, ok := info.SubscriptionTable[topic]; ok {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

// GroupChannels returns copies of group's channel infos, by client id (nil when the group
// has none). Java: ProducerManager#getGroupChannelTable().get(group).
func (m *ProducerManager) GroupChannels(group string) []ClientChannelInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ClientChannelInfo
	for _, info := range m.groupChannelTable[group] {
		out = append(out, *info)
	}
	slices.SortFunc(out, func(a, b ClientChannelInfo) int { return strings.Compare(a.ClientID, b.ClientID) })
	return out
}

// DeleteSubscriptionGroupConfig removes group's config and bumps the DataVersion (nothing
// happens for an unknown group). Java: SubscriptionGroupManager#deleteSubscriptionGroupConfig.
func (m *SubscriptionGroupManager) DeleteSubscriptionGroupConfig(group string) {
	m.mu.Lock()
	old, ok := m.table[group]
	if ok {
		delete(m.table, group)
		m.dataVersion.NextVersion(clock.Millis(m.clock))
	}
	m.mu.Unlock()
	if !ok {
		m.log.Warn("delete subscription group failed, not exist", "group", group)
		return
	}
	m.log.Info("delete subscription group OK", "old", old)
	m.persistChange()
}
