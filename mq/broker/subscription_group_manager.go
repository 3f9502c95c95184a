package broker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// SubscriptionGroupConfig is one consumer group's broker-side settings; JSON names are
// RocketMQ's (subscriptionGroup.json, store-formats.md §7.5). The fields are declared in
// alphabetical JSON order, so encoding/json writes them in the order fastjson does.
// Mirrors org.apache.rocketmq.common.subscription.SubscriptionGroupConfig (4.9.x).
type SubscriptionGroupConfig struct {
	// BrokerID is the broker consumers are sent to with slaveReadEnable (0 = master).
	BrokerID int64 `json:"brokerId"`
	// ConsumeBroadcastEnable false refuses pulls of a BROADCASTING group (16).
	ConsumeBroadcastEnable bool `json:"consumeBroadcastEnable"`
	// ConsumeEnable false makes pulls answer NO_PERMISSION (16).
	ConsumeEnable bool `json:"consumeEnable"`
	// ConsumeFromMinEnable is kept for compatibility (unused by 4.9's broker logic).
	ConsumeFromMinEnable bool `json:"consumeFromMinEnable"`
	// GroupName is the consumer group this config belongs to.
	GroupName string `json:"groupName"`
	// NotifyConsumerIdsChangedEnable sends NOTIFY_CONSUMER_IDS_CHANGED on membership changes.
	NotifyConsumerIdsChangedEnable bool `json:"notifyConsumerIdsChangedEnable"`
	// RetryMaxTimes is the reconsume count after which a message goes to %DLQ%<group> (16).
	RetryMaxTimes int32 `json:"retryMaxTimes"`
	// RetryQueueNums is the queue count of %RETRY%<group> (1).
	RetryQueueNums int32 `json:"retryQueueNums"`
	// WhichBrokerWhenConsumeSlowly is the broker suggested when the backlog is on disk (1).
	WhichBrokerWhenConsumeSlowly int64 `json:"whichBrokerWhenConsumeSlowly"`
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

// SubscriptionGroupManager holds the subscription group configs, kept in
// config/subscriptionGroup.json once SetConfigFilePath named it (loaded over the built-ins at
// start, written again after every change).
// Mirrors org.apache.rocketmq.broker.subscription.SubscriptionGroupManager.
type SubscriptionGroupManager struct {
	cfg *BrokerConfig
	log *slog.Logger

	// configManager persists the table (Load, Persist, the config file's path).
	configManager

	clock clock.Clock // DataVersion timestamps
	// versionedTable holds the groups and their DataVersion; its mu guards both.
	versionedTable[SubscriptionGroupConfig]
}

// NewSubscriptionGroupManager creates the table with Java's built-in groups; clk (nil: the
// system clock) stamps the DataVersion.
func NewSubscriptionGroupManager(cfg *BrokerConfig, log *slog.Logger, clk clock.Clock) *SubscriptionGroupManager {
	clk = clock.Or(clk)
	m := &SubscriptionGroupManager{
		clock: clk,
		cfg:   cfg,
		log:   orDiscard(log),
		versionedTable: versionedTable[SubscriptionGroupConfig]{table: map[string]SubscriptionGroupConfig{},
			dataVersion: protocol.DataVersion{Timestamp: clock.Millis(clk)}},
	}
	m.configManager = configManager{encode: m.Encode, decode: m.Decode, log: m.log, what: "subscription group config"}
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
	if c, ok := m.table[group]; ok {
		m.mu.Unlock()
		return &c
	}
	c = NewSubscriptionGroupConfig(group)
	m.table[group] = c
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	m.log.Info("auto create a subscription group", "group", group)
	m.persistChange()
	return &c
}

// UpdateSubscriptionGroupConfig puts c and bumps the DataVersion.
// Java: SubscriptionGroupManager#updateSubscriptionGroupConfig.
func (m *SubscriptionGroupManager) UpdateSubscriptionGroupConfig(c SubscriptionGroupConfig) {
	m.mu.Lock()
	old, existed := m.table[c.GroupName]
	m.table[c.GroupName] = c
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	if existed {
		m.log.Info("update subscription group config", "old", old, "new", c)
	} else {
		m.log.Info("create new subscription group", "new", c)
	}
	m.persistChange()
}

// SubscriptionGroupTable returns a copy of the table.
func (m *SubscriptionGroupManager) SubscriptionGroupTable() map[string]SubscriptionGroupConfig {
	return m.snapshot()
}

// subscriptionGroupsFile is subscriptionGroup.json's shape; Encode writes it, Decode reads it
// (unknown fields of newer RocketMQ versions, e.g. forbiddenTable, are ignored).
type subscriptionGroupsFile struct {
	DataVersion            *protocol.DataVersion      `json:"dataVersion"`
	SubscriptionGroupTable map[string]json.RawMessage `json:"subscriptionGroupTable"`
}

func (f *subscriptionGroupsFile) entries() map[string]json.RawMessage {
	return f.SubscriptionGroupTable
}

// Encode returns subscriptionGroup.json's content: {"dataVersion":{...},
// "subscriptionGroupTable":{group: SubscriptionGroupConfig}}, fastjson's pretty form (tabs,
// fields and groups in alphabetical order). Java: SubscriptionGroupManager#encode(true).
func (m *SubscriptionGroupManager) Encode() ([]byte, error) {
	m.mu.RLock()
	v := struct {
		DataVersion            protocol.DataVersion               `json:"dataVersion"`
		SubscriptionGroupTable map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"`
	}{m.dataVersion, maps.Clone(m.table)}
	m.mu.RUnlock()
	compact, err := json.Marshal(&v)
	if err != nil {
		return nil, err
	}
	return fastjson.Pretty(compact), nil
}

// Decode reads subscriptionGroup.json's content (fastjson's dialect and unknown fields
// accepted) and puts its groups over the table, adopting the file's DataVersion. A group takes
// SubscriptionGroupConfig's defaults for fields the file leaves out and the map key as its
// name when groupName is missing; a null entry is skipped. Nothing changes when an error is
// returned. Java: SubscriptionGroupManager#decode (putAll, assignNewOne).
func (m *SubscriptionGroupManager) Decode(data []byte) error {
	var f subscriptionGroupsFile
	loaded, err := decodeTable(data, &f, func(name string, raw json.RawMessage) (SubscriptionGroupConfig, error) {
		c := NewSubscriptionGroupConfig(name)
		if err := json.Unmarshal(raw, &c); err != nil {
			return c, fmt.Errorf("group %q: %w", name, err)
		}
		if c.GroupName == "" {
			c.GroupName = name
		}
		return c, nil
	})
	if err != nil {
		return err
	}
	m.merge(loaded, f.DataVersion)
	return nil
}
