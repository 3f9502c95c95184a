package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTaggedHeaderWireForms pins the extFields the tag-coded headers write, built by hand from
// Java's header classes: required fields always, `optional` ones always, `omitempty` ones
// only when set, a `has=` field only when its flag is set. An encoder and decoder driven by one
// description can agree with each other and still write the wrong keys; this cannot.
func TestTaggedHeaderWireForms(t *testing.T) {
	cases := []struct {
		h    any
		want map[string]string
	}{
		{&QueryConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "t", QueueID: 3},
			map[string]string{"consumerGroup": "g", "topic": "t", "queueId": "3"}},
		{&UpdateConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "t", QueueID: 1, CommitOffset: -9, BrokerName: "b"},
			map[string]string{"consumerGroup": "g", "topic": "t", "queueId": "1", "commitOffset": "-9", "bname": "b"}},
		{&CreateTopicRequestHeader{Topic: "t", DefaultTopic: "TBW102", ReadQueueNums: 8, WriteQueueNums: 4, Perm: 6, TopicFilterType: SingleTag},
			map[string]string{"topic": "t", "defaultTopic": "TBW102", "readQueueNums": "8", "writeQueueNums": "4", "perm": "6",
				"topicFilterType": "SINGLE_TAG", "topicSysFlag": "0", "order": "false"}},
		{&RegisterBrokerRequestHeader{BrokerName: "b", BrokerAddr: "a:1", ClusterName: "c", HaServerAddr: "a:2"},
			map[string]string{"brokerName": "b", "brokerAddr": "a:1", "clusterName": "c", "haServerAddr": "a:2", "brokerId": "0",
				"compressed": "false", "bodyCrc32": "0"}},
		{&RegisterBrokerResponseHeader{}, map[string]string{}},
		{&GetKVConfigResponseHeader{}, map[string]string{"value": ""}},
		{&GetRouteInfoRequestHeader{Topic: "t"}, map[string]string{"topic": "t"}},
		{&GetRouteInfoRequestHeader{Topic: "t", AcceptStandardJSONOnly: true}, map[string]string{"topic": "t", "acceptStandardJsonOnly": "true"}},
		{&QueryDataVersionResponseHeader{}, map[string]string{"changed": "false"}},
		{&ConsumerSendMsgBackRequestHeader{Offset: 4096, Group: "g", DelayLevel: 3, MaxReconsumeTimes: 16},
			map[string]string{"offset": "4096", "group": "g", "delayLevel": "3", "unitMode": "false"}},
		{&ConsumerSendMsgBackRequestHeader{Offset: 1, Group: "g", HasMaxReconsumeTimes: true},
			map[string]string{"offset": "1", "group": "g", "delayLevel": "0", "unitMode": "false", "maxReconsumeTimes": "0"}},
		{&QueryMessageRequestHeader{Topic: "t", Key: "k", MaxNum: 32, EndTimestamp: 9},
			map[string]string{"topic": "t", "key": "k", "maxNum": "32", "beginTimestamp": "0", "endTimestamp": "9"}},
		{&ViewMessageRequestHeader{Offset: 0}, map[string]string{"offset": "0"}},
		{&CheckTransactionStateRequestHeader{TranStateTableOffset: 1, CommitLogOffset: 2, OffsetMsgID: "o"},
			map[string]string{"tranStateTableOffset": "1", "commitLogOffset": "2", "offsetMsgId": "o"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, EncodeHeader(c.h), "%T", c.h)
	}
}

// A `has=` field records presence; decoding zeroes what the map does not hold, so a reused
// header keeps nothing of its last value.
func TestTaggedHeaderDecode(t *testing.T) {
	h := ConsumerSendMsgBackRequestHeader{OriginTopic: "stale", HasMaxReconsumeTimes: true, MaxReconsumeTimes: 9}
	require.NoError(t, DecodeHeader(map[string]string{"offset": "1", "group": "g", "delayLevel": "2"}, &h))
	require.Equal(t, ConsumerSendMsgBackRequestHeader{Offset: 1, Group: "g", DelayLevel: 2}, h)
	require.NoError(t, DecodeHeader(map[string]string{"offset": "1", "group": "g", "delayLevel": "2", "maxReconsumeTimes": "0"}, &h))
	require.True(t, h.HasMaxReconsumeTimes)
	err := DecodeHeader(map[string]string{"offset": "1", "group": "g", "delayLevel": "2", "maxReconsumeTimes": "x"}, &h)
	require.ErrorIs(t, err, ErrBadField)
	require.ErrorContains(t, err, `"maxReconsumeTimes"="x" is not an int32`)
	err = DecodeHeader(map[string]string{"group": "g", "delayLevel": "2"}, &h)
	require.ErrorIs(t, err, ErrMissingField)
	require.ErrorContains(t, err, `"offset"`)
}

// A tag the codec cannot code is a programmer error, found on first use.
func TestTaggedHeaderBadTags(t *testing.T) {
	type unknownOption struct {
		A string `ext:"a,sometimes"`
	}
	type badHas struct {
		A int32 `ext:"a,has=Nope"`
	}
	type badKind struct {
		A float64 `ext:"a"`
	}
	type noTags struct {
		A string
	}
	require.PanicsWithValue(t, `protocol: unknownOption.A: unknown ext option "sometimes"`, func() { _ = EncodeHeader(&unknownOption{}) })
	require.Panics(t, func() { _ = DecodeHeader(map[string]string{}, &badHas{}) })
	require.Panics(t, func() { _ = EncodeHeader(&badKind{}) })
	require.PanicsWithValue(t, "protocol: noTags has no ext tags: not a header",
		func() { _ = DecodeHeader(map[string]string{"a": "x"}, &noTags{}) },
		"a hand-coded header missing from DecodeHeader's switch is found, not decoded as empty")
}
