package broker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TopicGroupSeparator joins topic and group in the offset table key ("TopicTest@group1").
// Java: ConsumerOffsetManager.TOPIC_GROUP_SEPARATOR.
const TopicGroupSeparator = "@"

// ConsumerOffsetManager keeps the committed consumer offsets: "topic@group" → queueId → the next
// queue offset to consume (a store.QueueOffset: ConsumeQueue units, not bytes).
// Mirrors org.apache.rocketmq.broker.offset.ConsumerOffsetManager.
//
// The table is kept in config/consumerOffset.json (store-formats.md §7.3) once
// SetConfigFilePath named it: Load replaces it at start; the broker persists it every
// flushConsumerOffsetInterval and at shutdown (not on every commit: clients commit every 5 s
// per queue).
type ConsumerOffsetManager struct {
	mu          sync.RWMutex
	offsetTable map[string]map[int32]store.QueueOffset

	// configManager persists the table (Load, Persist, the config file's path).
	configManager
}

// NewConsumerOffsetManager returns an empty manager.
func NewConsumerOffsetManager() *ConsumerOffsetManager {
	m := &ConsumerOffsetManager{offsetTable: map[string]map[int32]store.QueueOffset{}}
	m.configManager = configManager{encode: m.Encode, decode: m.Decode, log: discardLogger, what: "consumer offsets"}
	return m
}

// CommitOffset stores offset for (group, topic, queueID) unconditionally: a smaller value
// overwrites a larger one, as Java does (it only logs a warning). clientHost is for logs.
// Java: ConsumerOffsetManager#commitOffset.
func (m *ConsumerOffsetManager) CommitOffset(clientHost, group, topic string, queueID int32, offset store.QueueOffset) {
	_ = clientHost
	key := topic + TopicGroupSeparator + group
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.offsetTable[key]
	if q == nil {
		q = map[int32]store.QueueOffset{}
		m.offsetTable[key] = q
	}
	q[queueID] = offset
}

// QueryOffset returns the committed offset of (group, topic, queueID), or -1 when none is stored.
// Java: ConsumerOffsetManager#queryOffset(group, topic, queueId).
func (m *ConsumerOffsetManager) QueryOffset(group, topic string, queueID int32) store.QueueOffset {
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
func (m *ConsumerOffsetManager) QueryOffsets(group, topic string) map[int32]store.QueueOffset {
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
	return m.keysWhere(func(t, g string) (string, bool) { return g, t == topic })
}

// keysWhere returns, for each "topic@group" key of the table in no particular order, what
// pick makes of its topic and group when pick keeps it.
func (m *ConsumerOffsetManager) keysWhere(pick func(topic, group string) (string, bool)) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for key := range m.offsetTable {
		if t, g, ok := strings.Cut(key, TopicGroupSeparator); ok {
			if v, keep := pick(t, g); keep {
				out = append(out, v)
			}
		}
	}
	return out
}

// OffsetTable returns a deep copy of the whole table ("topic@group" → queueId → offset).
func (m *ConsumerOffsetManager) OffsetTable() map[string]map[int32]store.QueueOffset {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]map[int32]store.QueueOffset, len(m.offsetTable))
	for k, q := range m.offsetTable {
		out[k] = maps.Clone(q)
	}
	return out
}

// SetOffsetTable replaces the whole table (a loader's entry point); the map is copied.
func (m *ConsumerOffsetManager) SetOffsetTable(t map[string]map[int32]store.QueueOffset) {
	cp := make(map[string]map[int32]store.QueueOffset, len(t))
	for k, q := range t {
		cp[k] = maps.Clone(q)
	}
	m.mu.Lock()
	m.offsetTable = cp
	m.mu.Unlock()
}

// putAll puts t's entries over the table under one lock, each topic@group's queue offsets
// replaced whole; entries t lacks stay (a slave's commits for groups its master does not
// know). It returns the replaced entries as they were (nil for a key that was absent).
// Java: SlaveSynchronize#syncConsumerOffset (offsetTable.putAll).
func (m *ConsumerOffsetManager) putAll(t map[string]map[int32]store.QueueOffset) (old map[string]map[int32]store.QueueOffset) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old = make(map[string]map[int32]store.QueueOffset, len(t))
	for k, q := range t {
		old[k] = m.offsetTable[k]
		m.offsetTable[k] = maps.Clone(q)
	}
	return old
}

// Encode returns consumerOffset.json's content in fastjson's pretty form, queue ids unquoted
// (keys and queue ids in ascending order):
//
//	{
//		"offsetTable":{
//			"TopicTest@group1":{0:250,1:248
//			}
//		}
//	}
//
// Java: ConsumerOffsetManager#encode(prettyFormat=true).
func (m *ConsumerOffsetManager) Encode() ([]byte, error) {
	t := m.OffsetTable()
	var b bytes.Buffer
	b.WriteString("{\n\t\"offsetTable\":{")
	keys := slices.Sorted(maps.Keys(t))
	for i, key := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n\t\t")
		b.Write(k)
		b.WriteString(":{")
		for j, q := range slices.Sorted(maps.Keys(t[key])) {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(int64(q), 10))
			b.WriteByte(':')
			b.WriteString(strconv.FormatInt(int64(t[key][q]), 10))
		}
		if len(t[key]) > 0 {
			b.WriteString("\n\t\t")
		}
		b.WriteByte('}')
	}
	if len(keys) > 0 {
		b.WriteString("\n\t")
	}
	b.WriteString("}\n}")
	return b.Bytes(), nil
}

// Decode reads consumerOffset.json's content — queue ids quoted or not, unknown fields
// ignored — and replaces the table with it. A queue id that is not a 32-bit integer is an
// error; nothing changes when an error is returned. Java: ConsumerOffsetManager#decode.
func (m *ConsumerOffsetManager) Decode(data []byte) error {
	var f struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	if err := fastjson.Unmarshal(data, &f); err != nil {
		return err
	}
	t := make(map[string]map[int32]store.QueueOffset, len(f.OffsetTable))
	for key, queues := range f.OffsetTable {
		if queues == nil {
			continue
		}
		q := make(map[int32]store.QueueOffset, len(queues))
		for id, off := range queues {
			n, err := strconv.ParseInt(id, 10, 32)
			if err != nil {
				return fmt.Errorf("offsetTable %q: queue id %q: %w", key, id, err)
			}
			q[int32(n)] = store.QueueOffset(off)
		}
		t[key] = q
	}
	m.mu.Lock()
	m.offsetTable = t
	m.mu.Unlock()
	return nil
}
