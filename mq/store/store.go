package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
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

// DefaultMessageStore is the store facade the broker uses. It builds the parts — CommitLog
// (with its flush services), the ConsumeQueue table, IndexService, ReputMessageService,
// FlushConsumeQueueService, the clean services, StoreCheckpoint — each from what it uses, wires
// them together, and holds the life cycle (store_load.go), the put path's checks
// (store_put.go), the get path (store_get.go) and the offset queries (store_offsets.go).
// Mirrors org.apache.rocketmq.store.DefaultMessageStore.
type DefaultMessageStore struct {
	cfg  MessageStoreConfig
	opts Options // with defaults filled in
	env  storeEnv

	flags              runningFlags
	checkpoint         *StoreCheckpoint
	allocate           *AllocateMappedFileService
	transientStorePool *TransientStorePool // nil unless transientStorePoolEnable
	commitLog          *CommitLog
	queues             *consumeQueueTable
	indexService       *IndexService
	dispatchers        dispatcherList
	reput              *ReputMessageService
	flushCQ            *FlushConsumeQueueService
	stats              StoreStatsService // put and get totals (atomics)

	cleanCommitLog    *CleanCommitLogService
	cleanConsumeQueue *CleanConsumeQueueService
	cleanService      *service.ServiceThread // CleanFilesPeriodically every cleanResourceInterval
	diskCheckService  *service.ServiceThread // IsSpaceFull every 10 s
	statsService      *service.ServiceThread // stats.Sample every second

	stateMu  sync.Mutex // Load, Start, Shutdown
	loaded   bool
	started  bool
	closed   bool // shut down after Start: make a new store to reopen
	lockFile *os.File
}

// NewDefaultMessageStore builds a store over cfg (validated) with opts (the zero Options:
// production behaviour). listener may be nil; tr nil turns the step trace off. Nothing touches
// the disk until Load. Java: DefaultMessageStore(messageStoreConfig, brokerStatsManager,
// messageArrivingListener, brokerConfig).
func NewDefaultMessageStore(cfg MessageStoreConfig, opts Options, listener MessageArrivingListener, tr *trace.Tracer) (*DefaultMessageStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(cfg.StorePathRootDir)
	if err != nil {
		return nil, fmt.Errorf("store: root %s: %w", cfg.StorePathRootDir, err)
	}
	s := &DefaultMessageStore{cfg: cfg, opts: opts.withDefaults()}
	s.env = newStoreEnv(&s.cfg, &s.opts, tr, root)
	env := &s.env
	s.flags.shutdown.Store(true)
	s.checkpoint = newStoreCheckpoint(filepath.Join(root, "checkpoint"), env.events())
	s.allocate = newAllocateMappedFileService(env.log.l)
	if cfg.IsTransientStorePoolEnable() {
		s.transientStorePool = newTransientStorePool(cfg.TransientStorePoolSize, cfg.MappedFileSizeCommitLog, env.log.l)
	}
	s.commitLog = newCommitLog(env, &s.flags, s.checkpoint, s.allocate, s.transientStorePool)
	s.queues = newConsumeQueueTable(env, s.checkpoint, &s.flags)
	s.indexService = newIndexService(env, s.checkpoint, &s.flags)
	s.dispatchers.list = []CommitLogDispatcher{commitLogDispatcherBuildConsumeQueue{tracer: tr, queues: s.queues}}
	if cfg.MessageIndexEnable {
		s.dispatchers.list = append(s.dispatchers.list, commitLogDispatcherBuildIndex{index: s.indexService})
	}
	s.reput = newReputMessageService(env, s.commitLog, &s.dispatchers, listener)
	s.flushCQ = newFlushConsumeQueueService(env, s.queues, s.checkpoint, s.reput)
	s.cleanService = service.New("CleanFilesService")
	s.diskCheckService = service.New("DiskCheckService")
	s.statsService = service.New("StoreStatsService")
	pacer := filePacer{stop: s.cleanService.StopChan(), skip: s.opts.ManualServices}
	s.cleanCommitLog = newCleanCommitLogService(env, s.commitLog, &s.flags, pacer)
	s.cleanConsumeQueue = newCleanConsumeQueueService(env, s.commitLog, s.queues, s.indexService, pacer)
	return s, nil
}

// Config returns the store's configuration.
func (s *DefaultMessageStore) Config() *MessageStoreConfig { return &s.cfg }

// Options returns the store's options (with defaults filled in).
func (s *DefaultMessageStore) Options() *Options { return &s.opts }

// Checkpoint returns the checkpoint (its values are read from the file at Load).
func (s *DefaultMessageStore) Checkpoint() *StoreCheckpoint { return s.checkpoint }

// CommitLog returns the log (SetReplicaService plugs replication in).
func (s *DefaultMessageStore) CommitLog() *CommitLog { return s.commitLog }

// AddDispatcher appends a dispatcher after the ConsumeQueue and index ones. Call before Load
// (abnormal recovery dispatches too).
func (s *DefaultMessageStore) AddDispatcher(d CommitLogDispatcher) {
	s.dispatchers.list = append(s.dispatchers.list, d)
}

// Now is the store clock in ms (Options.Clock).
func (s *DefaultMessageStore) Now() int64 { return s.env.clock.now() }

func (s *DefaultMessageStore) abortFile() string { return filepath.Join(string(s.env.root), "abort") }
