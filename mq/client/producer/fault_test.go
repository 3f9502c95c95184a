package producer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// The tables of MQFaultStrategy in rocketmq-all-4.9.8 (client/.../latency/MQFaultStrategy.java),
// as literals.
func TestFaultTables(t *testing.T) {
	require.Equal(t, []int64{50, 100, 550, 1000, 2000, 3000, 15000}, defaultLatencyMax)
	require.Equal(t, []int64{0, 0, 30000, 60000, 120000, 180000, 600000}, defaultNotAvailableDuration)
	require.Equal(t, 30000, isolationLatency)
}

// MQFaultStrategy#computeNotAvailableDuration takes the largest row the latency reaches.
func TestComputeNotAvailableDuration(t *testing.T) {
	s := NewMQFaultStrategy(nil, nil, clock.NewManualMillis(0), 0, nil)
	for _, tc := range []struct{ latency, want int64 }{
		{0, 0}, {49, 0}, {50, 0}, {549, 0}, {550, 30000}, {1000, 60000}, {1999, 60000},
		{2000, 120000}, {3000, 180000}, {15000, 600000}, {30000, 600000},
	} {
		require.Equal(t, tc.want, s.ComputeNotAvailableDuration(tc.latency), "latency %d", tc.latency)
	}
	custom := NewMQFaultStrategy([]int64{10}, []int64{5}, clock.NewManualMillis(0), 0, nil)
	require.Equal(t, int64(5), custom.ComputeNotAvailableDuration(10))
	require.Equal(t, int64(0), custom.ComputeNotAvailableDuration(9))
}

func newMsClock() *clock.Manual { return clock.NewManualMillis(1_700_000_000_000) }

func publishInfo(seed int32, brokers ...string) *client.TopicPublishInfo {
	r := &protocol.TopicRouteData{}
	for _, b := range brokers {
		r.QueueDatas = append(r.QueueDatas, &protocol.QueueData{BrokerName: b, ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6})
		r.BrokerDatas = append(r.BrokerDatas, &protocol.BrokerData{BrokerName: b, BrokerAddrs: map[int64]string{0: b + ":1"}})
	}
	return client.TopicRouteData2TopicPublishInfo("T", r, seed, nil)
}

func mqName(mq primitive.MessageQueue) string {
	return mq.BrokerName + "/" + string(rune('0'+mq.QueueID))
}

// MQFaultStrategy#selectOneMessageQueue, off: TopicPublishInfo's round robin away from the last
// broker; on: the first queue (from the index on) whose broker is available, lastBrokerName
// ignored; every broker marked: pickOneAtLeast's broker with queue (next index) % writeQueueNums.
func TestSelectOneMessageQueue(t *testing.T) {
	clk := newMsClock()
	s := NewMQFaultStrategy(nil, nil, clk, -1, nil)
	tp := publishInfo(-1, "a", "b") // a/0 a/1 b/0 b/1
	mq, ok := s.SelectOneMessageQueue(tp, "a")
	require.True(t, ok)
	require.Equal(t, "b/0", mqName(mq), "off: skip the last broker")

	s.SetSendLatencyFaultEnable(true)
	tp = publishInfo(-1, "a", "b")
	mq, _ = s.SelectOneMessageQueue(tp, "a")
	require.Equal(t, "a/0", mqName(mq), "on, nothing marked: lastBrokerName plays no part")
	s.UpdateFaultItem("a", 10, true)
	var got []string
	for range 4 {
		mq, _ = s.SelectOneMessageQueue(tp, "")
		got = append(got, mqName(mq))
	}
	require.Equal(t, []string{"b/0", "b/0", "b/1", "b/0"}, got, "a is skipped; the shared index moves once per selection")

	s.UpdateFaultItem("b", 600, false) // 30 s
	mq, _ = s.SelectOneMessageQueue(tp, "")
	require.Equal(t, "a", mq.BrokerName, "both marked: the lower currentLatency wins, even a failed broker's")
	require.Equal(t, int32(1), mq.QueueID, "index 5 found nothing, 6 went to the round robin, 7 % 2 = 1")

	clk.Advance(30000 * time.Millisecond)
	mq, _ = s.SelectOneMessageQueue(tp, "")
	require.Equal(t, "b", mq.BrokerName, "b's 30 s are over")

	s.SetSendLatencyFaultEnable(false)
	s.UpdateFaultItem("b", 99999, true)
	require.True(t, s.LatencyFaultTolerance().IsAvailable("b"), "off: nothing is recorded")
}

