package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStoreStatsCountPutsAndGets: every appended message counts once, a refused put not at
// all; GetMessage counts the messages it returned, a read that finds none nothing. Java:
// StoreStatsService#getPutMessageTimesTotal, #getGetMessageTransferedMsgCount.
func TestStoreStatsCountPutsAndGets(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for range 3 {
		put(t, s, newMsg("T", 0, "body", ""))
	}
	long := newMsg(string(make([]byte, 200)), 0, "body", "")
	require.Equal(t, MessageIllegal, s.PutMessage(long).PutMessageStatus)
	require.Equal(t, int64(3), s.StoreStatsService().PutMessageTimesTotal())

	s.DoReput()
	require.Len(t, s.GetMessage("g", "T", 0, 1, 32, nil).Messages, 2)
	require.Equal(t, NoMatchedLogicQueue, s.GetMessage("g", "Other", 0, 0, 32, nil).Status)
	require.Equal(t, int64(2), s.StoreStatsService().GetMessageTransferedMsgCount())
}

// TestStoreStatsTPS: the rate over N seconds is the growth of a total between the newest
// sample and the one N samples before, per second of store time; 0 until there are N+1
// samples; samples older than ten minutes are dropped. Java: StoreStatsService#getPutTps.
func TestStoreStatsTPS(t *testing.T) {
	var s StoreStatsService
	for i := range 11 {
		s.putMessageTimesTotal.Add(int64(i * 10)) // 0, 10, 20, ... more each second
		s.getMessageTransferedMsgCount.Add(5)
		s.Sample(int64(i) * 1000)
		if i < 10 {
			put, get := s.TPS(10)
			require.Zero(t, put, "sample %d", i)
			require.Zero(t, get)
		}
	}
	put, get := s.TPS(10)
	require.InDelta(t, float64(550-0)/10, put, 1e-9, "totals 0 and 550, 10 s apart")
	require.InDelta(t, 5.0, get, 1e-9)
	put, _ = s.TPS(1)
	require.InDelta(t, 100.0, put, 1e-9)
	for i := range 700 {
		s.Sample(int64(11+i) * 1000)
	}
	require.Len(t, s.samples, statsSamples)
	put, _ = s.TPS(600)
	require.Zero(t, put, "no puts in the last 700 samples")
}
