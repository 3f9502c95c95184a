package consumer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

var pqEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func pqMsgs(bodyLen int, offsets ...int64) []*primitive.MessageExt {
	out := make([]*primitive.MessageExt, len(offsets))
	for i, o := range offsets {
		out[i] = &primitive.MessageExt{QueueOffset: o, Message: primitive.Message{Body: make([]byte, bodyLen)}}
	}
	return out
}

// TestProcessQueuePutMessage pins ProcessQueue#putMessage: the tree (msgTreeMap) is keyed and
// ordered by queue offset whatever the arrival order, a duplicate offset is ignored (not counted
// twice), msgCount/msgSize/maxSpan are what the pull path's flow control compares, and the
// consume service is handed the batch only when no consumption is already marked running.
func TestProcessQueuePutMessage(t *testing.T) {
	pq := NewProcessQueue(pqEpoch)
	require.Zero(t, pq.MaxSpan(), "empty queue has span 0")
	require.True(t, pq.PutMessage(pqMsgs(10, 5, 3, 9)))
	require.Equal(t, []int64{3, 5, 9}, pq.Offsets())
	require.False(t, pq.PutMessage(pqMsgs(10, 5, 7)), "consuming already set: no second dispatch")
	require.Equal(t, []int64{3, 5, 7, 9}, pq.Offsets())
	require.Equal(t, int64(4), pq.MsgCount(), "offset 5 again is not counted twice")
	require.Equal(t, int64(40), pq.MsgSize(), "body bytes")
	require.Equal(t, int64(6), pq.MaxSpan(), "9 - 3")
}

// TestProcessQueueRemoveMessage pins ProcessQueue#removeMessage: the answer is the smallest
// offset still held after out-of-order removals, queueOffsetMax+1 once empty, -1 on an
// already-empty tree; the counters follow, and removing an unknown offset changes nothing.
func TestProcessQueueRemoveMessage(t *testing.T) {
	pq := NewProcessQueue(pqEpoch)
	require.Equal(t, int64(-1), pq.RemoveMessage(pqMsgs(1, 0)), "empty tree")
	ms := pqMsgs(100, 10, 11, 12, 13)
	pq.PutMessage(ms)
	tests := []struct {
		name   string
		remove []*primitive.MessageExt
		want   int64
		count  int64
		size   int64
		span   int64
	}{
		{"the last one first", ms[3:4], 10, 3, 300, 2},
		{"a middle one", ms[1:2], 10, 2, 200, 2},
		{"an unknown offset", pqMsgs(100, 99), 10, 2, 200, 2},
		{"the head: 12 is next", ms[0:1], 12, 1, 100, 0},
		{"the rest: queueOffsetMax+1", ms[2:3], 14, 0, 0, 0},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, pq.RemoveMessage(tt.remove), tt.name)
		require.Equal(t, tt.count, pq.MsgCount(), tt.name)
		require.Equal(t, tt.size, pq.MsgSize(), tt.name)
		require.Equal(t, tt.span, pq.MaxSpan(), tt.name)
	}
}

// TestProcessQueueMsgAccCnt pins the backlog note of ProcessQueue#putMessage: MAX_OFFSET of the
// last message minus its queue offset, kept when positive.
func TestProcessQueueMsgAccCnt(t *testing.T) {
	pq := NewProcessQueue(pqEpoch)
	ms := pqMsgs(1, 4, 5)
	ms[1].PutProperty(primitive.PropertyMaxOffset, "20")
	pq.PutMessage(ms)
	require.Equal(t, int64(15), pq.MsgAccCnt())
}

// TestProcessQueuePullExpired pins ProcessQueue#isPullExpired: 120 s without a pull, strictly more.
func TestProcessQueuePullExpired(t *testing.T) {
	pq := NewProcessQueue(pqEpoch)
	require.False(t, pq.IsPullExpired(pqEpoch.Add(PullMaxIdleTime)))
	require.True(t, pq.IsPullExpired(pqEpoch.Add(PullMaxIdleTime+time.Millisecond)))
	pq.SetLastPullTimestamp(pqEpoch.Add(time.Minute))
	require.False(t, pq.IsPullExpired(pqEpoch.Add(PullMaxIdleTime+time.Millisecond)))
}
