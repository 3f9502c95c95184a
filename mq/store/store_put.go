package store

import (
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// PutMessage stores one message. With ASYNC_FLUSH it returns when the message is appended
// (not yet on disk); with SYNC_FLUSH, unless its WAIT property is false, when its record is
// flushed (PUT_OK) or syncFlushTimeout passed first (FLUSH_DISK_TIMEOUT: stored, durability
// unknown). msg's StoreTimestamp, BodyCRC and SysFlag (IPv6 host bits) are set; a delayed
// message (DELAY > 0) is redirected to SCHEDULE_TOPIC_XXXX. Java: DefaultMessageStore#putMessage
// → #asyncPutMessage.
func (s *DefaultMessageStore) PutMessage(msg *primitive.MessageExtBrokerInner) PutMessageResult {
	return waitPut(s.putMessage(msg))
}

// AsyncPutMessage is PutMessage delivering its result on a channel: filled at once, or under
// SYNC_FLUSH (WAIT not false) when the flush completes or times out — no goroutine waits in
// between. Java: DefaultMessageStore#asyncPutMessage.
func (s *DefaultMessageStore) AsyncPutMessage(msg *primitive.MessageExtBrokerInner) <-chan PutMessageResult {
	return putChan(s.putMessage(msg))
}

// PutMessageOrWait is AsyncPutMessage without a channel where none is needed: when the put is
// final at once (ASYNC_FLUSH, WAIT false, or refused) wait is nil and r is the result; under
// SYNC_FLUSH (WAIT not false) r is zero and wait delivers the result once the flush completes
// or times out. The broker's send path uses it, so an ASYNC_FLUSH put allocates no channel.
func (s *DefaultMessageStore) PutMessageOrWait(msg *primitive.MessageExtBrokerInner) (r PutMessageResult, wait <-chan PutMessageResult) {
	return readyOrWait(s.putMessage(msg))
}

// readyOrWait is a put's result now, or the channel its flush request answers on.
func readyOrWait(r PutMessageResult, req *GroupCommitRequest) (PutMessageResult, <-chan PutMessageResult) {
	if req != nil {
		return PutMessageResult{}, req.out
	}
	return r, nil
}

// waitPut is a put's final result: at once, or when its flush request completes.
func waitPut(r PutMessageResult, req *GroupCommitRequest) PutMessageResult {
	if req != nil {
		return <-req.out
	}
	return r
}

// putChan delivers a put's final result on a channel.
func putChan(r PutMessageResult, req *GroupCommitRequest) <-chan PutMessageResult {
	if req != nil {
		return req.out
	}
	ch := make(chan PutMessageResult, 1)
	ch <- r
	return ch
}

func (s *DefaultMessageStore) putMessage(msg *primitive.MessageExtBrokerInner) (PutMessageResult, *GroupCommitRequest) {
	tr := s.env.tracer
	tracing := tr.Enabled()
	if tracing {
		tr.Step("DefaultMessageStore#asyncPutMessage", slog.String("topic", msg.Topic),
			slog.Int("queueId", int(msg.QueueID)), slog.Int("bodyLength", len(msg.Body)))
	}
	st := s.checkStoreStatus()
	if tracing {
		tr.Step("DefaultMessageStore#checkStoreStatus", slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	st = s.checkMessage(msg)
	if tracing {
		tr.Step("DefaultMessageStore#checkMessage", slog.String("status", st.String()))
	}
	if st != PutOK {
		return PutMessageResult{PutMessageStatus: st}, nil
	}
	// LMQ (light message queues, INNER_MULTI_DISPATCH) is not supported: the check always passes.
	if tracing {
		tr.Step("DefaultMessageStore#checkLmqMessage", slog.String("status", PutOK.String()))
	}
	r, req := s.commitLog.asyncPutMessage(msg)
	s.stats.countPut(r)
	return r, req
}

// checkStoreStatus refuses puts with SERVICE_NOT_AVAILABLE when shut down, on a slave and
// when not writable (disk above diskSpaceWarningLevelRatio, a ConsumeQueue or index write
// failed), and with OS_PAGECACHE_BUSY when a put has held the put lock longer than
// osPageCacheBusyTimeOutMills. Java: DefaultMessageStore#checkStoreStatus.
func (s *DefaultMessageStore) checkStoreStatus() PutMessageStatus {
	switch {
	case s.flags.shutdown.Load():
		return ServiceNotAvailable
	case s.cfg.BrokerRole == Slave:
		return ServiceNotAvailable
	case !s.flags.isWriteable():
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
	diff := s.commitLog.lockTimeMills()
	return diff > 0 && diff < 10000000 && diff > s.cfg.OSPageCacheBusyTimeout.Milliseconds()
}

// LockTimeMills is how long (ms) the current put has held the put lock, 0 if free.
// Java: DefaultMessageStore#lockTimeMills.
func (s *DefaultMessageStore) LockTimeMills() int64 { return s.commitLog.lockTimeMills() }

// IsDiskFull reports whether the last disk check marked the disk full (puts are refused).
func (s *DefaultMessageStore) IsDiskFull() bool { return s.flags.diskFull.Load() }

// AppendToCommitLog writes raw CommitLog bytes (a master's, on a slave) at startOffset, which
// must be the current end of the log; data must not cross a file end. The reput service then
// dispatches them. Bytes that show the master's files are not this store's
// mappedFileSizeCommitLog — no file start on an empty log, a body crossing a file end, a
// BLANK record ending the master's file inside this one — are refused whole with an error
// wrapping ErrFileSizeMismatch; nothing is written.
// Java: DefaultMessageStore#appendToCommitLog → CommitLog#appendData.
func (s *DefaultMessageStore) AppendToCommitLog(startOffset CommitLogOffset, data []byte) error {
	if s.flags.shutdown.Load() {
		return fmt.Errorf("store: append to commitlog: %w", ErrNotLoaded)
	}
	return s.commitLog.appendData(startOffset, data)
}
