package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// OffsetStore keeps a consumer group's progress: per queue, the next ConsumeQueue index to
// consume (units, not bytes). Clustering consumers keep it on the broker, broadcasting ones in
// a local file. Mirrors org.apache.rocketmq.client.consumer.store.OffsetStore.
type OffsetStore interface {
	// Load reads persisted offsets into memory (the local file; the broker store does nothing).
	Load() error
	// UpdateOffset sets mq's offset in memory; with increaseOnly a smaller value is ignored.
	UpdateOffset(mq primitive.MessageQueue, offset int64, increaseOnly bool)
	// ReadOffset returns mq's offset, or -1 when none is known (-2 on a store error).
	ReadOffset(mq primitive.MessageQueue, t ReadOffsetType) int64
	// PersistAll writes the offsets of mqs (the queues the consumer holds).
	PersistAll(mqs []primitive.MessageQueue)
	// Persist writes one queue's offset.
	Persist(mq primitive.MessageQueue)
	// RemoveOffset forgets mq (a rebalance took it away).
	RemoveOffset(mq primitive.MessageQueue)
	// CloneOffsetTable returns the in-memory offsets of topic's queues.
	CloneOffsetTable(topic string) map[primitive.MessageQueue]int64
}

// ReadOffsetType says where an OffsetStore reads from.
// Mirrors org.apache.rocketmq.client.consumer.store.ReadOffsetType.
type ReadOffsetType int

const (
	// ReadFromMemory reads the in-memory table only.
	ReadFromMemory ReadOffsetType = iota
	// ReadFromStore asks the store (the broker, or the local file).
	ReadFromStore
	// MemoryFirstThenStore reads memory, and the store when memory has nothing.
	MemoryFirstThenStore
)

// offsetTable is the in-memory part both stores share (Java: ConcurrentMap<MessageQueue, AtomicLong>).
type offsetTable struct {
	mu sync.Mutex
	m  map[primitive.MessageQueue]int64
}

func (t *offsetTable) update(mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[primitive.MessageQueue]int64{}
	}
	if old, ok := t.m[mq]; ok && increaseOnly && offset < old {
		return
	}
	t.m[mq] = offset
}

func (t *offsetTable) get(mq primitive.MessageQueue) (int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[mq]
	return v, ok
}

func (t *offsetTable) remove(mq primitive.MessageQueue) {
	t.mu.Lock()
	delete(t.m, mq)
	t.mu.Unlock()
}

func (t *offsetTable) clone(topic string) map[primitive.MessageQueue]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[primitive.MessageQueue]int64{}
	for q, v := range t.m {
		if topic == "" || q.Topic == topic {
			out[q] = v
		}
	}
	return out
}

func sortedQueues(m map[primitive.MessageQueue]int64) []primitive.MessageQueue {
	qs := slices.Collect(maps.Keys(m))
	sort.Slice(qs, func(i, j int) bool { return lessMQ(qs[i], qs[j]) })
	return qs
}

// lessMQ orders queues by topic, broker name, queue id (Java: MessageQueue#compareTo).
func lessMQ(a, b primitive.MessageQueue) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	if a.BrokerName != b.BrokerName {
		return a.BrokerName < b.BrokerName
	}
	return a.QueueID < b.QueueID
}

// SortMessageQueues sorts queues as Java's Collections.sort over MessageQueue does.
func SortMessageQueues(qs []primitive.MessageQueue) {
	sort.Slice(qs, func(i, j int) bool { return lessMQ(qs[i], qs[j]) })
}

// RemoteBrokerOffsetStore keeps a clustering group's offsets in memory and on the queue's
// broker: UpdateOffset changes memory; PersistAll (every PersistConsumerOffsetInterval, 5 s)
// sends UPDATE_CONSUMER_OFFSET oneway for every held queue; ReadOffset(ReadFromStore) asks
// QUERY_CONSUMER_OFFSET. Pulls also carry the memory offset (the commitOffset flag).
// Mirrors org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore.
type RemoteBrokerOffsetStore struct {
	instance *client.MQClientInstance
	group    string
	tr       *trace.Tracer
	table    offsetTable
}

