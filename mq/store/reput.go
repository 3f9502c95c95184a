package store

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// MessageArrivingListener hears about every message the reput service dispatched to a
// ConsumeQueue (masters only). The broker implements it to wake held long-polling pulls.
// logicOffset is the queue's new max offset: the message's queue offset + 1 (units), as Java
// passes it. Java: org.apache.rocketmq.store.MessageArrivingListener#arriving.
type MessageArrivingListener interface {
	Arriving(topic string, queueID int32, logicOffset int64, tagsCode int64, storeTimestamp int64)
}

// CommitLogDispatcher receives every record the reput service reads. The request's Properties
// are valid only during the call. Java: org.apache.rocketmq.store.CommitLogDispatcher.
type CommitLogDispatcher interface {
	Dispatch(req *DispatchRequest)
}

// commitLogDispatcherBuildConsumeQueue writes a ConsumeQueue unit for NOT and COMMIT
// records; PREPARED and ROLLBACK records get none.
// Java: DefaultMessageStore.CommitLogDispatcherBuildConsumeQueue.
type commitLogDispatcherBuildConsumeQueue struct{ s *DefaultMessageStore }

func (d commitLogDispatcherBuildConsumeQueue) Dispatch(req *DispatchRequest) {
	s := d.s
	tran := req.SysFlag & sysFlagTransactionMask
	if s.tracer.Enabled() {
		s.tracer.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", slog.String("topic", req.Topic),
			slog.Int("queueId", int(req.QueueID)), slog.Int64("commitLogOffset", req.CommitLogOffset),
			slog.Int("msgSize", int(req.MsgSize)), slog.Int64("queueOffset", req.ConsumeQueueOffset),
			slog.Bool("buildUnit", tran == tranNotType || tran == tranCommitType))
	}
	if tran == tranNotType || tran == tranCommitType {
		s.findConsumeQueue(req.Topic, req.QueueID).putMessagePositionInfoWrapper(req)
	}
}

// ReputMessageService reads the CommitLog behind the appender, from reputFromOffset up to the
// written end, and hands each record to the dispatchers (ConsumeQueue, later the index), then
// tells the MessageArrivingListener. It runs every 1 ms; DoReput is one pass.
// Mirrors DefaultMessageStore.ReputMessageService.
type ReputMessageService struct {
	s   *DefaultMessageStore
	svc *service.ServiceThread

	mu sync.Mutex // one pass at a time (the service and direct DoReput calls)
	// reputFromOffset is the CommitLog offset (bytes) of the next record to dispatch.
	reputFromOffset atomic.Int64
	reader          recordReader
	req             DispatchRequest // reused for every record (handed to dispatchers by pointer)
}

func newReputMessageService(s *DefaultMessageStore) *ReputMessageService {
	r := &ReputMessageService{s: s, svc: service.New("ReputMessageService")}
	r.reader.delayLevels, _ = ParseDelayLevel(s.cfg.MessageDelayLevel)
	return r
}

// ReputFromOffset is the CommitLog offset (bytes) dispatching continues from.
func (r *ReputMessageService) ReputFromOffset() int64 { return r.reputFromOffset.Load() }

func (r *ReputMessageService) setReputFromOffset(o int64) { r.reputFromOffset.Store(o) }

// behind is how many written CommitLog bytes are not dispatched yet. Java: ReputMessageService#behind.
func (r *ReputMessageService) behind() int64 {
	return r.s.commitLog.getMaxOffset() - r.reputFromOffset.Load()
}

func (r *ReputMessageService) isCommitLogAvailable() bool {
	return r.reputFromOffset.Load() < r.s.commitLog.getMaxOffset()
}

func (r *ReputMessageService) start() {
	r.svc.RunEvery(0, time.Millisecond, r.run)
}

// RunOnce is one pass of the service's loop, what its goroutine does every millisecond: when
// there are undispatched records it logs ReputMessageService#run and dispatches them
// (doReput). Chapters call it with ManualServices to show the service at work.
func (r *ReputMessageService) RunOnce() { r.run() }

// run is one pass of the service loop; its step is logged only when there is work.
// Java: ReputMessageService#run.
func (r *ReputMessageService) run() {
	if !r.isCommitLogAvailable() {
		return
	}
	if r.s.tracer.Enabled() {
		r.s.tracer.Step("ReputMessageService#run", slog.Int64("reputFromOffset", r.reputFromOffset.Load()),
			slog.Int64("commitLogMaxOffset", r.s.commitLog.getMaxOffset()))
	}
	r.doReput()
}

// shutdown stops the loop, then dispatches whatever is left (Java waits up to 5 s for the loop
// to catch up; a final direct pass is the same without the wait).
func (r *ReputMessageService) shutdown() {
	r.svc.Shutdown()
	r.doReput()
}

// doReput dispatches every complete record between reputFromOffset and the CommitLog's
// written end, file by file; a blank record moves to the next file.
// Java: ReputMessageService#doReput.
func (r *ReputMessageService) doReput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.s
	cl := s.commitLog
	if minOff := cl.getMinOffset(); r.reputFromOffset.Load() < minOff {
		if s.log != nil {
			s.log.Warn("reputFromOffset is below the commitlog min offset; dispatch fell behind expired files",
				"reputFromOffset", r.reputFromOffset.Load(), "minOffset", minOff)
		}
		r.reputFromOffset.Store(minOff)
	}
	if !r.isCommitLogAvailable() {
		return
	}
	if s.tracer.Enabled() {
		s.tracer.Step("ReputMessageService#doReput", slog.Int64("reputFromOffset", r.reputFromOffset.Load()),
			slog.Int64("commitLogMaxOffset", cl.getMaxOffset()))
	}
	notify := s.listener != nil && s.cfg.BrokerRole != Slave
	for doNext := true; doNext && r.isCommitLogAvailable(); {
		res, ok := cl.getData(r.reputFromOffset.Load())
		if !ok {
			break
		}
		from := res.StartOffset
		for read := 0; read < len(res.Data) && doNext; {
			r.req = r.reader.checkMessageAndReturnSize(res.Data[read:], false, -1)
			d := &r.req
			switch {
			case d.Success && d.MsgSize > 0:
				for _, disp := range s.dispatchers {
					disp.Dispatch(d)
				}
				if notify {
					s.listener.Arriving(d.Topic, d.QueueID, d.ConsumeQueueOffset+1, d.TagsCode, d.StoreTimestamp)
				}
				read += int(d.MsgSize)
				r.reputFromOffset.Store(from + int64(read))
			case d.Success: // blank: the rest of this file is empty
				r.reputFromOffset.Store(cl.rollNextFile(from + int64(read)))
				read = len(res.Data)
			case d.MsgSize > 0 && read+int(d.MsgSize) <= len(res.Data):
				s.logError("[BUG] record length does not match its fields; skipped", nil)
				read += int(d.MsgSize)
				r.reputFromOffset.Store(from + int64(read))
			default:
				// Java (master): log and skip the rest of the readable data.
				s.logError("[BUG] unreadable record in the commitlog; skipping the rest of the written data", nil)
				r.reputFromOffset.Store(from + int64(len(res.Data)))
				doNext = false
			}
		}
		res.Release()
	}
	r.req = DispatchRequest{} // drop the pointer into the mapping
}
