package store

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// ReputMessageService reads the CommitLog behind the appender, from reputFromOffset up to the
// written end, and hands each record to the dispatchers (ConsumeQueue, later the index), then
// tells the MessageArrivingListener. It runs every 1 ms; DoReput is one pass.
// Mirrors DefaultMessageStore.ReputMessageService.
type ReputMessageService struct {
	env         *storeEnv
	commitLog   *CommitLog              // read behind the appender
	dispatchers *dispatcherList         // each record goes to every one
	listener    MessageArrivingListener // nil: nobody waits for arrivals
	svc         *service.ServiceThread

	mu sync.Mutex // one pass at a time (the service and direct DoReput calls)
	// reputFromOffset is the CommitLog offset (bytes) of the next record to dispatch.
	reputFromOffset atomic.Int64 // a CommitLogOffset
	reader          recordReader
	// skipHeld makes a pass skip the records every derived file holds (catchUp).
	skipHeld bool
	req      DispatchRequest // reused for every record (handed to dispatchers by pointer)
}

func newReputMessageService(env *storeEnv, commitLog *CommitLog, dispatchers *dispatcherList,
	listener MessageArrivingListener) *ReputMessageService {
	r := &ReputMessageService{env: env, commitLog: commitLog, dispatchers: dispatchers, listener: listener,
		svc: service.New("ReputMessageService")}
	r.reader.delayLevels, _ = ParseDelayLevel(env.cfg.MessageDelayLevel)
	return r
}

// ReputFromOffset is the CommitLog offset dispatching continues from.
func (r *ReputMessageService) ReputFromOffset() CommitLogOffset {
	return CommitLogOffset(r.reputFromOffset.Load())
}

func (r *ReputMessageService) setReputFromOffset(o CommitLogOffset) {
	r.reputFromOffset.Store(int64(o))
}

// behind is how many written CommitLog bytes are not dispatched yet. Java: ReputMessageService#behind.
func (r *ReputMessageService) behind() int64 {
	return int64(r.commitLog.getMaxOffset() - r.ReputFromOffset())
}

func (r *ReputMessageService) isCommitLogAvailable() bool {
	return r.ReputFromOffset() < r.commitLog.getMaxOffset()
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
	if r.env.tracer.Enabled() {
		r.env.tracer.Step("ReputMessageService#run", slog.Int64("reputFromOffset", r.reputFromOffset.Load()),
			slog.Int64("commitLogMaxOffset", int64(r.commitLog.getMaxOffset())))
	}
	r.doReput()
}

// shutdown stops the loop, then dispatches whatever is left (Java waits up to 5 s for the loop
// to catch up; a final direct pass is the same without the wait).
func (r *ReputMessageService) shutdown() {
	r.svc.Shutdown()
	r.doReput()
}

// catchUp is Start's pass: it dispatches from offset (DefaultMessageStore#reputStartOffset)
// to the CommitLog's end, skipping the records every derived file already holds and giving
// each other record only to the dispatchers that miss it (dispatcherList#dispatchMissing), so
// only what a ConsumeQueue or the index misses is written (and shows in the trace).
func (r *ReputMessageService) catchUp(offset CommitLogOffset) {
	r.setReputFromOffset(offset)
	r.mu.Lock()
	r.skipHeld = true
	r.mu.Unlock()
	r.doReput()
	r.mu.Lock()
	r.skipHeld = false
	r.mu.Unlock()
}

// doReput dispatches every complete record between reputFromOffset and the CommitLog's
// written end, file by file; a blank record moves to the next file.
// Java: ReputMessageService#doReput.
func (r *ReputMessageService) doReput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	env, cl := r.env, r.commitLog
	if minOff := cl.getMinOffset(); r.ReputFromOffset() < minOff {
		env.log.warn("reputFromOffset is below the commitlog min offset; dispatch fell behind expired files",
			"reputFromOffset", r.reputFromOffset.Load(), "minOffset", minOff)
		r.setReputFromOffset(minOff)
	}
	if !r.isCommitLogAvailable() {
		return
	}
	logged := false // the step; a catch-up pass logs it at its first dispatched record
	logStep := func() {
		if !logged && env.tracer.Enabled() {
			env.tracer.Step("ReputMessageService#doReput", slog.Int64("reputFromOffset", r.reputFromOffset.Load()),
				slog.Int64("commitLogMaxOffset", int64(cl.getMaxOffset())))
		}
		logged = true
	}
	if !r.skipHeld {
		logStep()
	}
	notify := r.listener != nil && env.cfg.BrokerRole != Slave
	for doNext := true; doNext && r.isCommitLogAvailable(); {
		res, ok := cl.getData(r.ReputFromOffset())
		if !ok {
			break
		}
		from := res.StartOffset
		for read := 0; read < len(res.Data) && doNext; {
			r.req = r.reader.checkMessageAndReturnSize(res.Data[read:], false, -1)
			d := &r.req
			switch {
			case d.Success && d.MsgSize > 0:
				if !r.skipHeld || !r.dispatchers.holds(d) {
					logStep()
					if r.skipHeld {
						r.dispatchers.dispatchMissing(d)
					} else {
						r.dispatchers.dispatch(d)
					}
					if notify {
						r.listener.Arriving(d.Topic, d.QueueID, d.ConsumeQueueOffset+1, d.TagsCode, d.StoreTimestamp)
					}
				}
				read += int(d.MsgSize)
				r.reputFromOffset.Store(from + int64(read))
			case d.Success: // blank: the rest of this file is empty
				r.setReputFromOffset(cl.rollNextFile(CommitLogOffset(from + int64(read))))
				read = len(res.Data)
			case d.MsgSize > 0 && read+int(d.MsgSize) <= len(res.Data):
				env.log.error("[BUG] record length does not match its fields; skipped", nil)
				read += int(d.MsgSize)
				r.reputFromOffset.Store(from + int64(read))
			case env.cfg.BrokerRole == Slave:
				// a slave's log may end inside a record (HA transfers in batches): wait for the rest
				doNext = false
			default:
				// Java (master): log and skip the rest of the readable data.
				env.log.error("[BUG] unreadable record in the commitlog; skipping the rest of the written data", nil)
				r.reputFromOffset.Store(from + int64(len(res.Data)))
				doNext = false
			}
		}
		res.Release()
	}
	r.req = DispatchRequest{} // drop the pointer into the mapping
}