// pickOneAtLeast on a broker the route does not write to removes that broker's item and falls
// back to the round robin (MQFaultStrategy: writeQueueNums ≤ 0 → latencyFaultTolerance.remove).
func TestSelectOneMessageQueueRemovesAStrangeBroker(t *testing.T) {
	clk := newMsClock()
	s := NewMQFaultStrategy(nil, nil, clk, -1, nil)
	s.SetSendLatencyFaultEnable(true)
	tp := publishInfo(-1, "a")
	s.UpdateFaultItem("a", 5000, false) // 180 s
	s.UpdateFaultItem("gone", 1, true)  // lower latency: picked first
	mq, ok := s.SelectOneMessageQueue(tp, "")
	require.True(t, ok)
	require.Equal(t, "a", mq.BrokerName)
	names := []string{}
	for _, it := range s.LatencyFaultTolerance().FaultItems() {
		names = append(names, it.Name())
	}
	require.Equal(t, []string{"a"}, names)
	_, ok = s.SelectOneMessageQueue(&client.TopicPublishInfo{SendWhichQueue: client.NewThreadLocalIndex(0)}, "")
	require.False(t, ok, "an empty route")
}

// LatencyFaultToleranceImpl: no item is available; an item is available from its
// startTimestamp = now + notAvailableDuration on; updates overwrite; remove forgets;
// pickOneAtLeast of an empty table is "".
func TestLatencyFaultToleranceImpl(t *testing.T) {
	clk := newMsClock()
	l := NewLatencyFaultTolerance(clk, 0, nil)
	require.True(t, l.IsAvailable("a"))
	require.Equal(t, "", l.PickOneAtLeast())
	l.UpdateFaultItem("a", 700, 30000)
	item := l.FaultItems()[0]
	require.Equal(t, int64(700), item.CurrentLatency())
	require.Equal(t, clock.Millis(clk)+30000, item.StartTimestamp())
	require.False(t, l.IsAvailable("a"))
	clk.Advance(29999 * time.Millisecond)
	require.False(t, item.IsAvailable())
	clk.Advance(1 * time.Millisecond)
	require.True(t, item.IsAvailable(), "now − startTimestamp ≥ 0")
	l.UpdateFaultItem("a", 1, 10)
	require.Same(t, item, l.FaultItems()[0], "the item is updated in place")
	require.False(t, l.IsAvailable("a"))
	require.Equal(t, "a", l.PickOneAtLeast())
	l.Remove("a")
	require.True(t, l.IsAvailable("a"))
	require.Empty(t, l.FaultItems())
}

// FaultItem#compareTo: available first, then lower currentLatency, then earlier startTimestamp.
func TestFaultItemCompareTo(t *testing.T) {
	clk := newMsClock()
	l := NewLatencyFaultTolerance(clk, 0, nil)
	get := func(name string) *FaultItem {
		for _, it := range l.FaultItems() {
			if it.Name() == name {
				return it
			}
		}
		return nil
	}
	l.UpdateFaultItem("avail-slow", 5000, 0)
	l.UpdateFaultItem("marked-fast", 10, 1000)
	l.UpdateFaultItem("marked-slow", 20, 1000)
	l.UpdateFaultItem("marked-slow-later", 20, 2000)
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"avail-slow", "marked-fast", -1},
		{"marked-fast", "avail-slow", 1},
		{"marked-fast", "marked-slow", -1},
		{"marked-slow", "marked-slow-later", -1},
		{"marked-slow-later", "marked-slow", 1},
		{"marked-slow", "marked-slow", 0},
	} {
		require.Equal(t, tc.want, get(tc.a).CompareTo(get(tc.b)), "%s vs %s", tc.a, tc.b)
	}
}
