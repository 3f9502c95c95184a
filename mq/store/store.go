package store

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Errors of the store's life cycle.
var (
	// ErrStoreLocked: another store (this process or another, Java's too) holds the store's lock file.
	ErrStoreLocked = errors.New("store: lock failed, MQ already started (another store holds the lock file)")
	// ErrNotLoaded: Start before a successful Load.
	ErrNotLoaded = errors.New("store: not loaded")
	// ErrClosed: Load on a store that was started and shut down (create a new one to reopen).
	ErrClosed = errors.New("store: shut down; create a new store to reopen the directory")
)

// MessageFilter decides, from a ConsumeQueue unit's tagsCode, whether a message goes into a
// pull. A nil filter takes everything. Java: org.apache.rocketmq.store.MessageFilter.
type MessageFilter interface {
	IsMatchedByConsumeQueue(tagsCode int64) bool
}

// CommitLogMessageFilter is an optional second stage of a MessageFilter: it sees the whole
// stored record (SQL92-style filters). Java: MessageFilter#isMatchedByCommitLog.
type CommitLogMessageFilter interface {
	IsMatchedByCommitLog(record []byte) bool
}

// DefaultMessageStore is the store facade the broker uses: CommitLog, ConsumeQueues, the
// reput and flush services, checkpoint, abort and lock files, recovery.
// Mirrors org.apache.rocketmq.store.DefaultMessageStore.
type DefaultMessageStore struct {
	cfg      MessageStoreConfig
	tracer   *trace.Tracer
	log      *slog.Logger
	listener MessageArrivingListener
	rootAbs  string

	commitLog          *CommitLog
	allocate           *AllocateMappedFileService
	reput              *ReputMessageService
	flushCommitLog     *FlushRealTimeService  // ASYNC_FLUSH
	groupCommit        *GroupCommitService    // SYNC_FLUSH
	flushDiskWatcher   *FlushDiskWatcher      // SYNC_FLUSH
	commitRealTime     *CommitRealTimeService // transientStorePoolEnable
	transientStorePool *TransientStorePool    // nil unless transientStorePoolEnable
	flushCQ            *FlushConsumeQueueService
	checkpoint         *StoreCheckpoint
	indexService       *IndexService
	dispatchers        []CommitLogDispatcher
	hooks              *flushHooks
	monoBase           time.Time // origin of monoNow without an injected clock

	cleanCommitLog    *CleanCommitLogService
	cleanConsumeQueue *CleanConsumeQueueService
	cleanService      *service.ServiceThread // CleanFilesPeriodically every cleanResourceInterval
	diskCheckService  *service.ServiceThread // IsSpaceFull every 10 s

	cqMu              sync.RWMutex
	consumeQueueTable map[string]map[int32]*ConsumeQueue // guarded by cqMu

	stateMu  sync.Mutex // Load, Start, Shutdown
	loaded   bool
	started  bool
	closed   bool // shut down after Start: make a new store to reopen
	lockFile *os.File

	shutdown atomic.Bool // true until Start; puts and gets are refused
	// The running flags that make the store unwritable (Java: RunningFlags, isWriteable):
	logicsError atomic.Bool // a ConsumeQueue write failed
	indexError  atomic.Bool // an index file could not be created or allocated
	diskFull    atomic.Bool // the disk is above diskSpaceWarningLevelRatio
}

// NewDefaultMessageStore builds a store over cfg (validated). listener may be nil; tr nil
// turns the step trace off. Nothing touches the disk until Load.
func NewDefaultMessageStore(cfg MessageStoreConfig, listener MessageArrivingListener, tr *trace.Tracer) (*DefaultMessageStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(cfg.StorePathRootDir)
	if err != nil {
		return nil, fmt.Errorf("store: root %s: %w", cfg.StorePathRootDir, err)
	}
	s := &DefaultMessageStore{
		cfg:               cfg,
		tracer:            tr,
		log:               tr.Logger(),
		listener:          listener,
		rootAbs:           root,
		consumeQueueTable: map[string]map[int32]*ConsumeQueue{},
		monoBase:          time.Now(),
	}
	s.hooks = newFlushHooks(&s.cfg)
	s.shutdown.Store(true)
	s.allocate = newAllocateMappedFileService(s.log)
	if cfg.IsTransientStorePoolEnable() {
		s.transientStorePool = newTransientStorePool(cfg.TransientStorePoolSize, cfg.MappedFileSizeCommitLog, s.log)
	}
	s.commitLog = newCommitLog(s)
	s.reput = newReputMessageService(s)
	s.flushCommitLog = newFlushRealTimeService(s)
	s.groupCommit = newGroupCommitService(s)
	s.flushDiskWatcher = newFlushDiskWatcher(s)
	s.commitRealTime = newCommitRealTimeService(s)
	s.flushCQ = newFlushConsumeQueueService(s)
	s.indexService = newIndexService(s)
	s.cleanCommitLog = &CleanCommitLogService{s: s}
	s.cleanConsumeQueue = &CleanConsumeQueueService{s: s}
	s.cleanService = service.New("CleanFilesService")
	s.diskCheckService = service.New("DiskCheckService")
	s.dispatchers = []CommitLogDispatcher{commitLogDispatcherBuildConsumeQueue{s}, commitLogDispatcherBuildIndex{s}}
	return s, nil
}

// Config returns the store's configuration.
func (s *DefaultMessageStore) Config() *MessageStoreConfig { return &s.cfg }

// Checkpoint returns the checkpoint (nil before Load).
func (s *DefaultMessageStore) Checkpoint() *StoreCheckpoint { return s.checkpoint }

// AddDispatcher appends a dispatcher after the ConsumeQueue and index ones. Call before Load
// (abnormal recovery dispatches too).
func (s *DefaultMessageStore) AddDispatcher(d CommitLogDispatcher) {
	s.dispatchers = append(s.dispatchers, d)
}

// Now is the store clock in ms (the injected Clock, else wall time).
func (s *DefaultMessageStore) Now() int64 { return s.now() }

func (s *DefaultMessageStore) now() int64 {
	if s.cfg.Clock != nil {
		return s.cfg.Clock()
	}
	return time.Now().UnixMilli()
}

