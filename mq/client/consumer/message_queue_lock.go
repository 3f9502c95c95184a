package consumer

import (
	"log/slog"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// MessageQueueLock is the orderly consumer's per-queue lock, the second of ordered
// consumption's three locks: one mutex per MessageQueue, held by a ConsumeRequest for its
// whole run, so at most one goroutine of this client consumes a queue at a time even when
// several requests for it were submitted. Mirrors
// org.apache.rocketmq.client.impl.consumer.MessageQueueLock (Java synchronizes on an Object).
//
// mu guards the table; a queue's mutex is created once and never removed.
type MessageQueueLock struct {
	tr    *trace.Tracer
	mu    sync.Mutex
	table map[primitive.MessageQueue]*sync.Mutex
}

// NewMessageQueueLock returns an empty table; tr traces fetchLockObject (nil: off).
func NewMessageQueueLock(tr *trace.Tracer) *MessageQueueLock {
	return &MessageQueueLock{tr: tr, table: map[primitive.MessageQueue]*sync.Mutex{}}
}

// FetchLockObject returns mq's mutex, creating it on first use. Java: MessageQueueLock#fetchLockObject.
func (l *MessageQueueLock) FetchLockObject(mq primitive.MessageQueue) *sync.Mutex {
	l.mu.Lock()
	m, ok := l.table[mq]
	if !ok {
		m = &sync.Mutex{}
		l.table[mq] = m
	}
	l.mu.Unlock()
	if l.tr.Enabled() {
		l.tr.Step("MessageQueueLock#fetchLockObject", slog.String("topic", mq.Topic), slog.Int("queueId", int(mq.QueueID)),
			slog.Bool("created", !ok))
	}
	return m
}
