package broker

import (
	"maps"
	"strings"
	"sync"
)

// TopicGroupSeparator joins topic and group in the offset table key ("TopicTest@group1").
// Java: ConsumerOffsetManager.TOPIC_GROUP_SEPARATOR.
const TopicGroupSeparator = "@"

// ConsumerOffsetManager keeps the committed consumer offsets: "topic@group" → queueId → the next
// ConsumeQueue offset to consume (ConsumeQueue units, not bytes).
// Mirrors org.apache.rocketmq.broker.offset.ConsumerOffsetManager.
//
// The table is in memory only for now; OffsetTable returns the snapshot a persister
// (consumerOffset.json, store-formats.md §7.3) will write, and SetOffsetTable is what its loader
// will call.
type ConsumerOffsetManager struct {
	mu          sync.RWMutex
	offsetTable map[string]map[int32]int64
}

// NewConsumerOffsetManager returns an empty manager.
func NewConsumerOffsetManager() *ConsumerOffsetManager {
	return &ConsumerOffsetManager{offsetTable: map[string]map[int32]int64{}}
}

// CommitOffset stores offset for (group, topic, queueID) unconditionally: a smaller value
// overwrites a larger one, as Java does (it only logs a warning). clientHost is for logs.
// Java: ConsumerOffsetManager#commitOffset.
func (m *ConsumerOffsetManager) CommitOffset(clientHost, group, topic string, queueID int32, offset int64) {
	_ = clientHost
	key := topic + TopicGroupSeparator + group
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.offsetTable[key]
	if q == nil {
		q = map[int32]int64{}
		m.offsetTable[key] = q
	}
	q[queueID] = offset
}

// QueryOffset returns the committed offset of (group, topic, queueID), or -1 when none is stored.
// Java: ConsumerOffsetManager#queryOffset(group, topic, queueId).
func (m *ConsumerOffsetManager) QueryOffset(group, topic string, queueID int32) int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if q, ok := m.offsetTable[topic+TopicGroupSeparator+group]; ok {
		if off, ok := q[queueID]; ok {
			return off
		}
	}
	return -1
}

// QueryOffsets returns a copy of queueId → offset of (group, topic) (nil when none).
// Java: ConsumerOffsetManager#queryOffset(group, topic).
func (m *ConsumerOffsetManager) QueryOffsets(group, topic string) map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	q, ok := m.offsetTable[topic+TopicGroupSeparator+group]
	if !ok {
		return nil
	}
	return maps.Clone(q)
}

// WhichGroupByTopic returns the groups that have offsets on topic.
// Java: ConsumerOffsetManager#whichGroupByTopic.
func (m *ConsumerOffsetManager) WhichGroupByTopic(topic string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for key := range m.offsetTable {
		t, g, ok := strings.Cut(key, TopicGroupSeparator)
		if ok && t == topic {
			out = append(out, g)
		}
	}
	return out
}

// OffsetTable returns a deep copy of the whole table ("topic@group" → queueId → offset).
func (m *ConsumerOffsetManager) OffsetTable() map[string]map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]map[int32]int64, len(m.offsetTable))
	for k, q := range m.offsetTable {
		out[k] = maps.Clone(q)
	}
	return out
}

// SetOffsetTable replaces the whole table (a loader's entry point); the map is copied.
func (m *ConsumerOffsetManager) SetOffsetTable(t map[string]map[int32]int64) {
	cp := make(map[string]map[int32]int64, len(t))
	for k, q := range t {
		cp[k] = maps.Clone(q)
	}
	m.mu.Lock()
	m.offsetTable = cp
	m.mu.Unlock()
}
