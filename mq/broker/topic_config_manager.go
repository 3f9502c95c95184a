package broker

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// Queue counts of built-in topics (RocketMQ 4.9 TopicConfigManager).
const (
	// ScheduleTopicQueueNums is the queue count of SCHEDULE_TOPIC_XXXX: one per delay level.
	ScheduleTopicQueueNums = 18
	// BenchmarkTopicQueueNums is the queue count of BenchmarkTest (its ConsumeQueues exist only
	// once written).
	BenchmarkTopicQueueNums = 1024
)

// TopicConfigManager holds the broker's topic table and its DataVersion, creates the built-in
// topics at start and topics on demand (auto-create on send, %RETRY% on heartbeat).
// Mirrors org.apache.rocketmq.broker.topic.TopicConfigManager.
//
// The table is kept in config/topics.json (store-formats.md §7.2) once SetConfigFilePath named
// it: Load merges the file over the built-ins at start, and every change writes the whole
// table again (Persist).
type TopicConfigManager struct {
	cfg *BrokerConfig
	log *slog.Logger

	// configManager persists the table (Load, Persist, the config file's path).
	configManager

	// versionedTable holds the topics and their DataVersion; its mu guards both (Java:
	// topicConfigTableLock + ConcurrentHashMap).
	versionedTable[protocol.TopicConfig]
	clock clock.Clock // DataVersion timestamps

	// systemTopics are the built-ins (Java: TopicValidator.addSystemTopic).
	systemTopics map[string]bool

	// registerBroker is called (outside the lock) after a topic was created on demand, so the
	// name servers learn it at once (Java: brokerController.registerBrokerAll(false, true, true)).
	registerBroker func()
}

// NewTopicConfigManager creates the table with the built-in topics of RocketMQ 4.9:
// SELF_TEST_TOPIC (1), TBW102 (DefaultTopicQueueNums, perm 7; only with autoCreateTopicEnable),
// BenchmarkTest (1024), the cluster-name topic (16; perm 7 with clusterTopicEnable, else 1),
// the broker-name topic (1; perm 7 with brokerTopicEnable, else 1), OFFSET_MOVED_EVENT (1),
// SCHEDULE_TOPIC_XXXX (18), the trace topic (1; only with traceTopicEnable) and
// <cluster>_REPLY_TOPIC (1). clk (nil: the system clock) stamps the DataVersion.
// Java: TopicConfigManager(BrokerController).
func NewTopicConfigManager(cfg *BrokerConfig, log *slog.Logger, clk clock.Clock) *TopicConfigManager {
	clk = clock.Or(clk)
	m := &TopicConfigManager{
		cfg: cfg,
		log: orDiscard(log),
		versionedTable: versionedTable[protocol.TopicConfig]{table: map[string]protocol.TopicConfig{},
			dataVersion: protocol.DataVersion{Timestamp: clock.Millis(clk)}},
		clock:        clk,
		systemTopics: map[string]bool{},
	}
	m.configManager = configManager{encode: m.Encode, decode: m.Decode, log: m.log, what: "topic config"}
	add := func(topic string, queues int32, perm int32) {
		tc := protocol.NewTopicConfig(topic)
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = queues, queues, perm
		m.table[topic] = *tc
		m.systemTopics[topic] = true
	}
	const rw = protocol.PermRead | protocol.PermWrite
	add(protocol.SelfTestTopic, 1, rw)
	if cfg.AutoCreateTopicEnable {
		add(protocol.DefaultTopic, int32(cfg.DefaultTopicQueueNums), protocol.PermInherit|rw)
	}
	add(protocol.BenchmarkTopic, BenchmarkTopicQueueNums, rw)
	permOf := func(enabled bool) int32 {
		if enabled {
			return protocol.PermInherit | rw
		}
		return protocol.PermInherit
	}
	add(cfg.BrokerClusterName, protocol.DefaultReadQueueNums, permOf(cfg.ClusterTopicEnable))
	add(cfg.BrokerName, 1, permOf(cfg.BrokerTopicEnable))
	add(protocol.OffsetMovedEvent, 1, rw)
	add(protocol.ScheduleTopic, ScheduleTopicQueueNums, rw)
	if cfg.TraceTopicEnable {
		add(cfg.MsgTraceTopicName, 1, rw)
	}
	add(protocol.GetReplyTopic(cfg.BrokerClusterName), 1, rw)
	return m
}

