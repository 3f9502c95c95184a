package transaction

import (
	"fmt"
	"log/slog"
	"maps"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Deps is what the bridge is built from: the store, the SysGroup's offsets, the broker's
// store host ("ip:port" as the broker publishes it; a func because the port is known only
// once the broker listens), an optional creator of system topic configs (nil: none), the
// tracer and the operating logger.
type Deps struct {
	Store     MessageStore
	Offsets   OffsetStore
	StoreHost func() string
	// CreateSystemTopic registers a system topic's config (TRANS_CHECK_MAX_TIME_TOPIC) with
	// queueNums queues, so admin tools see it. Java: TopicConfigManager#createTopicOfTranCheckMaxTime.
	CreateSystemTopic func(topic string, queueNums int32)
	Tracer            *trace.Tracer
	Log               *slog.Logger
}

// TransactionalMessageBridge is the store side of transactions: it turns a sent message into
// its half message, puts op messages, and reads the half and op queues for the check.
// Mirrors org.apache.rocketmq.broker.transaction.queue.TransactionalMessageBridge.
//
// Only queue 0 of each topic is used: every half message goes to RMQ_SYS_TRANS_HALF_TOPIC
// queue 0, so its op queue is RMQ_SYS_TRANS_OP_HALF_TOPIC queue 0 (Java's opQueueMap maps a
// half queue to the op queue of the same id).
type TransactionalMessageBridge struct {
	d Deps
}

// NewTransactionalMessageBridge returns a bridge over d.
func NewTransactionalMessageBridge(d Deps) *TransactionalMessageBridge {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.StoreHost == nil {
		d.StoreHost = func() string { return "127.0.0.1:0" }
	}
	return &TransactionalMessageBridge{d: d}
}

// ParseHalfMessageInner turns msg into its half message, in place: REAL_TOPIC and REAL_QID keep
// the destination, the transaction bits of sysFlag are reset to TRANSACTION_NOT_TYPE (so the
// store dispatches the record to a ConsumeQueue like any message), and the topic becomes
// RMQ_SYS_TRANS_HALF_TOPIC queue 0. The stored properties string is rebuilt without WAIT (as
// the send path writes it); WAIT stays in the map for the store's flush decision. TRAN_MSG and
// PGROUP stay: the check reads PGROUP to find the producer. A DELAY level is dropped.
// Java: TransactionalMessageBridge#parseHalfMessageInner.
//
// Deviation: Java's broker keeps DELAY and relies on its client to clear it; rocketmq-client-go
// does not, and with DELAY the store would move the half message to SCHEDULE_TOPIC_XXXX and
// overwrite REAL_TOPIC with the half topic (its real topic lost, END_TRANSACTION refused, a
// check-back's commit written into the half topic). A transaction's message is never delayed.
func (b *TransactionalMessageBridge) ParseHalfMessageInner(msg *primitive.MessageExtBrokerInner) *primitive.MessageExtBrokerInner {
	if msg.Properties == nil {
		msg.Properties = map[string]string{}
	}
	delete(msg.Properties, primitive.PropertyDelayTimeLevel)
	msg.Properties[primitive.PropertyRealTopic] = msg.Topic
	msg.Properties[primitive.PropertyRealQueueID] = strconv.Itoa(int(msg.QueueID))
	if tr := b.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageBridge#parseHalfMessageInner", slog.String("realTopic", msg.Topic),
			slog.Int("realQueueId", int(msg.QueueID)), slog.String("topic", HalfTopic), slog.Int("queueId", 0))
	}
	msg.SysFlag = primitive.ResetTransactionValue(msg.SysFlag, primitive.TransactionNotType)
	msg.Topic = HalfTopic
	msg.QueueID = 0
	msg.PropertiesString = storedProperties(msg.Properties)
	return msg
}

// storedProperties is the properties string a record stores: props without WAIT.
func storedProperties(props map[string]string) string {
	if _, ok := props[primitive.PropertyWaitStoreMsgOK]; !ok {
		return primitive.MarshalProperties(props)
	}
	cp := maps.Clone(props)
	delete(cp, primitive.PropertyWaitStoreMsgOK)
	return primitive.MarshalProperties(cp)
}

