package store

import "strconv"

// statusName is the String of the status enums: Java's name from the enum's table, or
// typ(n) for a value outside it.
func statusName[S ~int](names []string, s S, typ string) string {
	if s >= 0 && int(s) < len(names) {
		return names[s]
	}
	return typ + "(" + strconv.Itoa(int(s)) + ")"
}

// PutMessageStatus is the outcome of a put. The broker maps it one to one to a response code.
// Values follow Java's declaration order; String gives Java's name.
// Mirrors org.apache.rocketmq.store.PutMessageStatus.
type PutMessageStatus int

const (
	PutOK PutMessageStatus = iota
	FlushDiskTimeout
	FlushSlaveTimeout
	SlaveNotAvailable
	ServiceNotAvailable
	CreateMappedFileFailed
	MessageIllegal
	PropertiesSizeExceeded
	OSPageCacheBusy
	UnknownError
	LMQConsumeQueueNumExceeded
)

var putMessageStatusNames = [...]string{
	"PUT_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE",
	"SERVICE_NOT_AVAILABLE", "CREATE_MAPEDFILE_FAILED", "MESSAGE_ILLEGAL",
	"PROPERTIES_SIZE_EXCEEDED", "OS_PAGECACHE_BUSY", "UNKNOWN_ERROR",
	"LMQ_CONSUME_QUEUE_NUM_EXCEEDED",
}

func (s PutMessageStatus) String() string {
	return statusName(putMessageStatusNames[:], s, "PutMessageStatus")
}

// AppendMessageStatus is the outcome of one append into a mapped file.
// Mirrors org.apache.rocketmq.store.AppendMessageStatus.
type AppendMessageStatus int

const (
	AppendPutOK AppendMessageStatus = iota
	// END_OF_FILE: the record did not fit; a blank record was written and the caller must
	// retry at the start of the next file.
	EndOfFile
	MessageSizeExceeded
	AppendPropertiesSizeExceeded
	AppendUnknownError
)

var appendMessageStatusNames = [...]string{
	"PUT_OK", "END_OF_FILE", "MESSAGE_SIZE_EXCEEDED", "PROPERTIES_SIZE_EXCEEDED", "UNKNOWN_ERROR",
}

func (s AppendMessageStatus) String() string {
	return statusName(appendMessageStatusNames[:], s, "AppendMessageStatus")
}

// AppendMessageResult describes one appended record (or batch).
// Mirrors org.apache.rocketmq.store.AppendMessageResult.
type AppendMessageResult struct {
	Status AppendMessageStatus
	// WroteOffset is the CommitLog offset of the first record written.
	WroteOffset CommitLogOffset
	// WroteBytes is the number of bytes the write position advanced (for END_OF_FILE: all bytes
	// left in the file, although only the 8-byte blank record was written).
	WroteBytes int32
	// MsgID is the offsetMsgId: uppercase hex of store host IP + port + WroteOffset; for a batch
	// the ids of all members joined by ','.
	MsgID string
	// StoreTimestamp is the store time in ms taken inside the put lock.
	StoreTimestamp int64
	// LogicsOffset is the queue offset of the (first) message.
	LogicsOffset QueueOffset
	// MsgNum is the number of messages written (1, or the batch size).
	MsgNum int32
}

// IsOk reports Status == PUT_OK. Java: AppendMessageResult#isOk.
func (r *AppendMessageResult) IsOk() bool { return r != nil && r.Status == AppendPutOK }

// PutMessageResult is what a put returns. AppendMessageResult is nil when the message never
// reached the CommitLog (store not writable, message illegal).
// Mirrors org.apache.rocketmq.store.PutMessageResult.
type PutMessageResult struct {
	PutMessageStatus    PutMessageStatus
	AppendMessageResult *AppendMessageResult
}

// IsOk reports whether the message was appended. Java: PutMessageResult#isOk.
func (r PutMessageResult) IsOk() bool {
	return r.AppendMessageResult != nil && r.AppendMessageResult.IsOk()
}

// GetMessageStatus is the outcome of GetMessage. The broker maps it to a pull response code
// (remoting-protocol.md §4.6). Mirrors org.apache.rocketmq.store.GetMessageStatus.
type GetMessageStatus int

const (
	Found GetMessageStatus = iota
	NoMatchedMessage
	MessageWasRemoving
	OffsetFoundNull
	OffsetOverflowBadly
	OffsetOverflowOne
	OffsetTooSmall
	NoMatchedLogicQueue
	NoMessageInQueue
)

var getMessageStatusNames = [...]string{
	"FOUND", "NO_MATCHED_MESSAGE", "MESSAGE_WAS_REMOVING", "OFFSET_FOUND_NULL",
	"OFFSET_OVERFLOW_BADLY", "OFFSET_OVERFLOW_ONE", "OFFSET_TOO_SMALL",
	"NO_MATCHED_LOGIC_QUEUE", "NO_MESSAGE_IN_QUEUE",
}

func (s GetMessageStatus) String() string {
	return statusName(getMessageStatusNames[:], s, "GetMessageStatus")
}

// GetMessageResult is what GetMessage returns. Offsets are ConsumeQueue units.
// Mirrors org.apache.rocketmq.store.GetMessageResult.
type GetMessageResult struct {
	Status GetMessageStatus
	// NextBeginOffset is where the next pull should start.
	NextBeginOffset QueueOffset
	// MinOffset and MaxOffset are the queue's bounds at the time of the read (units).
	MinOffset, MaxOffset QueueOffset
	// Messages are whole stored records (never a blank record), each a copy that stays valid
	// after the file is unmapped. They share one backing array.
	Messages [][]byte
	// MessageQueueOffsets holds each message's queue offset (units), parallel to Messages.
	MessageQueueOffsets []QueueOffset
	// MessageCount is len(Messages); BufferTotalSize the sum of their lengths in bytes.
	MessageCount    int
	BufferTotalSize int
	// SuggestPullingFromSlave is true when the data read lies beyond the in-memory window
	// (accessMessageInMemoryMaxRatio of physical RAM behind the CommitLog end): LagBytes >
	// InMemoryBytes. Java: GetMessageResult#isSuggestPullingFromSlave.
	SuggestPullingFromSlave bool
	// LagBytes is how far the last ConsumeQueue unit looked at (the one that ended a full
	// batch, else the last one read) lies behind the CommitLog's max offset, in CommitLog bytes
	// (Java: maxOffsetPy - maxPhyOffsetPulling); InMemoryBytes is
	// the in-memory window it was compared with (Options.TotalPhysicalMemory ×
	// accessMessageInMemoryMaxRatio / 100). Both are 0 when the ConsumeQueue was not read (the
	// offset outside the queue, or its file gone: OFFSET_FOUND_NULL), as in Java.
	LagBytes, InMemoryBytes int64

	body []byte // the records back to back; Messages are capped slices of it
}

// Body returns the records concatenated: the body of a pull response (remoting-protocol.md §6.1).
// It does not copy: the messages already share one buffer in this order.
func (r *GetMessageResult) Body() []byte {
	if r.body != nil {
		return r.body
	}
	if len(r.Messages) == 0 {
		return nil
	}
	out := make([]byte, 0, r.BufferTotalSize)
	for _, m := range r.Messages {
		out = append(out, m...)
	}
	return out
}