// monoNow is the clock of SYNC_FLUSH deadlines in ms: the injected Clock, else a monotonic
// clock (Java: System.nanoTime), which a wall-clock step cannot move.
func (s *DefaultMessageStore) monoNow() int64 {
	if s.cfg.Clock != nil {
		return s.cfg.Clock()
	}
	return time.Since(s.monoBase).Milliseconds()
}

// rel renders path relative to the store root (for deterministic trace values).
func (s *DefaultMessageStore) rel(path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		if r, err := filepath.Rel(s.rootAbs, abs); err == nil && !filepath.IsAbs(r) && (len(r) < 2 || r[:2] != "..") {
			return filepath.ToSlash(r)
		}
	}
	return filepath.Base(path)
}

func (s *DefaultMessageStore) logError(msg string, err error, args ...any) {
	if s.log != nil {
		s.log.Error(msg, append([]any{"err", err}, args...)...)
	}
}

// logErrorMsg logs an error-level message that has no error value.
func (s *DefaultMessageStore) logErrorMsg(msg string, args ...any) {
	if s.log != nil {
		s.log.Error(msg, args...)
	}
}

func (s *DefaultMessageStore) logWarn(msg string, args ...any) {
	if s.log != nil {
		s.log.Warn(msg, args...)
	}
}

func (s *DefaultMessageStore) logInfo(msg string, args ...any) {
	if s.log != nil {
		s.log.Info(msg, args...)
	}
}

func (s *DefaultMessageStore) abortFile() string { return filepath.Join(s.rootAbs, "abort") }

// ---- life cycle ----

// Load takes the lock file, maps the CommitLog and ConsumeQueue files, opens the checkpoint,
// loads the index files (after an unclean exit dropping those not known to be flushed) and
// recovers: each ConsumeQueue, then the CommitLog — normally (clean shutdown: from the
// third-to-last file) or abnormally (abort file present: from the file the checkpoint points
// to, dispatching every valid record again) — truncating torn tails and ConsumeQueue units
// beyond the end, then the queue-offset table. It returns false with an error if the store
// cannot be used (locked, file size mismatch, I/O error).
// Java: DefaultMessageStore#load.
// Deviation: the lock is taken here, not in start, so recovery never runs on a store in use.
func (s *DefaultMessageStore) Load() (bool, error) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.loaded {
		return true, nil
	}
	if s.closed {
		return false, ErrClosed
	}
	if err := os.MkdirAll(s.rootAbs, 0o755); err != nil {
		return false, fmt.Errorf("store: create root: %w", err)
	}
	if err := s.lock(); err != nil {
		return false, err
	}
	ok := false
	defer func() {
		if !ok {
			s.commitLog.mfq.shutdown()
			s.forEachConsumeQueue(func(cq *ConsumeQueue) { cq.mfq.shutdown() })
			s.cqMu.Lock()
			s.consumeQueueTable = map[string]map[int32]*ConsumeQueue{}
			s.cqMu.Unlock()
			s.indexService.shutdownFiles()
			if s.checkpoint != nil {
				_ = s.checkpoint.shutdown()
				s.checkpoint = nil
			}
			s.unlock()
		}
	}()
	_, err := os.Stat(s.abortFile())
	lastExitOK := errors.Is(err, os.ErrNotExist)
	if s.tracer.Enabled() {
		s.tracer.Step("DefaultMessageStore#load", slog.Bool("lastExitOK", lastExitOK))
	}
	if err := s.commitLog.load(); err != nil {
		return false, err
	}
	if err := s.loadConsumeQueue(); err != nil {
		return false, err
	}
	if s.checkpoint, err = openStoreCheckpoint(filepath.Join(s.rootAbs, "checkpoint")); err != nil {
		return false, err
	}
	s.checkpoint.hooks = s.hooks
	if err := s.indexService.load(lastExitOK); err != nil {
		return false, err
	}
	if err := s.recover(lastExitOK); err != nil {
		return false, err
	}
	ok = true
	s.loaded = true
	return true, nil
}

func (s *DefaultMessageStore) lock() error {
	f, err := os.OpenFile(filepath.Join(s.rootAbs, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: open lock file: %w", err)
	}
	if err := lockFileExclusive(int(f.Fd())); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %v", ErrStoreLocked, filepath.Join(s.rootAbs, "lock"), err)
	}
	if _, err := f.WriteAt([]byte("lock"), 0); err != nil {
		f.Close()
		return fmt.Errorf("store: write lock file: %w", err)
	}
	s.lockFile = f
	return nil
}

func (s *DefaultMessageStore) unlock() {
	if s.lockFile != nil {
		_ = unlockFile(int(s.lockFile.Fd()))
		s.lockFile.Close()
		s.lockFile = nil
	}
}

// loadConsumeQueue maps consumequeue/<topic>/<queueId>/ (non-numeric queue dirs are skipped).
// Java: DefaultMessageStore#loadConsumeQueue.
func (s *DefaultMessageStore) loadConsumeQueue() error {
	topics, err := os.ReadDir(s.cfg.ConsumeQueueDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: load consume queues: %w", err)
	}
	for _, t := range topics {
		if !t.IsDir() {
			continue
		}
		queues, err := os.ReadDir(filepath.Join(s.cfg.ConsumeQueueDir(), t.Name()))
		if err != nil {
			return fmt.Errorf("store: load consume queues of %s: %w", t.Name(), err)
		}
		for _, q := range queues {
			id, err := strconv.ParseInt(q.Name(), 10, 32)
			if err != nil || !q.IsDir() {
				continue
			}
			cq := newConsumeQueue(s, t.Name(), int32(id))
			s.putConsumeQueue(cq)
			if err := cq.load(); err != nil {
				return err
			}
		}
	}
	return nil
}

// recover: ConsumeQueues, then the CommitLog (normally after a clean shutdown, abnormally
// when the abort file was left behind), then the queue-offset table.
// Java: DefaultMessageStore#recover.
func (s *DefaultMessageStore) recover(lastExitOK bool) error {
	maxPhyOffsetOfConsumeQueue, err := s.recoverConsumeQueue()
	if err != nil {
		return err
	}
	if lastExitOK {
		err = s.commitLog.recoverNormally(maxPhyOffsetOfConsumeQueue)
	} else {
		err = s.commitLog.recoverAbnormally(maxPhyOffsetOfConsumeQueue)
	}
	if err != nil {
		return err
	}
	s.recoverTopicQueueTable()
	return nil
}

