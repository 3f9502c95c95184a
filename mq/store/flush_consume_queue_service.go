package store

import (
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// FlushConsumeQueueService flushes every ConsumeQueue every flushIntervalConsumeQueue when at
// least flushConsumeQueueLeastPages pages are new, and everything plus the checkpoint every
// flushConsumeQueueThoroughInterval. Mirrors DefaultMessageStore.FlushConsumeQueueService.
type FlushConsumeQueueService struct {
	env                *storeEnv
	queues             *consumeQueueTable
	checkpoint         *StoreCheckpoint     // flushed by the thorough pass
	reput              *ReputMessageService // its position goes into consumequeue.list
	svc                *service.ServiceThread
	passMu             sync.Mutex // one pass at a time (the service and FlushConsumeQueue)
	lastThoroughMillis int64      // guarded by passMu
}

func newFlushConsumeQueueService(env *storeEnv, queues *consumeQueueTable, checkpoint *StoreCheckpoint,
	reput *ReputMessageService) *FlushConsumeQueueService {
	return &FlushConsumeQueueService{env: env, queues: queues, checkpoint: checkpoint, reput: reput,
		svc: service.New("FlushConsumeQueueService")}
}

func (f *FlushConsumeQueueService) start() {
	f.svc.Start(func() {
		for f.svc.WaitForRunning(f.env.cfg.FlushIntervalConsumeQueue) {
			f.doFlush(false)
		}
		f.doFlush(true)
	})
}

// doFlush flushes the queues; final (shutdown) or a due thorough pass flushes all new data
// and the checkpoint. Java: FlushConsumeQueueService#doFlush.
func (f *FlushConsumeQueueService) doFlush(final bool) {
	f.passMu.Lock()
	defer f.passMu.Unlock()
	cfg := f.env.cfg
	thorough := thoroughDue(&f.lastThoroughMillis, cfg.FlushConsumeQueueThoroughInterval, f.env.clock.now()) || final
	leastPages := cfg.FlushConsumeQueueLeastPages
	if thorough {
		leastPages = 0
	}
	f.flushConsumeQueues(leastPages, thorough)
}

// flushOnce flushes every queue with at least leastPages new pages (0: all) and, with 0, the
// checkpoint: one pass without the timing (DefaultMessageStore.FlushConsumeQueue).
func (f *FlushConsumeQueueService) flushOnce(leastPages int) {
	f.passMu.Lock()
	defer f.passMu.Unlock()
	f.flushConsumeQueues(leastPages, leastPages == 0)
}

// flushConsumeQueues flushes the queues and, withCheckpoint, every new unit, then the
// checkpoint and consumequeue.list (the queues' flushed ends; consumeQueueTable#writeList).
func (f *FlushConsumeQueueService) flushConsumeQueues(leastPages int, withCheckpoint bool) {
	reputFrom := f.reput.ReputFromOffset() // read before the queues: the list names every queue of a record below it
	logicsTs := f.checkpoint.LogicsMsgTimestamp()
	f.queues.forEach(func(cq *ConsumeQueue) {
		// A flush covers one file; up to 3 files a pass (Java's RETRY_TIMES_OVER). Deviation:
		// the pass that writes the checkpoint flushes every file, so logicsMsgTimestamp never
		// claims units that are not on disk (Java stops after 3 files there too).
		target := cq.mfq.getMaxOffset() // written before logicsTs was read
		for i := 0; i < 3 || withCheckpoint && cq.mfq.flushedWhere.Load() < target; i++ {
			done, err := cq.flush(leastPages)
			if err != nil {
				f.env.log.error("flush consume queue", err)
			}
			if done || err != nil {
				break
			}
		}
	})
	if withCheckpoint {
		// the logics time captured before the flush is the one known to be on disk
		f.checkpoint.setLogicsMsgTimestamp(logicsTs)
		if err := f.checkpoint.Flush(); err != nil {
			f.env.log.error("flush checkpoint", err)
		}
		if err := f.queues.writeList(reputFrom); err != nil {
			f.env.log.error("write consume queue list", err)
		}
	}
}

func (f *FlushConsumeQueueService) shutdown() { f.svc.Shutdown() }
