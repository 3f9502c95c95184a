package store

import (
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// MessageArrivingListener hears about every message the reput service dispatched to a
// ConsumeQueue (masters only). The broker implements it to wake held long-polling pulls.
// logicOffset is the queue's new max offset: the message's queue offset + 1 (units), as Java
// passes it. Java: org.apache.rocketmq.store.MessageArrivingListener#arriving.
type MessageArrivingListener interface {
	Arriving(topic string, queueID int32, logicOffset QueueOffset, tagsCode int64, storeTimestamp int64)
}

// CommitLogDispatcher receives every record the reput service reads. The request's Properties
// are valid only during the call. Java: org.apache.rocketmq.store.CommitLogDispatcher.
type CommitLogDispatcher interface {
	Dispatch(req *DispatchRequest)
}

// dispatcherList is the store's dispatchers in order: ConsumeQueue, index (when
// messageIndexEnable), then those added
// (AddDispatcher). The reput service and abnormal recovery hand every record to it.
type dispatcherList struct{ list []CommitLogDispatcher }

// dispatchExceptIndex hands one record to every dispatcher but the index builder (abnormal
// recovery, when the index ends before its start file).
func (d *dispatcherList) dispatchExceptIndex(req *DispatchRequest) {
	for _, x := range d.list {
		if _, index := x.(commitLogDispatcherBuildIndex); !index {
			x.Dispatch(req)
		}
	}
}

// holds reports whether every derived file already holds the record: each dispatcher that
// can tell (the ConsumeQueue and index builders) says so. Start's catch-up dispatch skips
// such records (ReputMessageService#catchUp); dispatchers added with AddDispatcher, which
// cannot tell, get only the records some derived file misses.
func (d *dispatcherList) holds(req *DispatchRequest) bool {
	for _, x := range d.list {
		if h, ok := x.(interface{ holds(*DispatchRequest) bool }); ok && !h.holds(req) {
			return false
		}
	}
	return true
}

// dispatchMissing hands one record to every dispatcher that does not hold it (Start's
// catch-up, for a record some derived file misses): the index is not given again the keys of
// the record at its end when only a ConsumeQueue lost it.
func (d *dispatcherList) dispatchMissing(req *DispatchRequest) {
	for _, x := range d.list {
		if h, ok := x.(interface{ holds(*DispatchRequest) bool }); !ok || !h.holds(req) {
			x.Dispatch(req)
		}
	}
}

// dispatch hands one record to every dispatcher. Java: DefaultMessageStore#doDispatch.
func (d *dispatcherList) dispatch(req *DispatchRequest) {
	for _, x := range d.list {
		x.Dispatch(req)
	}
}

// commitLogDispatcherBuildConsumeQueue writes a ConsumeQueue unit for NOT and COMMIT
// records; PREPARED and ROLLBACK records get none.
// Java: DefaultMessageStore.CommitLogDispatcherBuildConsumeQueue.
type commitLogDispatcherBuildConsumeQueue struct {
	tracer *trace.Tracer
	queues *consumeQueueTable
}

func (d commitLogDispatcherBuildConsumeQueue) Dispatch(req *DispatchRequest) {
	tran := primitive.GetTransactionValue(req.SysFlag)
	if d.tracer.Enabled() {
		d.tracer.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", slog.String("topic", req.Topic),
			slog.Int("queueId", int(req.QueueID)), slog.Int64("commitLogOffset", int64(req.CommitLogOffset)),
			slog.Int("msgSize", int(req.MsgSize)), slog.Int64("queueOffset", int64(req.ConsumeQueueOffset)),
			slog.Bool("buildUnit", tran == tranNotType || tran == tranCommitType))
	}
	if tran == tranNotType || tran == tranCommitType {
		if cq := d.queues.forDispatch(req); cq != nil {
			cq.putMessagePositionInfoWrapper(req)
		}
	}
}

// holds: a record that gets no unit (PREPARED, ROLLBACK), or whose queue's units reach its end.
func (d commitLogDispatcherBuildConsumeQueue) holds(req *DispatchRequest) bool {
	if tran := primitive.GetTransactionValue(req.SysFlag); tran != tranNotType && tran != tranCommitType {
		return true
	}
	cq := d.queues.get(req.Topic, req.QueueID)
	return cq != nil && int64(cq.MaxPhysicOffset()) >= int64(req.CommitLogOffset)+int64(req.MsgSize)
}

// commitLogDispatcherBuildIndex hands every dispatched record to the IndexService. It is
// registered only when messageIndexEnable, so a store without an index does no index work per
// record. Java: DefaultMessageStore.CommitLogDispatcherBuildIndex.
// Deviation: Java registers it always and checks the flag in each dispatch.
type commitLogDispatcherBuildIndex struct{ index *IndexService }

func (d commitLogDispatcherBuildIndex) Dispatch(req *DispatchRequest) {
	env := d.index.env
	if env.tracer.Enabled() {
		env.tracer.Step("CommitLogDispatcherBuildIndex#dispatch", slog.String("topic", req.Topic),
			slog.Int64("commitLogOffset", int64(req.CommitLogOffset)))
	}
	d.index.buildIndex(req)
}

// holds: a record the index does not take (ROLLBACK, no UNIQ_KEY and no KEYS) or one at or
// below the newest index file's endPhyOffset.
func (d commitLogDispatcherBuildIndex) holds(req *DispatchRequest) bool {
	if primitive.GetTransactionValue(req.SysFlag) == tranRollbackType || req.CommitLogOffset <= d.index.endPhyOffset() {
		return true
	}
	_, uniq := lookupProperty(req.Properties, propertyUniqKey)
	_, keys := lookupProperty(req.Properties, propertyKeys)
	return !uniq && !keys
}
