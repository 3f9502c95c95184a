package store

import "sync/atomic"

// StoreStatsService counts what the store took in and handed out since it was created: the
// messages appended (a batch counts each message) and the messages GetMessage returned. The
// broker's GET_BROKER_RUNTIME_INFO reports them (msgPutTotalTodayNow, msgGetTotalTodayNow).
// Both are atomics, read and written without a lock.
// Mirrors org.apache.rocketmq.store.StoreStatsService (its totals: putMessageTimesTotal,
// getMessageTransferedMsgCount).
//
// Deviation: Java's service also samples the totals every second on a thread of its own and
// derives the TPS figures (putTps, getTransferedTps) from the samples; that is not built.
type StoreStatsService struct {
	putMessageTimesTotal         atomic.Int64
	getMessageTransferedMsgCount atomic.Int64
}

// PutMessageTimesTotal is the number of messages appended so far.
func (s *StoreStatsService) PutMessageTimesTotal() int64 { return s.putMessageTimesTotal.Load() }

// GetMessageTransferedMsgCount is the number of messages GetMessage returned so far.
func (s *StoreStatsService) GetMessageTransferedMsgCount() int64 {
	return s.getMessageTransferedMsgCount.Load()
}

// countPut adds an append's messages when it succeeded.
func (s *StoreStatsService) countPut(r PutMessageResult) {
	if r.AppendMessageResult.IsOk() {
		s.putMessageTimesTotal.Add(int64(r.AppendMessageResult.MsgNum))
	}
}

// StoreStatsService is the store's counters. Java: DefaultMessageStore#getStoreStatsService.
func (s *DefaultMessageStore) StoreStatsService() *StoreStatsService { return &s.stats }
