package store

// The store has two offset spaces, and each has its own type so the compiler keeps them
// apart (both are int64 underneath; the broker converts at the wire, where they stay int64).
type (
	// CommitLogOffset is a position in the CommitLog in bytes, counted from the start of the
	// first file ever written (a file's name is the CommitLog offset of its first byte). A
	// record's PHYSICALOFFSET, a ConsumeQueue unit's commitLogOffset and the offsetMsgId hold
	// one. Java: the long phyOffset / commitLogOffset / wroteOffset.
	CommitLogOffset int64
	// QueueOffset is a position in one ConsumeQueue in units: the n-th message of the queue,
	// counted from 0 (byte n·20 of the queue's files). A record's QUEUEOFFSET, a pull's offset
	// and a consumer group's committed offset hold one. Java: the long queueOffset /
	// consumeQueueOffset / logicOffset.
	QueueOffset int64
)