// PutOpMessage records that the half message m is decided: an op message in
// RMQ_SYS_TRANS_OP_HALF_TOPIC, queue m.QueueID, TAGS opType ("d"), body m's half-queue offset
// as decimal text. It reports whether the store took it (PUT_OK).
// Java: TransactionalMessageBridge#putOpMessage → addRemoveTagInTransactionOp → writeOp.
func (b *TransactionalMessageBridge) PutOpMessage(m *primitive.MessageExt, opType string) bool {
	if opType != RemoveTag {
		return false
	}
	body := strconv.FormatInt(m.QueueOffset, 10)
	if tr := b.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageBridge#putOpMessage", slog.String("topic", OpHalfTopic),
			slog.Int("queueId", int(m.QueueID)), slog.String("tags", opType), slog.String("body", body))
	}
	inner := b.newInner(OpHalfTopic, m.QueueID, []byte(body), map[string]string{primitive.PropertyTags: opType})
	inner.TagsCode = primitive.TagsString2TagsCode(opType)
	r := b.d.Store.PutMessage(inner)
	if r.PutMessageStatus != store.PutOK {
		b.d.Log.Warn("put op message failed", "halfQueueOffset", m.QueueOffset, "status", r.PutMessageStatus.String())
		return false
	}
	return true
}

// newInner is a message the broker itself writes (op and discarded messages): born now, born
// and store host the broker's, WAIT=false so no put waits for a flush.
// Java: TransactionalMessageBridge#makeOpMessageInner.
func (b *TransactionalMessageBridge) newInner(topic string, queueID int32, body []byte, props map[string]string) *primitive.MessageExtBrokerInner {
	inner := &primitive.MessageExtBrokerInner{}
	inner.Topic = topic
	inner.QueueID = queueID
	inner.Body = body
	host := b.d.StoreHost()
	inner.BornHost = host
	inner.StoreHost = host
	inner.BornTimestamp = b.d.Store.Now()
	inner.PropertiesString = primitive.MarshalProperties(props)
	props[primitive.PropertyWaitStoreMsgOK] = "false"
	inner.Properties = props
	return inner
}

// FetchConsumeOffset returns the SysGroup's next offset in topic's queue (ConsumeQueue units);
// with none stored, the queue's min offset, which is then stored. Java:
// TransactionalMessageBridge#fetchConsumeOffset.
func (b *TransactionalMessageBridge) FetchConsumeOffset(topic string, queueID int32) store.QueueOffset {
	off := b.d.Offsets.QueryOffset(SysGroup, topic, queueID)
	if off == -1 {
		off = b.d.Store.GetMinOffsetInQueue(topic, queueID)
		b.UpdateConsumeOffset(topic, queueID, off)
	}
	return off
}

// UpdateConsumeOffset stores the SysGroup's next offset in topic's queue.
// Java: TransactionalMessageBridge#updateConsumeOffset.
func (b *TransactionalMessageBridge) UpdateConsumeOffset(topic string, queueID int32, off store.QueueOffset) {
	b.d.Offsets.CommitOffset("TransactionalMessageBridge", SysGroup, topic, queueID, off)
}

// pullStatus is PullStatus of a read of the half or op queue. Java: PullStatus.
type pullStatus int

const (
	pullFound         pullStatus = iota // FOUND: messages read
	pullNoNewMsg                        // NO_NEW_MSG: at the queue's end
	pullNoMatchedMsg                    // NO_MATCHED_MSG
	pullOffsetIllegal                   // OFFSET_ILLEGAL: the offset is outside the queue
)

// toPullStatus maps the store's status as the bridge does. Java: TransactionalMessageBridge#getMessage.
func toPullStatus(s store.GetMessageStatus) pullStatus {
	switch s {
	case store.Found:
		return pullFound
	case store.NoMatchedMessage:
		return pullNoMatchedMsg
	case store.NoMessageInQueue, store.OffsetOverflowOne:
		return pullNoNewMsg
	}
	return pullOffsetIllegal
}

