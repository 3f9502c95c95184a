package schedule

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// MessageStore is the part of the store the service reads and writes;
// *store.DefaultMessageStore implements it. Times are ms from the store's clock (Now).
type MessageStore interface {
	PutMessage(msg *primitive.MessageExtBrokerInner) store.PutMessageResult
	LookMessageByOffset(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error)
	GetMinOffsetInQueue(topic string, queueID int32) store.QueueOffset
	GetMaxOffsetInQueue(topic string, queueID int32) store.QueueOffset
	ReadConsumeQueueUnit(topic string, queueID int32, index store.QueueOffset) (store.CqUnit, bool)
	Now() int64
}

// ErrState is returned when Load or Start are called out of order.
var ErrState = errors.New("schedule: wrong life-cycle state")

// ScheduleMessageService delivers delayed messages: every message stored with DELAY = L sits
// in SCHEDULE_TOPIC_XXXX queue L-1 (the CommitLog put redirects it there, keeping its real
// topic and queue in REAL_TOPIC / REAL_QID) until its deliver time; then this service puts a
// copy into the real topic and queue. offsetTable remembers, per level, the next
// SCHEDULE_TOPIC_XXXX queue offset (ConsumeQueue units) still to deliver; it is kept in
// config/delayOffset.json. Mirrors org.apache.rocketmq.store.schedule.ScheduleMessageService.
//
// Life cycle: NewScheduleMessageService → Load (after the store's Load) → Start (after the
// store's Start; master only) → Shutdown (before the store's Shutdown; persists the offsets).
//
// Deviation: Java schedules one timer task per level on a pool of maxDelayLevel threads; here
// one ServiceThread runs every level in turn every 100 ms (Java's DELAY_FOR_A_WHILE, the pause
// after both a pass and a not-yet-due message), so a level's deliveries wait at most for the
// other levels' puts of the same pass. DoDeliver is that pass.
type ScheduleMessageService struct {
	store  MessageStore
	cfg    Config
	tracer *trace.Tracer
	log    *slog.Logger
	// delayLevelTable holds each level's delay in ms (index 0 = level 1).
	delayLevelTable []int64

	// deliverMu makes DoDeliver calls (the service's and a caller's) take turns.
	deliverMu sync.Mutex

	mu          sync.Mutex
	offsetTable map[int32]store.QueueOffset // level → next queue offset; guarded by mu

	fileMu sync.Mutex // one delayOffset.json write at a time

	stateMu    sync.Mutex
	loaded     bool
	started    bool
	stopped    bool
	deliverSvc *service.ServiceThread
	persistSvc *service.ServiceThread
}

// NewScheduleMessageService returns a service over ms. A messageDelayLevel that does not
// parse is an error. tr nil turns the step trace off; operating logs go to tr's logger.
func NewScheduleMessageService(ms MessageStore, cfg Config, tr *trace.Tracer) (*ScheduleMessageService, error) {
	levels, err := store.ParseDelayLevel(cfg.MessageDelayLevel)
	if err != nil {
		return nil, err
	}
	if cfg.FlushDelayOffsetInterval <= 0 {
		cfg.FlushDelayOffsetInterval = defaultFlushPersist
	}
	log := tr.Logger()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &ScheduleMessageService{
		store:           ms,
		cfg:             cfg,
		tracer:          tr,
		log:             log,
		delayLevelTable: levels,
		offsetTable:     map[int32]store.QueueOffset{},
		deliverSvc:      service.New("ScheduleMessageTimerThread"),
		persistSvc:      service.New("ScheduleMessagePersistThread"),
	}, nil
}

// MaxDelayLevel is the number of levels (18 by default). Java: ScheduleMessageService#getMaxDelayLevel.
func (s *ScheduleMessageService) MaxDelayLevel() int32 { return int32(len(s.delayLevelTable)) }

// DelayLevelTable returns a copy of the levels' delays in ms (index 0 = level 1).
func (s *ScheduleMessageService) DelayLevelTable() []int64 {
	return append([]int64(nil), s.delayLevelTable...)
}

// ComputeDeliverTimestamp is storeTimestamp + the level's delay (ms), or + 1000 ms for an
// unknown level. Java: ScheduleMessageService#computeDeliverTimestamp.
func (s *ScheduleMessageService) ComputeDeliverTimestamp(delayLevel int32, storeTimestamp int64) int64 {
	if delayLevel >= 1 && int(delayLevel) <= len(s.delayLevelTable) {
		return storeTimestamp + s.delayLevelTable[delayLevel-1]
	}
	return storeTimestamp + 1000
}

// OffsetTable returns a copy of level → next SCHEDULE_TOPIC_XXXX queue offset (units). A level
// appears once something of it was delivered (or it was loaded from the file).
func (s *ScheduleMessageService) OffsetTable() map[int32]store.QueueOffset {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.offsetTable)
}

// offset is the level's next queue offset (0 when none is recorded).
func (s *ScheduleMessageService) offset(level int32) store.QueueOffset {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offsetTable[level]
}