// NewRemoteBrokerOffsetStore returns the store of group over instance.
func NewRemoteBrokerOffsetStore(instance *client.MQClientInstance, group string) *RemoteBrokerOffsetStore {
	return &RemoteBrokerOffsetStore{instance: instance, group: group, tr: instance.Tracer()}
}

// Load does nothing: the broker holds the offsets. Java: RemoteBrokerOffsetStore#load.
func (s *RemoteBrokerOffsetStore) Load() error { return nil }

// UpdateOffset sets mq's offset in memory. Java: RemoteBrokerOffsetStore#updateOffset.
func (s *RemoteBrokerOffsetStore) UpdateOffset(mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	if s.tr.Enabled() {
		s.tr.Step("RemoteBrokerOffsetStore#updateOffset", slog.String("topic", mq.Topic), slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.Int64("offset", offset), slog.Bool("increaseOnly", increaseOnly))
	}
	s.table.update(mq, offset, increaseOnly)
}

// ReadOffset reads memory and/or the broker; -1 when nothing is known, -2 when the broker
// could not be asked. Java: RemoteBrokerOffsetStore#readOffset.
func (s *RemoteBrokerOffsetStore) ReadOffset(mq primitive.MessageQueue, t ReadOffsetType) int64 {
	if t == ReadFromMemory || t == MemoryFirstThenStore {
		if v, ok := s.table.get(mq); ok {
			return v
		}
		if t == ReadFromMemory {
			return -1
		}
	}
	v, found, err := s.fetchConsumeOffsetFromBroker(mq)
	if err != nil {
		s.instance.Logger().Warn("fetchConsumeOffsetFromBroker exception", "mq", mq.String(), "err", err)
		return -2
	}
	if !found {
		return -1
	}
	s.table.update(mq, v, false)
	return v
}

func (s *RemoteBrokerOffsetStore) brokerAddr(mq primitive.MessageQueue) (string, error) {
	r, ok := s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, true)
	if !ok {
		s.instance.UpdateTopicRouteInfoFromNameServer(mq.Topic)
		r, ok = s.instance.FindBrokerAddressInSubscribe(mq.BrokerName, protocol.MasterID, false)
	}
	if !ok {
		return "", fmt.Errorf("%w: %s", client.ErrBrokerNotExist, mq.BrokerName)
	}
	return r.BrokerAddr, nil
}

func (s *RemoteBrokerOffsetStore) fetchConsumeOffsetFromBroker(mq primitive.MessageQueue) (int64, bool, error) {
	addr, err := s.brokerAddr(mq)
	if err != nil {
		return 0, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	h := protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID, BrokerName: mq.BrokerName}
	return s.instance.MQClientAPI().QueryConsumerOffset(ctx, addr, &h)
}

// PersistAll sends the memory offset of each of mqs to its broker (oneway); queues in memory
// but no longer held are forgotten. Java: RemoteBrokerOffsetStore#persistAll.
func (s *RemoteBrokerOffsetStore) PersistAll(mqs []primitive.MessageQueue) {
	if len(mqs) == 0 {
		return
	}
	held := map[primitive.MessageQueue]bool{}
	for _, q := range mqs {
		held[q] = true
	}
	table := s.table.clone("")
	var sent []string
	for _, q := range sortedQueues(table) {
		if !held[q] {
			continue
		}
		if err := s.updateConsumeOffsetToBroker(q, table[q], true); err != nil {
			s.instance.Logger().Error("updateConsumeOffsetToBroker exception", "mq", q.String(), "err", err)
			continue
		}
		sent = append(sent, q.Topic+"/"+q.BrokerName+"/"+strconv.Itoa(int(q.QueueID))+"="+strconv.FormatInt(table[q], 10))
	}
	for q := range table {
		if !held[q] {
			s.table.remove(q)
		}
	}
	if s.tr.Enabled() {
		s.tr.Step("RemoteBrokerOffsetStore#persistAll", slog.String("group", s.group), slog.String("offsets", strings.Join(sent, " ")))
	}
}