func (s *DefaultMessageStore) recoverConsumeQueue() (int64, error) {
	maxPhy := int64(-1)
	var errs []error
	s.forEachConsumeQueue(func(cq *ConsumeQueue) {
		errs = append(errs, cq.recover())
		maxPhy = max(maxPhy, cq.MaxPhysicOffset())
	})
	return maxPhy, errors.Join(errs...)
}

// recoverTopicQueueTable rebuilds the CommitLog's next-offset table from each ConsumeQueue's
// max offset and corrects each queue's min offset. Java: DefaultMessageStore#recoverTopicQueueTable.
func (s *DefaultMessageStore) recoverTopicQueueTable() {
	table := map[topicQueueKey]int64{}
	minPhy := s.commitLog.getMinOffset()
	s.forEachConsumeQueue(func(cq *ConsumeQueue) {
		table[topicQueueKey{cq.topic, cq.queueID}] = cq.GetMaxOffsetInQueue()
		cq.correctMinOffset(minPhy)
	})
	s.commitLog.setTopicQueueTable(table)
}

// truncateDirtyLogicFiles truncates every ConsumeQueue to CommitLog offset phyOffset.
// Java: DefaultMessageStore#truncateDirtyLogicFiles.
func (s *DefaultMessageStore) truncateDirtyLogicFiles(phyOffset int64) error {
	var errs []error
	s.forEachConsumeQueue(func(cq *ConsumeQueue) { errs = append(errs, cq.truncateDirtyLogicFiles(phyOffset)) })
	return errors.Join(errs...)
}

// destroyLogics deletes every ConsumeQueue (the CommitLog is gone). Java: DefaultMessageStore#destroyLogics.
func (s *DefaultMessageStore) destroyLogics() error {
	var errs []error
	s.forEachConsumeQueue(func(cq *ConsumeQueue) { errs = append(errs, cq.destroy()) })
	return errors.Join(errs...)
}

// doDispatch hands one record to every dispatcher (ConsumeQueue, index, added ones).
// Java: DefaultMessageStore#doDispatch.
func (s *DefaultMessageStore) doDispatch(req *DispatchRequest) {
	for _, d := range s.dispatchers {
		d.Dispatch(req)
	}
}

// Start dispatches what the ConsumeQueues miss (from the largest CommitLog offset any queue
// references, at least the CommitLog's min offset, to its end), rebuilds the queue-offset
// table, starts the reput and flush services (unless ManualServices) and creates the abort
// file. Java: DefaultMessageStore#start.
// Deviation: the catch-up dispatch is one direct DoReput pass instead of polling the service
// once a second until it caught up.
func (s *DefaultMessageStore) Start() error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if !s.loaded {
		return ErrNotLoaded
	}
	if s.started {
		return nil
	}
	minPhy := s.commitLog.getMinOffset()
	from := max(minPhy, 0)
	s.forEachConsumeQueue(func(cq *ConsumeQueue) { from = max(from, cq.MaxPhysicOffset()) })
	s.reput.setReputFromOffset(from)
	s.reput.doReput()
	s.recoverTopicQueueTable()

	f, err := os.OpenFile(s.abortFile(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("store: create abort file: %w", err)
	}
	f.Close()
	if s.transientStorePool != nil {
		if err := s.transientStorePool.init(); err != nil {
			return err
		}
	}
	s.allocate.start()
	if !s.cfg.ManualServices {
		s.reput.start()
		s.flushCQ.start()
		if s.cfg.FlushDiskType == SyncFlush {
			s.groupCommit.start()
			s.flushDiskWatcher.start()
		} else {
			s.flushCommitLog.start()
		}
		if s.transientStorePool != nil {
			s.commitRealTime.start()
		}
		s.cleanService.RunEvery(cleanFirstDelay, s.cfg.CleanResourceInterval, s.CleanFilesPeriodically)
		s.diskCheckService.RunEvery(time.Second, diskCheckInterval, func() { s.IsSpaceFull() })
	}
	s.started = true
	s.shutdown.Store(false)
	return nil
}

// Shutdown stops the services, dispatches and flushes everything, writes the checkpoint,
// removes the abort file (if everything was dispatched and the store is writable — a store
// that was marked disk-full or broken keeps it, so the next start recovers abnormally),
// unmaps the files and releases the lock. Safe to call more than once.
// Java: DefaultMessageStore#shutdown.
func (s *DefaultMessageStore) Shutdown() {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if !s.loaded {
		return
	}
	s.shutdown.Store(true)
	// wait for an append in progress; later ones see the flag under putMu
	s.commitLog.putMu.Lock()
	s.commitLog.putMu.Unlock() //nolint:staticcheck // an empty critical section is the point
	if s.started {
		s.cleanService.Shutdown()
		s.diskCheckService.Shutdown()
		s.reput.shutdown()
		// commit the write buffers, answer SYNC_FLUSH puts still waiting, flush what is left,
		// then the ConsumeQueues and the checkpoint
		if s.cfg.ManualServices {
			for i := 0; s.transientStorePool != nil && i < retryTimesOver; i++ {
				if done, err := s.commitLog.mfq.commit(0); done || err != nil {
					break
				}
			}
		} else {
			s.commitRealTime.shutdown()
			s.flushCommitLog.shutdown()
		}
		s.groupCommit.shutdown()
		s.flushCommitLog.finalFlush()
		s.flushDiskWatcher.shutdown()
		if s.cfg.ManualServices {
			s.flushCQ.doFlush(true)
		} else {
			s.flushCQ.shutdown()
		}
		s.allocate.shutdown()
		if err := s.checkpoint.Flush(); err != nil {
			s.logError("flush checkpoint", err)
		}
		if s.isWriteable() && s.reput.behind() == 0 {
			if err := os.Remove(s.abortFile()); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.logError("remove abort file", err)
			}
		} else if s.log != nil {
			s.log.Warn("the store may be wrong, so shutdown abnormally, and keep abort file")
		}
	}
	s.indexService.shutdown()
	s.commitLog.mfq.shutdown()
	s.forEachConsumeQueue(func(cq *ConsumeQueue) { cq.mfq.shutdown() })
	if s.transientStorePool != nil && s.started {
		s.transientStorePool.destroy()
	}
	_ = s.checkpoint.shutdown()
	s.unlock()
	s.loaded = false
	if s.started {
		s.closed = true // its services cannot run again
	}
	s.started = false
}

// ---- put ----