// updateOffset records the level's next queue offset. Java: ScheduleMessageService#updateOffset.
func (s *ScheduleMessageService) updateOffset(level int32, offset store.QueueOffset) {
	s.mu.Lock()
	s.offsetTable[level] = offset
	s.mu.Unlock()
}

// Encode returns the offset table as DelayOffsetSerializeWrapper JSON, fastjson style with
// the levels unquoted: compact `{"offsetTable":{1:0,2:5}}` (GET_ALL_DELAY_OFFSET's body) or
// pretty (the file). Java: ScheduleMessageService#encode(prettyFormat).
func (s *ScheduleMessageService) Encode(pretty bool) []byte {
	return encodeOffsetTable(s.OffsetTable(), pretty)
}

// Decode merges delayOffset.json's content into the offset table (levels quoted or not);
// nothing changes on error. Java: ScheduleMessageService#decode.
func (s *ScheduleMessageService) Decode(data []byte) error {
	t, err := decodeOffsetTable(data)
	if err != nil {
		return err
	}
	s.mu.Lock()
	maps.Copy(s.offsetTable, t)
	s.mu.Unlock()
	return nil
}

// Load reads config/delayOffset.json (or its .bak) and corrects each loaded offset into its
// queue's [min, max] range. It returns the file used ("" on a first start); a file that exists
// but neither it nor its .bak decodes is an error. Java: ScheduleMessageService#load
// (ConfigManager#load, parseDelayLevel, correctDelayOffset).
func (s *ScheduleMessageService) Load() (string, error) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.loaded || s.started {
		return "", fmt.Errorf("%w: Load called twice or after Start", ErrState)
	}
	var used string
	if p := s.cfg.DelayOffsetPath; p != "" {
		var err error
		used, err = configfile.Load(p, s.Decode)
		if err != nil {
			return "", fmt.Errorf("schedule: load %s: %w", p, err)
		}
	}
	s.correctDelayOffset()
	s.loaded = true
	return used, nil
}

// correctDelayOffset moves a loaded offset below its queue's min offset up to it, and one
// above its max offset down to it (ConsumeQueue files deleted or lost).
// Java: ScheduleMessageService#correctDelayOffset.
func (s *ScheduleMessageService) correctDelayOffset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for level, off := range s.offsetTable {
		if level < 1 || int(level) > len(s.delayLevelTable) {
			continue
		}
		qid := DelayLevel2QueueID(level)
		lo, hi := s.store.GetMinOffsetInQueue(ScheduleTopic, qid), s.store.GetMaxOffsetInQueue(ScheduleTopic, qid)
		corrected := min(max(off, lo), hi)
		if corrected != off {
			s.log.Error("schedule CQ offset invalid, corrected", "delayLevel", level, "offset", off,
				"cqMinOffset", lo, "cqMaxOffset", hi, "corrected", corrected)
			s.offsetTable[level] = corrected
		}
	}
}

// Start runs the deliver loop (first pass after 1 s, then every 100 ms) and the persist loop
// (delayOffset.json every FlushDelayOffsetInterval, first after min(10 s, interval)); with
// ManualServices it runs nothing. Call on a master only (Java: handleScheduleMessageService).
//
// Deviation: Java's first persist comes after 10 s always; min(10 s, interval) lets tests and
// chapters with short intervals see it.
func (s *ScheduleMessageService) Start() error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if !s.loaded || s.started || s.stopped {
		return fmt.Errorf("%w: Start needs Load and no Start or Shutdown before", ErrState)
	}
	s.started = true
	if s.cfg.ManualServices {
		return nil
	}
	s.deliverSvc.RunEvery(firstDelay, delayForAWhile, func() { s.deliver(s.deliverSvc.Stopped) })
	interval := s.cfg.FlushDelayOffsetInterval
	s.persistSvc.RunEvery(min(persistFirstDelay, interval), interval, func() {
		if err := s.Persist(); err != nil {
			s.log.Error("persist delay offsets failed", "err", err)
		}
	})
	return nil
}

// Shutdown stops both loops, waits for them, and writes delayOffset.json when the service
// was started. Safe to call more than once and without Start. Java: ScheduleMessageService#shutdown.
func (s *ScheduleMessageService) Shutdown() {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	s.deliverSvc.Shutdown()
	s.persistSvc.Shutdown()
	if s.started {
		if err := s.Persist(); err != nil {
			s.log.Error("persist delay offsets at shutdown failed", "err", err)
		}
	}
}

// Persist writes delayOffset.json (pretty, levels unquoted) atomically, keeping the previous
// version as .bak; a no-op without a path. Java: ConfigManager#persist.
func (s *ScheduleMessageService) Persist() error {
	p := s.cfg.DelayOffsetPath
	if p == "" {
		return nil
	}
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if err := configfile.Store(p, s.Encode(true)); err != nil {
		return fmt.Errorf("schedule: persist %s: %w", p, err)
	}
	return nil
}