// Persist sends one queue's memory offset. Java: RemoteBrokerOffsetStore#persist.
func (s *RemoteBrokerOffsetStore) Persist(mq primitive.MessageQueue) {
	if v, ok := s.table.get(mq); ok {
		if err := s.updateConsumeOffsetToBroker(mq, v, true); err != nil {
			s.instance.Logger().Error("updateConsumeOffsetToBroker exception", "mq", mq.String(), "err", err)
		}
	}
}

// UpdateConsumeOffsetToBroker sends UPDATE_CONSUMER_OFFSET (oneway or waiting).
// Java: RemoteBrokerOffsetStore#updateConsumeOffsetToBroker.
func (s *RemoteBrokerOffsetStore) UpdateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	return s.updateConsumeOffsetToBroker(mq, offset, oneway)
}

func (s *RemoteBrokerOffsetStore) updateConsumeOffsetToBroker(mq primitive.MessageQueue, offset int64, oneway bool) error {
	addr, err := s.brokerAddr(mq)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.instance.Config().MQClientAPITimeout)
	defer cancel()
	h := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: s.group, Topic: mq.Topic, QueueID: mq.QueueID,
		CommitOffset: offset, BrokerName: mq.BrokerName}
	return s.instance.MQClientAPI().UpdateConsumerOffset(ctx, addr, &h, oneway)
}

// RemoveOffset forgets mq. Java: RemoteBrokerOffsetStore#removeOffset.
func (s *RemoteBrokerOffsetStore) RemoveOffset(mq primitive.MessageQueue) { s.table.remove(mq) }

// CloneOffsetTable returns topic's memory offsets ("" = all).
func (s *RemoteBrokerOffsetStore) CloneOffsetTable(topic string) map[primitive.MessageQueue]int64 {
	return s.table.clone(topic)
}

// DefaultOffsetStoreDir is where Java keeps broadcasting offsets: ~/.rocketmq_offsets (the
// rocketmq.client.localOffsetStoreDir property). LocalFileOffsetStore has no default: the
// caller names the directory, so tests never write to a home directory.
const DefaultOffsetStoreDir = ".rocketmq_offsets"

// LocalFileOffsetStore keeps a broadcasting consumer's offsets in memory and in
// <dir>/<clientId>/<group>/offsets.json, written atomically (temp file, rename, .bak). The
// file is OffsetSerializeWrapper's JSON: {"offsetTable":{<MessageQueue as JSON>:offset}} — a
// fastjson map with object keys, which Java writes unquoted; this store writes and reads the
// form below instead (see Deviation).
//
//	{"offsetTable":{"{\"topic\":\"TopicTest\",\"brokerName\":\"broker-a\",\"queueId\":0}":3}}
//
// Deviation: Java's file has the MessageQueue object itself as the key (not valid JSON); here
// the key is that object as a JSON string, so encoding/json can read it back.
// Mirrors org.apache.rocketmq.client.consumer.store.LocalFileOffsetStore.
type LocalFileOffsetStore struct {
	path  string
	group string
	tr    *trace.Tracer
	log   *slog.Logger
	table offsetTable
}

// NewLocalFileOffsetStore returns the store of group for clientID under dir.
func NewLocalFileOffsetStore(dir, clientID, group string, tr *trace.Tracer, log *slog.Logger) *LocalFileOffsetStore {
	return &LocalFileOffsetStore{path: filepath.Join(dir, clientID, group, "offsets.json"), group: group, tr: tr, log: loggerOf(log)}
}

// Path is the offsets file.
func (s *LocalFileOffsetStore) Path() string { return s.path }

type offsetFile struct {
	OffsetTable map[string]int64 `json:"offsetTable"`
}

// Load reads the file (or its .bak) into memory; a missing file is a first start.
// Java: LocalFileOffsetStore#load.
func (s *LocalFileOffsetStore) Load() error {
	n := 0
	used, err := configfile.Load(s.path, func(b []byte) error {
		var f offsetFile
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		for k, v := range f.OffsetTable {
			var q primitive.MessageQueue
			if err := json.Unmarshal([]byte(k), &q); err != nil {
				return err
			}
			s.table.update(q, v, false)
			n++
		}
		return nil
	})
	if s.tr.Enabled() {
		from := "none"
		if used != "" {
			from = filepath.Base(used)
		}
		s.tr.Step("LocalFileOffsetStore#load", slog.String("group", s.group), slog.String("file", from), slog.Int("queues", n))
	}
	if err != nil {
		return fmt.Errorf("load local offsets %s: %w", s.path, err)
	}
	return nil
}