// PutMessage stores one message. With ASYNC_FLUSH it returns when the message is appended
// (not yet on disk); with SYNC_FLUSH, unless its WAIT property is false, when its record is
// flushed (PUT_OK) or syncFlushTimeout passed first (FLUSH_DISK_TIMEOUT: stored, durability
// unknown). msg's StoreTimestamp, BodyCRC and SysFlag (IPv6 host bits) are set; a delayed
// message (DELAY > 0) is redirected to SCHEDULE_TOPIC_XXXX. Java: DefaultMessageStore#putMessage
// → #asyncPutMessage.
func (s *DefaultMessageStore) PutMessage(msg *primitive.MessageExtBrokerInner) PutMessageResult {
	r, req := s.putMessage(msg)
	if req != nil {
		return <-req.out
	}
	return r
}

// AsyncPutMessage is PutMessage delivering its result on a channel: filled at once, or under
// SYNC_FLUSH (WAIT not false) when the flush completes or times out — no goroutine waits in
// between. Java: DefaultMessageStore#asyncPutMessage.
func (s *DefaultMessageStore) AsyncPutMessage(msg *primitive.MessageExtBrokerInner) <-chan PutMessageResult {
	r, req := s.putMessage(msg)
	if req != nil {
		return req.out
	}
	ch := make(chan PutMessageResult, 1)
	ch <- r
	return ch
}

