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