// UpdateOffset sets mq's offset in memory. Java: LocalFileOffsetStore#updateOffset.
func (s *LocalFileOffsetStore) UpdateOffset(mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	if s.tr.Enabled() {
		s.tr.Step("LocalFileOffsetStore#updateOffset", slog.String("topic", mq.Topic), slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.Int64("offset", offset), slog.Bool("increaseOnly", increaseOnly))
	}
	s.table.update(mq, offset, increaseOnly)
}

// ReadOffset reads memory and/or the file; -1 when nothing is known.
// Java: LocalFileOffsetStore#readOffset.
func (s *LocalFileOffsetStore) ReadOffset(mq primitive.MessageQueue, t ReadOffsetType) int64 {
	if t == ReadFromMemory || t == MemoryFirstThenStore {
		if v, ok := s.table.get(mq); ok {
			return v
		}
		if t == ReadFromMemory {
			return -1
		}
	}
	var fromFile offsetTable
	_, err := configfile.Load(s.path, func(b []byte) error {
		var f offsetFile
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		for k, v := range f.OffsetTable {
			var q primitive.MessageQueue
			if json.Unmarshal([]byte(k), &q) == nil {
				fromFile.update(q, v, false)
			}
		}
		return nil
	})
	if err != nil {
		return -1
	}
	if v, ok := fromFile.get(mq); ok {
		s.table.update(mq, v, false)
		return v
	}
	return -1
}

// EncodeOffsets renders the file body for the given offsets (keys sorted, indented).
func EncodeOffsets(table map[primitive.MessageQueue]int64) ([]byte, error) {
	f := offsetFile{OffsetTable: map[string]int64{}}
	for q, v := range table {
		k, err := json.Marshal(q)
		if err != nil {
			return nil, err
		}
		f.OffsetTable[string(k)] = v
	}
	return json.MarshalIndent(f, "", "\t")
}

// PersistAll writes the offsets of mqs to the file atomically. Java: LocalFileOffsetStore#persistAll.
func (s *LocalFileOffsetStore) PersistAll(mqs []primitive.MessageQueue) {
	if len(mqs) == 0 {
		return
	}
	table := s.table.clone("")
	keep := map[primitive.MessageQueue]int64{}
	for _, q := range mqs {
		if v, ok := table[q]; ok {
			keep[q] = v
		}
	}
	data, err := EncodeOffsets(keep)
	if err == nil {
		err = configfile.Store(s.path, data)
	}
	if s.tr.Enabled() {
		var parts []string
		for _, q := range sortedQueues(keep) {
			parts = append(parts, q.Topic+"/"+q.BrokerName+"/"+strconv.Itoa(int(q.QueueID))+"="+strconv.FormatInt(keep[q], 10))
		}
		s.tr.Step("LocalFileOffsetStore#persistAll", slog.String("group", s.group), slog.String("file", "offsets.json"),
			slog.String("offsets", strings.Join(parts, " ")), slog.Bool("ok", err == nil))
	}
	if err != nil {
		s.log.Error("persistAll consumer offset exception", "path", s.path, "err", err)
	}
}

// Persist does nothing, as in Java (the file is written whole by PersistAll).
// Java: LocalFileOffsetStore#persist.
func (s *LocalFileOffsetStore) Persist(mq primitive.MessageQueue) {}

// RemoveOffset does nothing, as in Java (the file keeps the queue).
func (s *LocalFileOffsetStore) RemoveOffset(mq primitive.MessageQueue) {}

// CloneOffsetTable returns topic's memory offsets ("" = all).
func (s *LocalFileOffsetStore) CloneOffsetTable(topic string) map[primitive.MessageQueue]int64 {
	return s.table.clone(topic)
}