func (s *DefaultMessageStore) putMessage(msg *primitive.MessageExtBrokerInner) (PutMessageResult, *GroupCommitRequest) {
	tracing := s.tracer.Enabled()
	if tracing {
		s.tracer.Step("DefaultMessageStore#asyncPutMessage", slog.String("topic", msg.Topic),
			slog.Int("queueId", int(msg.QueueID)), slog.Int("bodyLength", len(msg.Body)))
	}
	st := s.checkStoreStatus()
	if tracing {
		s.tracer.Step("DefaultMessageStore#checkStoreStatus", slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	st = s.checkMessage(msg)
	if tracing {
		s.tracer.Step("DefaultMessageStore#checkMessage", slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	// LMQ (light message queues, INNER_MULTI_DISPATCH) is not supported: the check always passes.
	if tracing {
		s.tracer.Step("DefaultMessageStore#checkLmqMessage", slog.String("status", PutOK.String()))
	}
	return s.commitLog.asyncPutMessage(msg)
}

// checkStoreStatus refuses puts with SERVICE_NOT_AVAILABLE when shut down, on a slave and
// when not writable (disk above diskSpaceWarningLevelRatio, a ConsumeQueue or index write
// failed), and with OS_PAGECACHE_BUSY when a put has held the put lock longer than
// osPageCacheBusyTimeOutMills. Java: DefaultMessageStore#checkStoreStatus.
func (s *DefaultMessageStore) checkStoreStatus() PutMessageStatus {
	switch {
	case s.shutdown.Load():
		return ServiceNotAvailable
	case s.cfg.BrokerRole == Slave:
		return ServiceNotAvailable
	case !s.isWriteable():
		return ServiceNotAvailable
	case s.IsOSPageCacheBusy():
		return OSPageCacheBusy
	}
	return PutOK
}

// checkMessage: topic over 127 chars or properties over 32767 chars (UTF-16, as Java counts)
// → MESSAGE_ILLEGAL. Java: DefaultMessageStore#checkMessage.
func (s *DefaultMessageStore) checkMessage(msg *primitive.MessageExtBrokerInner) PutMessageStatus {
	if len(msg.Topic) > maxTopicLength && utf16Len(msg.Topic) > maxTopicLength {
		return MessageIllegal
	}
	if len(msg.PropertiesString) > maxPropertiesLength && utf16Len(msg.PropertiesString) > maxPropertiesLength {
		return MessageIllegal
	}
	return PutOK
}

// IsOSPageCacheBusy: the put lock has been held longer than osPageCacheBusyTimeOutMills.
// Java: DefaultMessageStore#isOSPageCacheBusy.
func (s *DefaultMessageStore) IsOSPageCacheBusy() bool {
	begin := s.commitLog.beginTimeInLock.Load()
	if begin == 0 {
		return false
	}
	diff := s.now() - begin
	return diff < 10000000 && diff > s.cfg.OSPageCacheBusyTimeout.Milliseconds()
}

// LockTimeMills is how long (ms) the current put has held the put lock, 0 if free.
// Java: DefaultMessageStore#lockTimeMills.
func (s *DefaultMessageStore) LockTimeMills() int64 {
	begin := s.commitLog.beginTimeInLock.Load()
	if begin == 0 {
		return 0
	}
	return s.now() - begin
}

func (s *DefaultMessageStore) cqWritable() bool { return !s.logicsError.Load() }

// isWriteable: no running flag forbids writing. Java: RunningFlags#isWriteable.
func (s *DefaultMessageStore) isWriteable() bool {
	return !s.logicsError.Load() && !s.indexError.Load() && !s.diskFull.Load()
}

// IsDiskFull reports whether the last disk check marked the disk full (puts are refused).
func (s *DefaultMessageStore) IsDiskFull() bool { return s.diskFull.Load() }

func (s *DefaultMessageStore) makeLogicsQueueError() { s.logicsError.Store(true) }

// ---- consume queues ----

func (s *DefaultMessageStore) putConsumeQueue(cq *ConsumeQueue) {
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	m := s.consumeQueueTable[cq.topic]
	if m == nil {
		m = map[int32]*ConsumeQueue{}
		s.consumeQueueTable[cq.topic] = m
	}
	m[cq.queueID] = cq
}

// ConsumeQueue returns the queue if it exists, else nil (it is not created).
func (s *DefaultMessageStore) ConsumeQueue(topic string, queueID int32) *ConsumeQueue {
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	return s.consumeQueueTable[topic][queueID]
}

// findConsumeQueue returns the queue, creating it (without files) if needed.
// Java: DefaultMessageStore#findConsumeQueue.
func (s *DefaultMessageStore) findConsumeQueue(topic string, queueID int32) *ConsumeQueue {
	if cq := s.ConsumeQueue(topic, queueID); cq != nil {
		return cq
	}
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	m := s.consumeQueueTable[topic]
	if m == nil {
		m = map[int32]*ConsumeQueue{}
		s.consumeQueueTable[topic] = m
	}
	cq := m[queueID]
	if cq == nil {
		cq = newConsumeQueue(s, topic, queueID)
		m[queueID] = cq
	}
	return cq
}

// forEachConsumeQueue calls f for every queue in (topic, queueId) order, outside the lock.
func (s *DefaultMessageStore) forEachConsumeQueue(f func(*ConsumeQueue)) {
	s.cqMu.RLock()
	var all []*ConsumeQueue
	for _, m := range s.consumeQueueTable {
		for _, cq := range m {
			all = append(all, cq)
		}
	}
	s.cqMu.RUnlock()
	sort.Slice(all, func(i, j int) bool {
		if all[i].topic != all[j].topic {
			return all[i].topic < all[j].topic
		}
		return all[i].queueID < all[j].queueID
	})
	for _, cq := range all {
		f(cq)
	}
}

// DoReput runs one pass of the reput loop: dispatch every written, not yet dispatched record.
// Java: ReputMessageService#doReput.
func (s *DefaultMessageStore) DoReput() { s.reput.doReput() }

// ReputMessageService returns the dispatch service (RunOnce drives one pass of its loop).
func (s *DefaultMessageStore) ReputMessageService() *ReputMessageService { return s.reput }

// DispatchBehindBytes is how many written CommitLog bytes are not dispatched yet.
// Java: DefaultMessageStore#dispatchBehindBytes.
func (s *DefaultMessageStore) DispatchBehindBytes() int64 { return s.reput.behind() }

// GroupCommitService returns the SYNC_FLUSH flush service (RunOnce, DoCommit drive it).
func (s *DefaultMessageStore) GroupCommitService() *GroupCommitService { return s.groupCommit }

// FlushDiskWatcher returns the SYNC_FLUSH timeout watcher (RunOnce drives it).
func (s *DefaultMessageStore) FlushDiskWatcher() *FlushDiskWatcher { return s.flushDiskWatcher }

// FlushRealTimeService returns the ASYNC_FLUSH flush service (RunOnce drives it).
func (s *DefaultMessageStore) FlushRealTimeService() *FlushRealTimeService { return s.flushCommitLog }

// CommitRealTimeService returns the TransientStorePool commit service (RunOnce drives it).
func (s *DefaultMessageStore) CommitRealTimeService() *CommitRealTimeService { return s.commitRealTime }

// TransientStorePool returns the pool of write buffers, nil unless transientStorePoolEnable
// (with ASYNC_FLUSH on a master).
func (s *DefaultMessageStore) TransientStorePool() *TransientStorePool { return s.transientStorePool }

// RemainTransientStoreBufferNumbs is the number of free pool buffers, math.MaxInt32 without
// the pool. Java: DefaultMessageStore#remainTransientStoreBufferNumbs.
func (s *DefaultMessageStore) RemainTransientStoreBufferNumbs() int {
	if s.transientStorePool == nil {
		return math.MaxInt32
	}
	return s.transientStorePool.AvailableBufferNums()
}

// IsTransientStorePoolDeficient: the pool is on and has no free buffer (the broker then
// refuses sends at the door). Java: DefaultMessageStore#isTransientStorePoolDeficient.
func (s *DefaultMessageStore) IsTransientStorePoolDeficient() bool {
	return s.RemainTransientStoreBufferNumbs() == 0
}

// FlushedWhere is the CommitLog offset (bytes) up to which the log is known to be on disk.
// Java: CommitLog#getFlushedWhere.
func (s *DefaultMessageStore) FlushedWhere() int64 { return s.commitLog.mfq.flushedWhere.Load() }

// CommittedWhere is the CommitLog offset (bytes) up to which write buffers were committed into
// the files (without the pool: as far as a commit pass last saw the written end).
func (s *DefaultMessageStore) CommittedWhere() int64 { return s.commitLog.mfq.committedWhere.Load() }

// MaxWrotePosition is the CommitLog offset (bytes) the appender reached: with the
// TransientStorePool it runs ahead of what readers see (GetMaxPhyOffset) until a commit.
// Java: MappedFileQueue#getMaxWrotePosition.
func (s *DefaultMessageStore) MaxWrotePosition() int64 { return s.commitLog.mfq.getMaxWrotePosition() }

// RemainHowManyDataToCommit is how many written CommitLog bytes are not committed yet (0
// without the pool). Java: DefaultMessageStore#remainHowManyDataToCommit.
func (s *DefaultMessageStore) RemainHowManyDataToCommit() int64 {
	if s.transientStorePool == nil {
		return 0
	}
	return s.commitLog.mfq.getMaxWrotePosition() - s.CommittedWhere()
}

// RemainHowManyDataToFlush is how many readable CommitLog bytes are not flushed yet.
// Java: DefaultMessageStore#remainHowManyDataToFlush.
func (s *DefaultMessageStore) RemainHowManyDataToFlush() int64 {
	return s.commitLog.getMaxOffset() - s.FlushedWhere()
}

// CommitCommitLog commits the write buffer of the file at the commit point if at least
// leastPages new pages were written (0: any new byte): one CommitRealTimeService commit
// without its timing. True when nothing was committed.
func (s *DefaultMessageStore) CommitCommitLog(leastPages int) bool {
	done, err := s.commitLog.mfq.commit(leastPages)
	if err != nil {
		s.logError("commit commitlog", err)
	}
	return done
}

// FlushCommitLog flushes the CommitLog if at least leastPages new pages are readable (0: any
// new byte) and updates the checkpoint's physicMsgTimestamp. One FlushRealTimeService pass
// without the timing; true when nothing was left to flush in the file at the flush point.
func (s *DefaultMessageStore) FlushCommitLog(leastPages int) bool {
	done, err := s.commitLog.mfq.flush(leastPages)
	if err != nil {
		s.logError("flush commitlog", err)
	}
	s.updatePhysicTimestamp()
	return done
}

func (s *DefaultMessageStore) updatePhysicTimestamp() {
	if ts := s.commitLog.mfq.storeTimestamp.Load(); ts > 0 && s.checkpoint != nil {
		s.checkpoint.setPhysicMsgTimestamp(ts)
	}
}

// FlushConsumeQueue flushes every ConsumeQueue with at least leastPages new pages (0: all)
// and, with leastPages 0, the checkpoint. One FlushConsumeQueueService pass.
func (s *DefaultMessageStore) FlushConsumeQueue(leastPages int) {
	s.flushConsumeQueues(leastPages, leastPages == 0)
}

func (s *DefaultMessageStore) flushConsumeQueues(leastPages int, withCheckpoint bool) {
	logicsTs := s.checkpoint.LogicsMsgTimestamp()
	s.forEachConsumeQueue(func(cq *ConsumeQueue) {
		// A flush covers one file; up to 3 files a pass (Java's RETRY_TIMES_OVER). Deviation:
		// the pass that writes the checkpoint flushes every file, so logicsMsgTimestamp never
		// claims units that are not on disk (Java stops after 3 files there too).
		target := cq.mfq.getMaxOffset() // written before logicsTs was read
		for i := 0; i < 3 || withCheckpoint && cq.mfq.flushedWhere.Load() < target; i++ {
			done, err := cq.flush(leastPages)
			if err != nil {
				s.logError("flush consume queue", err)
			}
			if done || err != nil {
				break
			}
		}
	})
	if withCheckpoint {
		// the logics time captured before the flush is the one known to be on disk
		s.checkpoint.setLogicsMsgTimestamp(logicsTs)
		if err := s.checkpoint.Flush(); err != nil {
			s.logError("flush checkpoint", err)
		}
	}
}

// ---- offsets ----

// GetMaxOffsetInQueue is the queue's next offset (units); 0 for an unknown queue.
// Java: DefaultMessageStore#getMaxOffsetInQueue.
func (s *DefaultMessageStore) GetMaxOffsetInQueue(topic string, queueID int32) int64 {
	if cq := s.ConsumeQueue(topic, queueID); cq != nil {
		return cq.GetMaxOffsetInQueue()
	}
	return 0
}

// GetMinOffsetInQueue is the queue's first valid offset (units); 0 for an unknown queue.
// Java: DefaultMessageStore#getMinOffsetInQueue.
func (s *DefaultMessageStore) GetMinOffsetInQueue(topic string, queueID int32) int64 {
	if cq := s.ConsumeQueue(topic, queueID); cq != nil {
		return cq.GetMinOffsetInQueue()
	}
	return 0
}

// GetCommitLogOffsetInQueue is the CommitLog offset (bytes) of the message at queue offset
// consumeQueueOffset (units), 0 if unknown. Java: DefaultMessageStore#getCommitLogOffsetInQueue.
func (s *DefaultMessageStore) GetCommitLogOffsetInQueue(topic string, queueID int32, consumeQueueOffset int64) int64 {
	offsetPy, _, _, ok := s.readUnit(topic, queueID, consumeQueueOffset)
	if !ok {
		return 0
	}
	return offsetPy
}

// ReadConsumeQueueUnit reads the unit at queue offset index (ConsumeQueue units) of the queue
// (topic, queueID): the record's CommitLog offset (bytes), its TOTALSIZE (bytes) and its
// tagsCode — the tag hash, or for SCHEDULE_TOPIC_XXXX the deliver time (ms, store clock: the
// record's store time + its level's delay). ok is false for an unknown queue and for an index
// below the queue's min offset or not written yet. Java: ConsumeQueue#getIndexBuffer, then
// one 20-byte unit read as ScheduleMessageService's DeliverDelayedMessageTimerTask does.
func (s *DefaultMessageStore) ReadConsumeQueueUnit(topic string, queueID int32, index int64) (commitLogOffset int64, size int32, tagsCode int64, ok bool) {
	return s.readUnit(topic, queueID, index)
}

func (s *DefaultMessageStore) readUnit(topic string, queueID int32, index int64) (int64, int32, int64, bool) {
	cq := s.ConsumeQueue(topic, queueID)
	if cq == nil {
		return 0, 0, 0, false
	}
	buf, ok := cq.getIndexBuffer(index)
	if !ok {
		return 0, 0, 0, false
	}
	defer buf.Release()
	if buf.Size() < ConsumeQueueUnitSize {
		return 0, 0, 0, false
	}
	o, sz, tc := unitAt(buf.Data, 0)
	return o, sz, tc, true
}

// GetMessageStoreTimeStamp is the store time (ms) of the message at queue offset
// consumeQueueOffset (units), -1 if unknown. Java: DefaultMessageStore#getMessageStoreTimeStamp.
func (s *DefaultMessageStore) GetMessageStoreTimeStamp(topic string, queueID int32, consumeQueueOffset int64) int64 {
	offsetPy, size, _, ok := s.readUnit(topic, queueID, consumeQueueOffset)
	if !ok {
		return -1
	}
	return s.pickupStoreTimestamp(offsetPy, int(size))
}

// pickupStoreTimestamp reads a record's STORETIMESTAMP, -1 if unreadable.
// Java: CommitLog#pickupStoreTimestamp.
func (s *DefaultMessageStore) pickupStoreTimestamp(offset int64, size int) int64 {
	if offset < s.commitLog.getMinOffset() || size < 91 {
		return -1
	}
	r, ok := s.commitLog.getMessage(offset, size)
	if !ok {
		return -1
	}
	defer r.Release()
	sysFlag := int32(be32(r.Data[posSysFlag:]))
	return int64(be64(r.Data[storeTimestampPos(sysFlag):]))
}

// GetOffsetInQueueByTime is the queue offset (units) of the message stored closest to
// timestampMs (binary search over store times; on a tie of distance the earlier one); 0 for
// an unknown or empty queue. Java: ConsumeQueue#getOffsetInQueueByTime.
// Deviation: Java first picks one file by modification time and searches inside it; we search
// the whole queue from its min to its max offset.
func (s *DefaultMessageStore) GetOffsetInQueueByTime(topic string, queueID int32, timestampMs int64) int64 {
	cq := s.ConsumeQueue(topic, queueID)
	if cq == nil {
		return 0
	}
	lo, hi := cq.GetMinOffsetInQueue(), cq.GetMaxOffsetInQueue()-1
	minPhy := s.commitLog.getMinOffset()
	storeTime := func(i int64) int64 {
		offsetPy, size, _, ok := s.readUnit(topic, queueID, i)
		if !ok || offsetPy < minPhy {
			return -1
		}
		return s.pickupStoreTimestamp(offsetPy, int(size))
	}
	// skip units whose messages were removed
	for lo <= hi && storeTime(lo) < 0 {
		lo++
	}
	if lo > hi {
		return 0
	}
	left, right := lo, hi
	for left < right { // first unit with storeTime >= timestamp
		mid := left + (right-left)/2
		if storeTime(mid) < timestampMs {
			left = mid + 1
		} else {
			right = mid
		}
	}
	t := storeTime(left)
	if t == timestampMs || left == lo {
		return left
	}
	if t < timestampMs { // every message is older
		return left
	}
	prev := storeTime(left - 1)
	if timestampMs-prev <= t-timestampMs {
		return left - 1
	}
	return left
}

// GetMaxPhyOffset is the CommitLog's written end (bytes). Java: DefaultMessageStore#getMaxPhyOffset.
func (s *DefaultMessageStore) GetMaxPhyOffset() int64 { return s.commitLog.getMaxOffset() }

// GetMinPhyOffset is the CommitLog's first offset (bytes), -1 when empty.
// Java: DefaultMessageStore#getMinPhyOffset.
func (s *DefaultMessageStore) GetMinPhyOffset() int64 { return s.commitLog.getMinOffset() }

// CheckInDiskByConsumeOffset reports whether the message at queue offset consumeOffset
// (units) lies beyond the in-memory window. Java: DefaultMessageStore#checkInDiskByConsumeOffset.
func (s *DefaultMessageStore) CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset int64) bool {
	offsetPy, _, _, ok := s.readUnit(topic, queueID, consumeOffset)
	if !ok {
		return false
	}
	return s.checkInDiskByCommitOffset(offsetPy, s.commitLog.getMaxOffset())
}

func (s *DefaultMessageStore) checkInDiskByCommitOffset(offsetPy, maxOffsetPy int64) bool {
	memory := totalPhysicalMemory() * int64(s.cfg.AccessMessageInMemoryMaxRatio) / 100
	return maxOffsetPy-offsetPy > memory
}

// ---- get ----

// GetMessage reads up to maxMsgNums messages of a queue from queue offset offset (units),
// skipping those filter rejects. Statuses and nextBeginOffset follow Java (remoting-protocol.md
// §4.6); the batch stops at maxMsgNums or the in-memory/in-disk byte and count limits, but
// always holds at least one message if one matched; at most max(16000, maxMsgNums·20) bytes of
// ConsumeQueue are scanned. Records are copied (valid after their file is unmapped). Returns
// nil when the store is shut down. Java: DefaultMessageStore#getMessage.
// Deviation: an unknown queue is not created; it answers NO_MATCHED_LOGIC_QUEUE (Java creates
// an empty queue and answers NO_MESSAGE_IN_QUEUE; the broker maps both alike).
func (s *DefaultMessageStore) GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter MessageFilter) *GetMessageResult {
	if s.shutdown.Load() {
		return nil
	}
	res := &GetMessageResult{}
	status := NoMessageInQueue
	next := offset
	var minOffset, maxOffset int64
	maxOffsetPy := s.commitLog.getMaxOffset()
	cq := s.ConsumeQueue(topic, queueID)
	if cq == nil {
		status = NoMatchedLogicQueue
		next = s.nextOffsetCorrection(offset, 0)
	} else {
		minOffset, maxOffset = cq.GetMinOffsetInQueue(), cq.GetMaxOffsetInQueue()
		switch {
		case maxOffset == 0:
			status, next = NoMessageInQueue, s.nextOffsetCorrection(offset, 0)
		case offset < minOffset:
			status, next = OffsetTooSmall, s.nextOffsetCorrection(offset, minOffset)
		case offset == maxOffset:
			status, next = OffsetOverflowOne, s.nextOffsetCorrection(offset, offset)
		case offset > maxOffset:
			status, next = OffsetOverflowBadly, s.nextOffsetCorrection(offset, maxOffset)
		default:
			status, next = s.readMessages(res, cq, offset, maxMsgNums, filter, maxOffsetPy)
		}
	}
	res.Status, res.NextBeginOffset, res.MinOffset, res.MaxOffset = status, next, minOffset, maxOffset
	if s.tracer.Enabled() {
		s.tracer.Step("DefaultMessageStore#getMessage", slog.String("group", group), slog.String("topic", topic),
			slog.Int("queueId", int(queueID)), slog.Int64("offset", offset), slog.String("status", status.String()),
			slog.Int("messageCount", res.MessageCount), slog.Int64("nextBeginOffset", next),
			slog.Int64("minOffset", minOffset), slog.Int64("maxOffset", maxOffset))
	}
	return res
}

func (s *DefaultMessageStore) readMessages(res *GetMessageResult, cq *ConsumeQueue, offset int64, maxMsgNums int32,
	filter MessageFilter, maxOffsetPy int64) (GetMessageStatus, int64) {
	buf, ok := cq.getIndexBuffer(offset)
	if !ok {
		return OffsetFoundNull, s.nextOffsetCorrection(offset, cq.rollNextFile(offset))
	}
	defer buf.Release()
	status := NoMatchedMessage
	clFilter, _ := filter.(CommitLogMessageFilter)
	nextPhyFileStart := int64(math.MinInt64)
	var maxPhyPulling int64
	maxFilter := max(16000, int(maxMsgNums)*ConsumeQueueUnitSize)
	var body []byte
	var ends []int
	i := 0
	for ; i+ConsumeQueueUnitSize <= buf.Size() && i < maxFilter; i += ConsumeQueueUnitSize {
		offsetPy, sizePy, tagsCode := unitAt(buf.Data, i)
		maxPhyPulling = offsetPy
		if nextPhyFileStart != math.MinInt64 && offsetPy < nextPhyFileStart {
			continue
		}
		inDisk := s.checkInDiskByCommitOffset(offsetPy, maxOffsetPy)
		if s.isTheBatchFull(int(sizePy), int(maxMsgNums), len(body), len(ends), inDisk) {
			break
		}
		if filter != nil && !filter.IsMatchedByConsumeQueue(tagsCode) {
			if len(body) == 0 {
				status = NoMatchedMessage
			}
			continue
		}
		rec, ok := s.commitLog.getMessage(offsetPy, int(sizePy))
		if !ok {
			if len(body) == 0 {
				status = MessageWasRemoving
			}
			nextPhyFileStart = s.commitLog.rollNextFile(offsetPy)
			continue
		}
		if clFilter != nil && !clFilter.IsMatchedByCommitLog(rec.Data) {
			rec.Release()
			if len(body) == 0 {
				status = NoMatchedMessage
			}
			continue
		}
		if body == nil {
			body = make([]byte, 0, max(min(int(sizePy)*int(min(maxMsgNums, 32)), s.cfg.MaxTransferBytesOnMessageInMemory), int(sizePy)))
			ends = make([]int, 0, min(max(maxMsgNums, 1), 32))
			res.MessageQueueOffsets = make([]int64, 0, min(max(maxMsgNums, 1), 32))
		}
		body = append(body, rec.Data...)
		rec.Release()
		ends = append(ends, len(body))
		res.MessageQueueOffsets = append(res.MessageQueueOffsets, offset+int64(i/ConsumeQueueUnitSize))
		status = Found
		nextPhyFileStart = math.MinInt64
	}
	if len(ends) > 0 {
		res.body = body
		res.Messages = make([][]byte, len(ends))
		start := 0
		for k, e := range ends {
			res.Messages[k] = body[start:e:e]
			start = e
		}
		res.MessageCount = len(ends)
		res.BufferTotalSize = len(body)
	}
	memory := totalPhysicalMemory() * int64(s.cfg.AccessMessageInMemoryMaxRatio) / 100
	res.SuggestPullingFromSlave = maxOffsetPy-maxPhyPulling > memory
	return status, offset + int64(i/ConsumeQueueUnitSize)
}

// isTheBatchFull: never while empty; else at maxMsgNums, or over the byte/count limits for
// in-memory or in-disk data. Java: DefaultMessageStore#isTheBatchFull.
func (s *DefaultMessageStore) isTheBatchFull(sizePy, maxMsgNums, bufferTotal, messageTotal int, inDisk bool) bool {
	if bufferTotal == 0 || messageTotal == 0 {
		return false
	}
	if maxMsgNums <= messageTotal {
		return true
	}
	if inDisk {
		return bufferTotal+sizePy > s.cfg.MaxTransferBytesOnMessageInDisk ||
			messageTotal > s.cfg.MaxTransferCountOnMessageInDisk-1
	}
	return bufferTotal+sizePy > s.cfg.MaxTransferBytesOnMessageInMemory ||
		messageTotal > s.cfg.MaxTransferCountOnMessageInMemory-1
}

// nextOffsetCorrection: a slave (without offsetCheckInSlave) keeps the requested offset.
// Java: DefaultMessageStore#nextOffsetCorrection.
func (s *DefaultMessageStore) nextOffsetCorrection(oldOffset, newOffset int64) int64 {
	if s.cfg.BrokerRole != Slave || s.cfg.OffsetCheckInSlave {
		return newOffset
	}
	return oldOffset
}

// SelectOneMessageByOffset returns a copy of the record at CommitLog offset commitLogOffset
// (bytes). Java: DefaultMessageStore#selectOneMessageByOffset.
func (s *DefaultMessageStore) SelectOneMessageByOffset(commitLogOffset int64) ([]byte, bool) {
	head, ok := s.commitLog.getMessage(commitLogOffset, 8)
	if !ok {
		return nil, false
	}
	size := int(int32(be32(head.Data)))
	magic := be32(head.Data[4:])
	head.Release()
	if magic != messageMagicCode || size < 91 {
		return nil, false
	}
	r, ok := s.commitLog.getMessage(commitLogOffset, size)
	if !ok {
		return nil, false
	}
	defer r.Release()
	return append([]byte(nil), r.Data...), true
}

// LookMessageByOffset decodes the record at CommitLog offset commitLogOffset (bytes).
// Java: DefaultMessageStore#lookMessageByOffset.
func (s *DefaultMessageStore) LookMessageByOffset(commitLogOffset int64) (*primitive.MessageExt, error) {
	rec, ok := s.SelectOneMessageByOffset(commitLogOffset)
	if !ok {
		return nil, fmt.Errorf("store: no message at commitlog offset %d", commitLogOffset)
	}
	m, _, err := primitive.DecodeMessage(rec)
	return m, err
}

// GetCommitLogData returns the written CommitLog bytes from offset to the end of its file,
// held: call Release when done (HA transfer). Java: DefaultMessageStore#getCommitLogData.
func (s *DefaultMessageStore) GetCommitLogData(offset int64) (SelectMappedBufferResult, bool) {
	if s.shutdown.Load() {
		return SelectMappedBufferResult{}, false
	}
	return s.commitLog.getData(offset)
}

// AppendToCommitLog writes raw CommitLog bytes (a master's, on a slave) at startOffset, which
// must be the current end of the log; data must not cross a file end. The reput service then
// dispatches them. Java: DefaultMessageStore#appendToCommitLog → CommitLog#appendData.
func (s *DefaultMessageStore) AppendToCommitLog(startOffset int64, data []byte) error {
	if s.shutdown.Load() {
		return fmt.Errorf("store: append to commitlog: %w", ErrNotLoaded)
	}
	c := s.commitLog
	c.putMu.Lock()
	defer c.putMu.Unlock()
	if end := c.getMaxOffset(); end != startOffset {
		return fmt.Errorf("store: append to commitlog at %d, but the log ends at %d", startOffset, end)
	}
	mf, err := c.mfq.getLastMappedFile(startOffset, true)
	if err != nil {
		return err
	}
	if mf.fileFromOffset+int64(mf.WrotePosition()) != startOffset || !mf.appendBytes(data) {
		return fmt.Errorf("store: append %d bytes at %d: does not fit file %s", len(data), startOffset, mf.name)
	}
	return nil
}

// DeleteTopics removes the ConsumeQueues (files and directories) and queue offsets of topics.
// Java: DefaultMessageStore#deleteTopics.
func (s *DefaultMessageStore) DeleteTopics(topics []string) {
	s.reput.mu.Lock() // no dispatch into a queue being deleted
	defer s.reput.mu.Unlock()
	for _, t := range topics {
		s.cqMu.Lock()
		m := s.consumeQueueTable[t]
		delete(s.consumeQueueTable, t)
		s.cqMu.Unlock()
		for id, cq := range m {
			if err := cq.destroy(); err != nil {
				s.logError("delete topic "+t, err)
			}
			s.commitLog.removeQueueFromTopicQueueTable(t, id)
		}
		if err := os.RemoveAll(filepath.Join(s.cfg.ConsumeQueueDir(), t)); err != nil {
			s.logError("delete topic "+t, err)
		}
	}
}
