package consumer

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
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

// newOffsetStore is a consumer's offset store by message model: LocalFileOffsetStore under dir
// in BROADCASTING, RemoteBrokerOffsetStore otherwise. Java: the offset-store switch of
// DefaultMQPushConsumerImpl#start and DefaultLitePullConsumerImpl#initOffsetStore.
func newOffsetStore(model protocol.MessageModel, dir string, inst *client.MQClientInstance, group string, logger *slog.Logger) OffsetStore {
	if model == protocol.Broadcasting {
		return NewLocalFileOffsetStore(dir, inst.ClientID(), group, inst.Tracer(), logger)
	}
	return NewRemoteBrokerOffsetStore(inst, group)
}

// checkGroupAndModel is the part of both consumers' checkConfig about the group and the message
// model. Errors: client.ErrIllegalConfig.
func checkGroupAndModel(group string, model protocol.MessageModel, offsetStoreDir string) error {
	switch {
	case group == "":
		return fmt.Errorf("%w: consumerGroup is null", client.ErrIllegalConfig)
	case group == "DEFAULT_CONSUMER":
		return fmt.Errorf("%w: consumerGroup can not equal DEFAULT_CONSUMER, please specify another one", client.ErrIllegalConfig)
	case model != protocol.Clustering && model != protocol.Broadcasting:
		return fmt.Errorf("%w: messageModel %q", client.ErrIllegalConfig, model)
	case model == protocol.Broadcasting && offsetStoreDir == "":
		return fmt.Errorf("%w: a BROADCASTING consumer needs OffsetStoreDir", client.ErrIllegalConfig)
	}
	return nil
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

// readMemory answers ReadOffset from memory when t allows it: (offset, true) when mq is held,
// (-1, true) for ReadFromMemory without it; (0, false) when the store must be asked.
// Java: the READ_FROM_MEMORY / MEMORY_FIRST_THEN_STORE cases of both stores' readOffset.
func (t *offsetTable) readMemory(mq primitive.MessageQueue, typ ReadOffsetType) (int64, bool) {
	if typ == ReadFromMemory || typ == MemoryFirstThenStore {
		if v, ok := t.get(mq); ok {
			return v, true
		}
		if typ == ReadFromMemory {
			return -1, true
		}
	}
	return 0, false
}

// updateTraced is both stores' updateOffset: the step (label names the store's updateOffset,
// written at the caller), then the memory table.
func (t *offsetTable) updateTraced(tr *trace.Tracer, label string, mq primitive.MessageQueue, offset int64, increaseOnly bool) {
	if tr.Enabled() {
		tr.Step(label, slog.String("topic", mq.Topic), slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.Int64("offset", offset), slog.Bool("increaseOnly", increaseOnly))
	}
	t.update(mq, offset, increaseOnly)
}

// formatOffsets renders qs' offsets for a step line: "topic/broker/queueId=offset ...".
func formatOffsets(qs []primitive.MessageQueue, table map[primitive.MessageQueue]int64) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = q.Topic + "/" + q.BrokerName + "/" + strconv.Itoa(int(q.QueueID)) + "=" + strconv.FormatInt(table[q], 10)
	}
	return strings.Join(parts, " ")
}