// SetRegisterBroker sets the hook run after a topic is created on demand.
func (m *TopicConfigManager) SetRegisterBroker(f func()) { m.registerBroker = f }

// SelectTopicConfig returns a copy of topic's config, or nil.
// Java: TopicConfigManager#selectTopicConfig.
func (m *TopicConfigManager) SelectTopicConfig(topic string) *protocol.TopicConfig {
	tc, ok := m.TopicConfigOf(topic)
	if !ok {
		return nil
	}
	return &tc
}

// TopicConfigOf returns a copy of topic's config by value and whether the topic exists:
// SelectTopicConfig without the heap copy, for the send path (one lookup per message).
func (m *TopicConfigManager) TopicConfigOf(topic string) (protocol.TopicConfig, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	tc, ok := m.table[topic]
	return tc, ok
}

// IsSystemTopic reports whether topic is one of the built-ins.
func (m *TopicConfigManager) IsSystemTopic(topic string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.systemTopics[topic]
}

// CreateTopicInSendMessageMethod returns topic's config, creating it from the template
// defaultTopic when it does not exist: the template must exist and carry PERM_INHERIT; the new
// topic gets min(clientDefaultTopicQueueNums, template writeQueueNums) read and write queues,
// the template's perm without INHERIT, its filter type, and topicSysFlag. nil when it cannot be
// created. A created topic bumps the DataVersion and is registered with the name servers at once.
// Java: TopicConfigManager#createTopicInSendMessageMethod.
func (m *TopicConfigManager) CreateTopicInSendMessageMethod(topic, defaultTopic, remoteAddr string,
	clientDefaultTopicQueueNums int32, topicSysFlag int32) *protocol.TopicConfig {
	m.mu.Lock()
	if tc, ok := m.table[topic]; ok {
		m.mu.Unlock()
		return &tc
	}
	tmpl, ok := m.table[defaultTopic]
	if !ok {
		m.mu.Unlock()
		m.log.Warn("create new topic failed: the default topic does not exist",
			"topic", topic, "defaultTopic", defaultTopic, "producer", remoteAddr)
		return nil
	}
	if defaultTopic == protocol.DefaultTopic && !m.cfg.AutoCreateTopicEnable {
		// Java downgrades a TBW102 left over from an earlier configuration to RW, so it can no
		// longer serve as a template.
		tmpl.Perm = protocol.PermRead | protocol.PermWrite
		m.table[defaultTopic] = tmpl
	}
	if !protocol.IsInherited(tmpl.Perm) {
		m.mu.Unlock()
		m.log.Warn("create new topic failed: the default topic has no inherit permission",
			"topic", topic, "defaultTopic", defaultTopic, "perm", tmpl.Perm, "producer", remoteAddr)
		return nil
	}
	queueNums := max(min(clientDefaultTopicQueueNums, tmpl.WriteQueueNums), 0)
	tc := *protocol.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = queueNums, queueNums
	tc.Perm = tmpl.Perm &^ protocol.PermInherit
	tc.TopicSysFlag = topicSysFlag
	tc.TopicFilterType = tmpl.TopicFilterType
	m.table[topic] = tc
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	m.persistChange()
	m.log.Info("create new topic by default topic", "topic", topic, "defaultTopic", defaultTopic,
		"queueNums", queueNums, "perm", tc.Perm, "producer", remoteAddr)
	if m.registerBroker != nil {
		m.registerBroker()
	}
	return &tc
}

// CreateTopicInSendMessageBackMethod returns topic's config, creating it with
// clientDefaultTopicQueueNums read and write queues, perm and topicSysFlag when it does not
// exist (used for %RETRY%<group> with the group's retryQueueNums and perm 6, and %DLQ%<group>).
// A created topic bumps the DataVersion and is registered with the name servers at once.
// Java: TopicConfigManager#createTopicInSendMessageBackMethod.
func (m *TopicConfigManager) CreateTopicInSendMessageBackMethod(topic string, clientDefaultTopicQueueNums int32,
	perm int32, topicSysFlag int32) *protocol.TopicConfig {
	m.mu.Lock()
	if tc, ok := m.table[topic]; ok {
		m.mu.Unlock()
		return &tc
	}
	tc := *protocol.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = clientDefaultTopicQueueNums, clientDefaultTopicQueueNums
	tc.Perm = perm
	tc.TopicSysFlag = topicSysFlag
	m.table[topic] = tc
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	m.persistChange()
	m.log.Info("create new topic", "topic", topic, "queueNums", clientDefaultTopicQueueNums, "perm", perm)
	if m.registerBroker != nil {
		m.registerBroker()
	}
	return &tc
}