// pullResult is what a read of the half or op queue found: the status, where the next read
// starts (ConsumeQueue units), and the decoded messages (nil unless FOUND).
type pullResult struct {
	status          pullStatus
	nextBeginOffset store.QueueOffset
	msgFoundList    []*primitive.MessageExt
}

// found reports a read that returned messages (FOUND).
func (r *pullResult) found() bool { return r.status == pullFound && len(r.msgFoundList) > 0 }

// getMessage reads up to nums messages of topic's queue from offset, as the SysGroup.
// Java: TransactionalMessageBridge#getMessage (+ getMessageExt: decode FOUND records).
func (b *TransactionalMessageBridge) getMessage(topic string, queueID int32, offset store.QueueOffset, nums int32) (*pullResult, error) {
	r := b.d.Store.GetMessage(SysGroup, topic, queueID, offset, nums, nil)
	if r == nil {
		return nil, fmt.Errorf("get message %s-%d at %d: no result", topic, queueID, offset)
	}
	out := &pullResult{status: toPullStatus(r.Status), nextBeginOffset: r.NextBeginOffset}
	for i, rec := range r.Messages {
		m, _, err := primitive.DecodeMessage(rec)
		if err != nil {
			return nil, fmt.Errorf("decode %s-%d message at %d: %w", topic, queueID, r.MessageQueueOffsets[i], err)
		}
		out.msgFoundList = append(out.msgFoundList, m)
	}
	return out, nil
}

// GetHalfMessage reads up to nums half messages of queue queueID from offset.
// Java: TransactionalMessageBridge#getHalfMessage.
func (b *TransactionalMessageBridge) GetHalfMessage(queueID int32, offset store.QueueOffset, nums int32) (*pullResult, error) {
	return b.getMessage(HalfTopic, queueID, offset, nums)
}

// GetOpMessage reads up to nums op messages of queue queueID from offset.
// Java: TransactionalMessageBridge#getOpMessage.
func (b *TransactionalMessageBridge) GetOpMessage(queueID int32, offset store.QueueOffset, nums int32) (*pullResult, error) {
	return b.getMessage(OpHalfTopic, queueID, offset, nums)
}

// RenewHalfMessageInner is a copy of the half message m to put again at the end of its queue:
// same topic, queue, body, flag, sysFlag, born time and hosts, reconsume times and properties
// (with the check count the caller has updated), WAIT=false.
// Java: TransactionalMessageBridge#renewHalfMessageInner.
func (b *TransactionalMessageBridge) RenewHalfMessageInner(m *primitive.MessageExt) *primitive.MessageExtBrokerInner {
	return b.copyInner(m, m.Topic, m.QueueID)
}

// copyInner copies m into a message for topic and queue (see RenewHalfMessageInner).
func (b *TransactionalMessageBridge) copyInner(m *primitive.MessageExt, topic string, queueID int32) *primitive.MessageExtBrokerInner {
	inner := m.CopyToInner(topic, queueID)
	props := inner.Properties
	inner.TagsCode = primitive.TagsString2TagsCode(props[primitive.PropertyTags])
	inner.PropertiesString = storedProperties(props)
	props[primitive.PropertyWaitStoreMsgOK] = "false"
	return inner
}

// PutMessageReturnResult puts inner and returns the store's result.
// Java: TransactionalMessageBridge#putMessageReturnResult.
func (b *TransactionalMessageBridge) PutMessageReturnResult(inner *primitive.MessageExtBrokerInner) store.PutMessageResult {
	return b.d.Store.PutMessage(inner)
}

// LookMessageByOffset reads the record at a CommitLog offset (bytes).
// Java: TransactionalMessageBridge#lookMessageByOffset.
func (b *TransactionalMessageBridge) LookMessageByOffset(off store.CommitLogOffset) (*primitive.MessageExt, error) {
	return b.d.Store.LookMessageByOffset(off)
}
