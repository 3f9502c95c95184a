package schedule

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
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
	// the trace is deterministic). Not a RocketMQ setting.
	ManualServices bool
}

// ConfigFromStore derives the service's Config from the store's: delayOffset.json under its
// root, its messageDelayLevel and ManualServices, the 10 s persist interval.
//
// Deviation: MessageStoreConfig has no flushDelayOffsetInterval key yet; the 10 s default is
// used (set Config.FlushDelayOffsetInterval to change it).
func ConfigFromStore(c *store.MessageStoreConfig) Config {
	return Config{
		DelayOffsetPath:          DelayOffsetPath(c.StorePathRootDir),
		MessageDelayLevel:        c.MessageDelayLevel,
		FlushDelayOffsetInterval: defaultFlushPersist,
		ManualServices:           c.ManualServices,
	}
}

// DelayOffsetPath is <rootDir>/config/delayOffset.json.
// Java: StorePathConfigHelper#getDelayOffsetStorePath.
func DelayOffsetPath(rootDir string) string {
	return filepath.Join(rootDir, "config", "delayOffset.json")
}

// ParseDelayLevel parses messageDelayLevel ("1s 5s 1m 2h 1d") into delays in ms, index 0 =
// level 1. Units: s = 1000, m = 60 000, h = 3 600 000, d = 86 400 000 ms.
// Java: ScheduleMessageService#parseDelayLevel.
func ParseDelayLevel(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Fields(s) {
		if len(f) < 2 {
			return nil, fmt.Errorf("schedule: bad delay level %q", f)
		}
		var unit int64
		switch f[len(f)-1] {
		case 's':
			unit = 1000
		case 'm':
			unit = 60 * 1000
		case 'h':
			unit = 60 * 60 * 1000
		case 'd':
			unit = 24 * 60 * 60 * 1000
		default:
			return nil, fmt.Errorf("schedule: bad unit in delay level %q (want s, m, h or d)", f)
		}
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("schedule: bad number in delay level %q", f)
		}
		out = append(out, n*unit)
	}
	return out, nil
}

// QueueID2DelayLevel is queueId + 1. Java: ScheduleMessageService#queueId2DelayLevel.
func QueueID2DelayLevel(queueID int32) int32 { return queueID + 1 }

// DelayLevel2QueueID is level - 1. Java: ScheduleMessageService#delayLevel2QueueId.
func DelayLevel2QueueID(level int32) int32 { return level - 1 }