// UpdateTopicConfig puts tc (creating or replacing) and bumps the DataVersion. The caller
// (UPDATE_AND_CREATE_TOPIC) registers with the name servers afterwards.
// Java: TopicConfigManager#updateTopicConfig.
func (m *TopicConfigManager) UpdateTopicConfig(tc protocol.TopicConfig) {
	m.mu.Lock()
	old, existed := m.table[tc.TopicName]
	m.table[tc.TopicName] = tc
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	m.persistChange()
	if existed {
		m.log.Info("update topic config", "old", old, "new", tc)
	} else {
		m.log.Info("create new topic", "new", tc)
	}
}

// DeleteTopicConfig removes topic and bumps the DataVersion (no-op when absent).
// Java: TopicConfigManager#deleteTopicConfig.
func (m *TopicConfigManager) DeleteTopicConfig(topic string) {
	m.mu.Lock()
	if _, ok := m.table[topic]; !ok {
		m.mu.Unlock()
		return
	}
	delete(m.table, topic)
	m.dataVersion.NextVersion(clock.Millis(m.clock))
	m.mu.Unlock()
	m.persistChange()
	m.log.Info("delete topic config OK", "topic", topic)
}

// TopicConfigTable returns a copy of the table.
func (m *TopicConfigManager) TopicConfigTable() map[string]protocol.TopicConfig { return m.snapshot() }

// BuildTopicConfigSerializeWrapper snapshots table and DataVersion together (what
// REGISTER_BROKER carries and topics.json holds).
// Java: TopicConfigManager#buildTopicConfigSerializeWrapper.
func (m *TopicConfigManager) BuildTopicConfigSerializeWrapper() protocol.TopicConfigSerializeWrapper {
	m.mu.RLock()
	defer m.mu.RUnlock()
	table := make(map[string]*protocol.TopicConfig, len(m.table))
	for name, tc := range m.table {
		table[name] = &tc
	}
	return protocol.TopicConfigSerializeWrapper{TopicConfigTable: table, DataVersion: m.dataVersion}
}

// Encode returns topics.json's content: {"dataVersion":{...},"topicConfigTable":{name:
// TopicConfig}}, fastjson's pretty form (tabs, fields and topics in alphabetical order).
// Java: TopicConfigManager#encode(prettyFormat=true).
func (m *TopicConfigManager) Encode() ([]byte, error) {
	w := m.BuildTopicConfigSerializeWrapper()
	compact, err := w.Encode()
	if err != nil {
		return nil, err
	}
	return fastjson.Pretty(compact), nil
}

// topicsFile is topics.json as read: unknown fields (newer RocketMQ versions) are ignored.
type topicsFile struct {
	DataVersion      *protocol.DataVersion      `json:"dataVersion"`
	TopicConfigTable map[string]json.RawMessage `json:"topicConfigTable"`
}

func (f *topicsFile) entries() map[string]json.RawMessage { return f.TopicConfigTable }

// Decode reads topics.json's content (fastjson's unquoted numeric keys and unknown fields
// accepted) and puts its topics over the table, adopting the file's DataVersion. A topic
// takes the TopicConfig defaults for fields the file leaves out and the map key as its name
// when topicName is missing; a null entry is skipped. Nothing changes when an error is
// returned. Java: TopicConfigManager#decode (putAll over the built-ins, assignNewOne).
func (m *TopicConfigManager) Decode(data []byte) error {
	var f topicsFile
	loaded, err := decodeTable(data, &f, func(name string, raw json.RawMessage) (protocol.TopicConfig, error) {
		tc := *protocol.NewTopicConfig(name)
		if err := json.Unmarshal(raw, &tc); err != nil {
			return tc, fmt.Errorf("topic %q: %w", name, err)
		}
		if tc.TopicName == "" {
			tc.TopicName = name
		}
		switch tc.TopicFilterType {
		case "":
			tc.TopicFilterType = protocol.SingleTag
		case protocol.SingleTag, protocol.MultiTag:
		default:
			return tc, fmt.Errorf("topic %q: unknown topicFilterType %q", name, tc.TopicFilterType)
		}
		return tc, nil
	})
	if err != nil {
		return err
	}
	m.merge(loaded, f.DataVersion)
	return nil
}
