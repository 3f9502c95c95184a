package client

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ThreadLocalIndex#incrementAndGet returns seed+1, seed+2, ... with the sign bit cleared, also
// across the int32 overflow.
func TestThreadLocalIndex(t *testing.T) {
	i := NewThreadLocalIndex(-1)
	require.Equal(t, int32(0), i.IncrementAndGet())
	require.Equal(t, int32(1), i.IncrementAndGet())
	i = NewThreadLocalIndex(math.MaxInt32 - 1)
	require.Equal(t, int32(math.MaxInt32), i.IncrementAndGet())
	require.Equal(t, int32(0), i.IncrementAndGet(), "MinInt32 & 0x7FFFFFFF")
	require.Equal(t, int32(1), i.IncrementAndGet())
}

func queues(spec ...string) []primitive.MessageQueue {
	var out []primitive.MessageQueue
	for _, s := range spec {
		var b string
		var n int
		_, _ = fmt.Sscanf(s, "%1s%d", &b, &n)
		for q := range n {
			out = append(out, primitive.MessageQueue{Topic: "T", BrokerName: "broker-" + b, QueueID: int32(q)})
		}
	}
	return out
}

func pick(mq primitive.MessageQueue) string { return fmt.Sprintf("%s/%d", mq.BrokerName, mq.QueueID) }

// TopicPublishInfo#selectOneMessageQueue: plain round robin without lastBrokerName; with it, the
// next queue not on that broker (the index moves once per look); the plain next queue when all
// queues are on it; ok=false for an empty list.
func TestTopicPublishInfoSelectOneMessageQueue(t *testing.T) {
	for _, tc := range []struct {
		name   string
		queues []primitive.MessageQueue
		seed   int32
		last   string
		want   []string
	}{
		{"round robin", queues("a2", "b2"), -1, "", []string{"broker-a/0", "broker-a/1", "broker-b/0", "broker-b/1", "broker-a/0"}},
		{"skip last broker", queues("a2", "b2"), -1, "broker-a", []string{"broker-b/0", "broker-b/1", "broker-b/0"}},
		{"skip from b", queues("a2", "b2"), 1, "broker-b", []string{"broker-a/0", "broker-a/1", "broker-a/0"}},
		{"only last broker", queues("a2"), -1, "broker-a", []string{"broker-a/0", "broker-a/1"}},
	} {
		tp := &TopicPublishInfo{MessageQueueList: tc.queues, SendWhichQueue: NewThreadLocalIndex(tc.seed)}
		var got []string
		for range tc.want {
			mq, ok := tp.SelectOneMessageQueue(tc.last)
			require.True(t, ok)
			got = append(got, pick(mq))
		}
		require.Equal(t, tc.want, got, tc.name)
	}
	_, ok := (&TopicPublishInfo{SendWhichQueue: NewThreadLocalIndex(0)}).SelectOneMessageQueue("")
	require.False(t, ok)
}

// MQClientInstance#topicRouteData2TopicPublishInfo: queue data in broker-name order, only
// writable ones, only brokers with a master, writeQueueNums queues each; an orderTopicConf
// replaces all that. getQueueIdByBroker answers writeQueueNums of writable data, else -1.
func TestTopicRouteData2TopicPublishInfo(t *testing.T) {
	r := route(
		routeBroker{"broker-c", 2, 6, map[int64]string{0: "c:1"}},
		routeBroker{"broker-a", 3, 6, map[int64]string{0: "a:1", 1: "a:2"}},
		routeBroker{"broker-r", 4, 4, map[int64]string{0: "r:1"}}, // read-only
		routeBroker{"broker-s", 4, 6, map[int64]string{1: "s:2"}}, // no master
		routeBroker{"broker-b", 1, 7, map[int64]string{0: "b:1"}})
	info := TopicRouteData2TopicPublishInfo("T", r, -1, nil)
	var got []string
	for _, mq := range info.MessageQueueList {
		require.Equal(t, "T", mq.Topic)
		got = append(got, pick(mq))
	}
	require.Equal(t, []string{"broker-a/0", "broker-a/1", "broker-a/2", "broker-b/0", "broker-c/0", "broker-c/1"}, got)
	require.False(t, info.OrderTopic)
	require.Equal(t, int32(3), info.GetQueueIDByBroker("broker-a"))
	require.Equal(t, int32(-1), info.GetQueueIDByBroker("broker-r"), "not writable")
	require.Equal(t, int32(-1), info.GetQueueIDByBroker("broker-x"))
	require.Equal(t, "broker-c", r.QueueDatas[0].BrokerName, "the caller's route is not reordered")

	r.OrderTopicConf = "broker-b:2;broker-a:1"
	info = TopicRouteData2TopicPublishInfo("T", r, -1, nil)
	require.True(t, info.OrderTopic)
	require.Len(t, info.MessageQueueList, 3)
	require.Equal(t, "broker-b/1", pick(info.MessageQueueList[1]))
	require.Equal(t, "broker-a/0", pick(info.MessageQueueList[2]))

	sub := TopicRouteData2TopicSubscribeInfo("T", route(routeBroker{"b", 2, 2, nil}, routeBroker{"a", 1, 4, nil}))
	require.Equal(t, []primitive.MessageQueue{{Topic: "T", BrokerName: "a", QueueID: 0}}, sub, "readable data only")
}

// MQClientInstance#topicRouteDataIsChange compares routes sorted by broker name.
func TestTopicRouteDataIsChange(t *testing.T) {
	a := routeBroker{"broker-a", 4, 6, map[int64]string{0: "a:1"}}
	b := routeBroker{"broker-b", 4, 6, map[int64]string{0: "b:1"}}
	require.True(t, topicRouteDataIsChange(nil, route(a)))
	require.False(t, topicRouteDataIsChange(route(a, b), route(b, a)), "order does not matter")
	b2 := b
	b2.queues = 8
	require.True(t, topicRouteDataIsChange(route(a, b), route(a, b2)))
	b3 := b
	b3.addrs = map[int64]string{0: "b:1", 1: "b:2"}
	require.True(t, topicRouteDataIsChange(route(a, b), route(a, b3)), "a new slave is a change")
	require.False(t, topicRouteDataIsChange(&protocol.TopicRouteData{}, &protocol.TopicRouteData{QueueDatas: []*protocol.QueueData{}}))
}
