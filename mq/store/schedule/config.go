package schedule

import (
	"path/filepath"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Wire and disk constants (pinned by TestConstants).
const (
	// ScheduleTopic holds delayed messages: queue L-1 for delay level L.
	// Java: TopicValidator.RMQ_SYS_SCHEDULE_TOPIC.
	ScheduleTopic = "SCHEDULE_TOPIC_XXXX"
	// transHalfTopic is the transaction half topic; a delayed message whose REAL_TOPIC is this
	// one is dropped, never delivered. Java: TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC.
	transHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC"
)

// Timings of the deliver loop. Java: ScheduleMessageService.FIRST_DELAY_TIME (1000 ms),
// DELAY_FOR_A_WHILE (100 ms); the persist task's first run after 10 000 ms.
const (
	firstDelay          = 1000 * time.Millisecond
	delayForAWhile      = 100 * time.Millisecond
	persistFirstDelay   = 10 * time.Second
	defaultFlushPersist = 10 * time.Second
)

// Config is what the service needs from the store's configuration.
type Config struct {
	// DelayOffsetPath is config/delayOffset.json under the store root ("" keeps the offsets in
	// memory only). Java: StorePathConfigHelper#getDelayOffsetStorePath.
	DelayOffsetPath string
	// MessageDelayLevel lists the levels' delays ("1s 5s 10s ... 2h", units s, m, h, d).
	// Java: MessageStoreConfig#messageDelayLevel.
	MessageDelayLevel string
	// FlushDelayOffsetInterval is how often delayOffset.json is written (10 s).
	// Java: MessageStoreConfig#flushDelayOffsetInterval.
	FlushDelayOffsetInterval time.Duration
	// ManualServices starts no goroutine: the caller runs DoDeliver and Persist (chapters, so
	// the trace is deterministic). Not a RocketMQ setting (store.Options.ManualServices).
	ManualServices bool
}

// ConfigFromStore derives the service's Config from the store's config and options:
// delayOffset.json under its root, its messageDelayLevel, flushDelayOffsetInterval and the
// options' ManualServices.
func ConfigFromStore(c *store.MessageStoreConfig, o *store.Options) Config {
	return Config{
		DelayOffsetPath:          DelayOffsetPath(c.StorePathRootDir),
		MessageDelayLevel:        c.MessageDelayLevel,
		FlushDelayOffsetInterval: c.FlushDelayOffsetInterval,
		ManualServices:           o.ManualServices,
	}
}

// DelayOffsetPath is <rootDir>/config/delayOffset.json.
// Java: StorePathConfigHelper#getDelayOffsetStorePath.
func DelayOffsetPath(rootDir string) string {
	return filepath.Join(rootDir, "config", "delayOffset.json")
}

// QueueID2DelayLevel is queueId + 1. Java: ScheduleMessageService#queueId2DelayLevel.
func QueueID2DelayLevel(queueID int32) int32 { return queueID + 1 }

// DelayLevel2QueueID is level - 1. Java: ScheduleMessageService#delayLevel2QueueId.
func DelayLevel2QueueID(level int32) int32 { return level - 1 }
