package protocol

// Pull request sysFlag bits. Mirrors org.apache.rocketmq.common.sysflag.PullSysFlag; values
// pinned by TestPullSysFlag.
const (
	// PullFlagCommitOffset: commit CommitOffset as a side effect of the pull.
	PullFlagCommitOffset int32 = 0x1
	// PullFlagSuspend: the broker may hold the pull (long polling).
	PullFlagSuspend int32 = 0x2
	// PullFlagSubscription: the Subscription field carries the expression; otherwise the
	// broker uses the subscription from the group's heartbeat.
	PullFlagSubscription int32 = 0x4
	// PullFlagClassFilter: class-filter mode (every message matches).
	PullFlagClassFilter int32 = 0x8
	// PullFlagLitePull marks Java's lite pull consumer.
	PullFlagLitePull int32 = 0x10
)

// BuildPullSysFlag combines the pull flags.
// Java: PullSysFlag#buildSysFlag.
func BuildPullSysFlag(commitOffset, suspend, subscription, classFilter bool) int32 {
	var f int32
	if commitOffset {
		f |= PullFlagCommitOffset
	}
	if suspend {
		f |= PullFlagSuspend
	}
	if subscription {
		f |= PullFlagSubscription
	}
	if classFilter {
		f |= PullFlagClassFilter
	}
	return f
}

// ClearCommitOffsetFlag drops the commit bit (a slave must not commit).
// Java: PullSysFlag#clearCommitOffsetFlag.
func ClearCommitOffsetFlag(f int32) int32 { return f &^ PullFlagCommitOffset }

// HasCommitOffsetFlag, HasSuspendFlag, HasSubscriptionFlag and HasClassFilterFlag test one bit.
// Java: PullSysFlag#hasCommitOffsetFlag etc.
func HasCommitOffsetFlag(f int32) bool { return f&PullFlagCommitOffset != 0 }
func HasSuspendFlag(f int32) bool      { return f&PullFlagSuspend != 0 }
func HasSubscriptionFlag(f int32) bool { return f&PullFlagSubscription != 0 }
func HasClassFilterFlag(f int32) bool  { return f&PullFlagClassFilter != 0 }

// PullMessageRequestHeader is the header of PULL_MESSAGE (11).
// Mirrors PullMessageRequestHeader (remoting-protocol.md §4.6). All fields but Subscription,
// ExpressionType and BrokerName are required.
type PullMessageRequestHeader struct {
	ConsumerGroup string
	Topic         string
	QueueID       int32
	// QueueOffset is the ConsumeQueue index to start at (units, not bytes).
	QueueOffset int64
	MaxMsgNums  int32
	// SysFlag holds the PullFlag* bits.
	SysFlag int32
	// CommitOffset is the consumer offset to commit when PullFlagCommitOffset is set (units).
	CommitOffset int64
	// SuspendTimeoutMillis is the long-poll hold time (ms).
	SuspendTimeoutMillis int64
	// Subscription is the expression (meaningful with PullFlagSubscription). Optional.
	Subscription string
	SubVersion   int64
	// ExpressionType is "TAG" or "SQL92"; "" means TAG. Optional.
	ExpressionType string
	BrokerName     string // `bname`, optional
}

// decodeExt reads the header. Errors: ErrMissingField, ErrBadField.
func (h *PullMessageRequestHeader) decodeExt(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = PullMessageRequestHeader{
		ConsumerGroup:        r.str("consumerGroup"),
		Topic:                r.str("topic"),
		QueueID:              r.i32("queueId"),
		QueueOffset:          r.i64("queueOffset"),
		MaxMsgNums:           r.i32("maxMsgNums"),
		SysFlag:              r.i32("sysFlag"),
		CommitOffset:         r.i64("commitOffset"),
		SuspendTimeoutMillis: r.i64("suspendTimeoutMillis"),
		Subscription:         r.optStr("subscription"),
		SubVersion:           r.i64("subVersion"),
		ExpressionType:       r.optStr("expressionType"),
		BrokerName:           r.optStr("bname"),
	}
	return r.err
}

// encodeExt writes the header.
func (h *PullMessageRequestHeader) encodeExt() map[string]string {
	ext := map[string]string{
		"consumerGroup":        h.ConsumerGroup,
		"topic":                h.Topic,
		"queueId":              itoa32(h.QueueID),
		"queueOffset":          itoa64(h.QueueOffset),
		"maxMsgNums":           itoa32(h.MaxMsgNums),
		"sysFlag":              itoa32(h.SysFlag),
		"commitOffset":         itoa64(h.CommitOffset),
		"suspendTimeoutMillis": itoa64(h.SuspendTimeoutMillis),
		"subscription":         h.Subscription,
		"subVersion":           itoa64(h.SubVersion),
	}
	putOpt(ext, "expressionType", h.ExpressionType)
	putOpt(ext, "bname", h.BrokerName)
	return ext
}

// PullMessageResponseHeader is the header of every pull response, whatever its code: clients
// stall a queue when minOffset/maxOffset are missing (remoting-protocol.md pitfall 12). All four
// fields are required and always encoded. Offsets are ConsumeQueue indexes.
// Mirrors PullMessageResponseHeader.
type PullMessageResponseHeader struct {
	SuggestWhichBrokerID int64
	NextBeginOffset      int64
	MinOffset            int64
	MaxOffset            int64
}

// decodeExt reads the header. Errors: ErrMissingField, ErrBadField.
func (h *PullMessageResponseHeader) decodeExt(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = PullMessageResponseHeader{
		SuggestWhichBrokerID: r.i64("suggestWhichBrokerId"),
		NextBeginOffset:      r.i64("nextBeginOffset"),
		MinOffset:            r.i64("minOffset"),
		MaxOffset:            r.i64("maxOffset"),
	}
	return r.err
}

// encodeExt writes all four fields.
func (h *PullMessageResponseHeader) encodeExt() map[string]string {
	return map[string]string{
		"suggestWhichBrokerId": itoa64(h.SuggestWhichBrokerID),
		"nextBeginOffset":      itoa64(h.NextBeginOffset),
		"minOffset":            itoa64(h.MinOffset),
		"maxOffset":            itoa64(h.MaxOffset),
	}
}
