package broker

import (
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// SubscriptionGroupConfig is one consumer group's broker-side settings; JSON names are
// RocketMQ's (subscriptionGroup.json, store-formats.md §7.5).
// Mirrors org.apache.rocketmq.common.subscription.SubscriptionGroupConfig.
type SubscriptionGroupConfig struct {
	GroupName string `json:"groupName"`
	// ConsumeEnable false makes pulls answer NO_PERMISSION (16).
	ConsumeEnable bool `json:"consumeEnable"`
	// ConsumeFromMinEnable is kept for compatibility (unused by 4.9's broker logic).
	ConsumeFromMinEnable bool `json:"consumeFromMinEnable"`
	// ConsumeBroadcastEnable false refuses pulls of a BROADCASTING group (16).
	ConsumeBroadcastEnable bool `json:"consumeBroadcastEnable"`
	// RetryQueueNums is the queue count of %RETRY%<group> (1).
	RetryQueueNums int32 `json:"retryQueueNums"`
	// RetryMaxTimes is the reconsume count after which a message goes to %DLQ%<group> (16).
	RetryMaxTimes int32 `json:"retryMaxTimes"`
	// BrokerID is the broker consumers are sent to with slaveReadEnable (0 = master).
	BrokerID int64 `json:"brokerId"`
	// WhichBrokerWhenConsumeSlowly is the broker suggested when the backlog is on disk (1).
	WhichBrokerWhenConsumeSlowly int64 `json:"whichBrokerWhenConsumeSlowly"`
	// NotifyConsumerIdsChangedEnable sends NOTIFY_CONSUMER_IDS_CHANGED on membership changes.
	NotifyConsumerIdsChangedEnable bool `json:"notifyConsumerIdsChangedEnable"`
}

// NewSubscriptionGroupConfig returns group's config with Java's defaults.
func NewSubscriptionGroupConfig(group string) SubscriptionGroupConfig {
	return SubscriptionGroupConfig{
		GroupName:                      group,
		ConsumeEnable:                  true,
		ConsumeFromMinEnable:           true,
		ConsumeBroadcastEnable:         true,
		RetryQueueNums:                 1,
		RetryMaxTimes:                  16,
		BrokerID:                       0,
		WhichBrokerWhenConsumeSlowly:   1,
		NotifyConsumerIdsChangedEnable: true,
	}
}

// SysConsumerGroupPrefix marks internal groups, which are auto-created even with
// autoCreateSubscriptionGroup=false. Java: MixAll.CID_SYS_RMQ_TRANS prefix "CID_RMQ_SYS_".
const SysConsumerGroupPrefix = "CID_RMQ_SYS_"

// SubscriptionGroupManager holds the subscription group configs.
// Mirrors org.apache.rocketmq.broker.subscription.SubscriptionGroupManager (in memory for now;
// persist() is where subscriptionGroup.json will be written).
type SubscriptionGroupManager struct {
	cfg *BrokerConfig
	log *slog.Logger

	mu          sync.RWMutex
	table       map[string]SubscriptionGroupConfig
	dataVersion protocol.DataVersion
}

// NewSubscriptionGroupManager creates the table with Java's built-in groups.
func NewSubscriptionGroupManager(cfg *BrokerConfig, log *slog.Logger) *SubscriptionGroupManager {
	m := &SubscriptionGroupManager{
		cfg:         cfg,
		log:         orDiscard(log),
		table:       map[string]SubscriptionGroupConfig{},
		dataVersion: protocol.DataVersion{Timestamp: time.Now().UnixMilli()},
	}
	for _, g := range []string{"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP",
		"CID_ONS-HTTP-PROXY", "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER"} {
		m.table[g] = NewSubscriptionGroupConfig(g)
	}
	return m
}

// FindSubscriptionGroupConfig returns group's config, auto-creating it with the defaults when
// autoCreateSubscriptionGroup is on (or the group is a system group); nil when it neither
// exists nor may be created. Java: SubscriptionGroupManager#findSubscriptionGroupConfig.
func (m *SubscriptionGroupManager) FindSubscriptionGroupConfig(group string) *SubscriptionGroupConfig {
	m.mu.RLock()
	c, ok := m.table[group]
	m.mu.RUnlock()
	if ok {
		return &c
	}
	if !m.cfg.AutoCreateSubscriptionGroup && !strings.HasPrefix(group, SysConsumerGroupPrefix) {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.table[group]; ok {
		return &c
	}
	c = NewSubscriptionGroupConfig(group)
	m.table[group] = c
	m.dataVersion.NextVersion(time.Now().UnixMilli())
	m.persist()
	m.log.Info("auto create a subscription group", "group", group)
	return &c
}

// UpdateSubscriptionGroupConfig puts c and bumps the DataVersion.
// Java: SubscriptionGroupManager#updateSubscriptionGroupConfig.
func (m *SubscriptionGroupManager) UpdateSubscriptionGroupConfig(c SubscriptionGroupConfig) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.table[c.GroupName] = c
	m.dataVersion.NextVersion(time.Now().UnixMilli())
	m.persist()
}

// SubscriptionGroupTable returns a copy of the table.
func (m *SubscriptionGroupManager) SubscriptionGroupTable() map[string]SubscriptionGroupConfig {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return maps.Clone(m.table)
}

// DataVersion returns a copy of the DataVersion.
func (m *SubscriptionGroupManager) DataVersion() protocol.DataVersion {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.dataVersion
}

// persist is where subscriptionGroup.json will be written (next issue); called with mu held.
func (m *SubscriptionGroupManager) persist() {}
