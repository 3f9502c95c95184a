package store

import (
	"sync"
	"sync/atomic"
)

// statsSamples is how many once-a-second samples StoreStatsService keeps: ten minutes and the
// newest, enough for the 600 s rate.
const statsSamples = 601

// StoreStatsService counts what the store took in and handed out since it was created — the
// messages appended (a batch counts each message) and the messages GetMessage returned — and
// keeps a once-a-second sample of both totals for the last ten minutes, from which TPS derives
// the rates over 10, 60 and 600 s. The broker's GET_BROKER_RUNTIME_INFO reports them
// (msgPutTotalTodayNow, msgGetTotalTodayNow, putTps, getTransferedTps). The totals are
// atomics; mu guards the samples. The store samples every second on a ServiceThread of its own
// ("StoreStatsService"), not under ManualServices, where a test calls Sample.
// Mirrors org.apache.rocketmq.store.StoreStatsService (putMessageTimesTotal,
// getMessageTransferedMsgCount, the put and get snapshot lists, getPutTps, getGetTransferedTps).
type StoreStatsService struct {
	putMessageTimesTotal         atomic.Int64
	getMessageTransferedMsgCount atomic.Int64

	mu      sync.Mutex
	samples []statsSample // oldest first
}

// statsSample is both totals at a store time (ms).
type statsSample struct{ at, puts, gets int64 }

// PutMessageTimesTotal is the number of messages appended so far.
func (s *StoreStatsService) PutMessageTimesTotal() int64 { return s.putMessageTimesTotal.Load() }

// GetMessageTransferedMsgCount is the number of messages GetMessage returned so far.
func (s *StoreStatsService) GetMessageTransferedMsgCount() int64 {
	return s.getMessageTransferedMsgCount.Load()
}

// Sample records both totals at nowMs (store time, ms), dropping samples older than ten
// minutes' worth. Java: StoreStatsService#sampling.
func (s *StoreStatsService) Sample(nowMs int64) {
	smp := statsSample{at: nowMs, puts: s.PutMessageTimesTotal(), gets: s.GetMessageTransferedMsgCount()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, smp)
	if n := len(s.samples); n > statsSamples {
		s.samples = append(s.samples[:0], s.samples[n-statsSamples:]...)
	}
}

// TPS returns the put and get rates (messages per second) between the newest sample and the one
// seconds samples before it; 0, 0 while there are not that many samples yet.
// Java: StoreStatsService#getPutTps(int), #getGetTransferedTps(int).
func (s *StoreStatsService) TPS(seconds int) (put, get float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.samples)
	if seconds <= 0 || n <= seconds {
		return 0, 0
	}
	last, before := s.samples[n-1], s.samples[n-1-seconds]
	dt := float64(last.at-before.at) / 1000
	if dt <= 0 {
		return 0, 0
	}
	return float64(last.puts-before.puts) / dt, float64(last.gets-before.gets) / dt
}

// countPut adds an append's messages when it succeeded.
func (s *StoreStatsService) countPut(r PutMessageResult) {
	if r.AppendMessageResult.IsOk() {
		s.putMessageTimesTotal.Add(int64(r.AppendMessageResult.MsgNum))
	}
}

// StoreStatsService is the store's counters. Java: DefaultMessageStore#getStoreStatsService.
func (s *DefaultMessageStore) StoreStatsService() *StoreStatsService { return &s.stats }
