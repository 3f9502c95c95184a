package protocol

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
)

// clientGoSendV1 is the extFields map client-go's SendMessageRequestHeader.Encode produces for
// a single send (remoting-protocol.md §4.3): every key present, values as strings.
func clientGoSendV1() map[string]string {
	return map[string]string{
		"producerGroup": "pg", "topic": "TopicTest", "queueId": "2", "sysFlag": "4",
		"bornTimestamp": "1700000000000", "flag": "0", "reconsumeTimes": "0", "unitMode": "false",
		"maxReconsumeTimes": "0", "defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "batch": "false",
		"properties": "TAGS\x01TagA\x02UNIQ_KEY\x01C0A80001\x02", "bname": "broker-a",
	}
}

// clientGoSendV2 is the single-letter map of SEND_BATCH_MESSAGE (§4.4).
func clientGoSendV2() map[string]string {
	return map[string]string{
		"a": "pg", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "2", "f": "0", "g": "1700000000000",
		"h": "0", "i": "", "j": "0", "k": "false", "l": "0", "m": "true", "n": "broker-a",
	}
}

// TestSendMessageRequestHeaderV1AndV2 pins SendMessageRequestHeader decoding of client-go's V1
// map and SendMessageRequestHeaderV2's single-letter keys into the same struct.
func TestSendMessageRequestHeaderV1AndV2(t *testing.T) {
	var v1 SendMessageRequestHeader
	require.NoError(t, DecodeHeader(clientGoSendV1(), &v1))
	require.Equal(t, SendMessageRequestHeader{
		ProducerGroup: "pg", Topic: "TopicTest", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4, QueueID: 2,
		SysFlag: 4, BornTimestamp: 1700000000000, Flag: 0, Properties: "TAGS\x01TagA\x02UNIQ_KEY\x01C0A80001\x02",
		ReconsumeTimes: 0, UnitMode: false, MaxReconsumeTimes: 0, HasMaxReconsumeTimes: true, Batch: false,
		BrokerName: "broker-a",
	}, v1)
	require.Equal(t, clientGoSendV1(), EncodeHeader(&v1), "Encode writes what client-go writes")

	v2, err := DecodeSendMessageRequestHeaderV2(clientGoSendV2())
	require.NoError(t, err)
	require.Equal(t, "TopicTest", v2.Topic)
	require.Equal(t, int32(2), v2.QueueID)
	require.True(t, v2.Batch)
	require.Equal(t, "broker-a", v2.BrokerName)
	require.Equal(t, clientGoSendV2(), v2.EncodeV2())

	// Java's SEND_MESSAGE without the nullable fields.
	minimal := clientGoSendV1()
	for _, k := range []string{"properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch", "bname"} {
		delete(minimal, k)
	}
	var h SendMessageRequestHeader
	require.NoError(t, DecodeHeader(minimal, &h))
	require.False(t, h.HasMaxReconsumeTimes, "absent maxReconsumeTimes falls back to the group's retryMaxTimes")
	require.Equal(t, "", h.Properties)
}

// TestHeaderDecodeErrors pins RemotingCommand#decodeCommandCustomHeader's failures: a missing
// @CFNotNull field and an unparsable number are errors naming the field.
func TestHeaderDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		decode  func(map[string]string) error
		ext     map[string]string
		wantErr error
		field   string
	}{
		{"send missing topic", decoder[SendMessageRequestHeader](), without(clientGoSendV1(), "topic"), ErrMissingField, `"topic"`},
		{"send bad queueId", decoder[SendMessageRequestHeader](), with(clientGoSendV1(), "queueId", "x"), ErrBadField, `"queueId"="x"`},
		{"send queueId overflows int32", decoder[SendMessageRequestHeader](), with(clientGoSendV1(), "queueId", "2147483648"), ErrBadField, `"queueId"`},
		{"send bad optional maxReconsumeTimes", decoder[SendMessageRequestHeader](), with(clientGoSendV1(), "maxReconsumeTimes", "1.5"), ErrBadField, `"maxReconsumeTimes"`},
		{"v2 missing b", func(m map[string]string) error { _, err := DecodeSendMessageRequestHeaderV2(m); return err },
			without(clientGoSendV2(), "b"), ErrMissingField, `"b" (topic)`},
		{"pull missing subVersion", decoder[PullMessageRequestHeader](), without(clientGoPull(), "subVersion"), ErrMissingField, `"subVersion"`},
		{"pull bad queueOffset", decoder[PullMessageRequestHeader](), with(clientGoPull(), "queueOffset", " 1"), ErrBadField, `"queueOffset"`},
		{"pull response missing maxOffset", decoder[PullMessageResponseHeader](),
			map[string]string{"suggestWhichBrokerId": "0", "nextBeginOffset": "1", "minOffset": "0"}, ErrMissingField, `"maxOffset"`},
		{"end transaction bad type", decoder[EndTransactionRequestHeader](), map[string]string{
			"producerGroup": "pg", "tranStateTableOffset": "1", "commitLogOffset": "2", "commitOrRollback": "4", "msgId": "m"},
			ErrBadField, `"commitOrRollback"="4"`},
		{"create topic bad filter type", decoder[CreateTopicRequestHeader](), map[string]string{
			"topic": "t", "defaultTopic": "TBW102", "readQueueNums": "8", "writeQueueNums": "8", "perm": "6",
			"topicFilterType": "ALL", "order": "false"}, ErrBadField, `"topicFilterType"`},
		{"create topic missing order", decoder[CreateTopicRequestHeader](), map[string]string{
			"topic": "t", "defaultTopic": "TBW102", "readQueueNums": "8", "writeQueueNums": "8", "perm": "6",
			"topicFilterType": "SINGLE_TAG"}, ErrMissingField, `"order"`},
		{"register broker missing brokerId", decoder[RegisterBrokerRequestHeader](), map[string]string{
			"brokerName": "b", "brokerAddr": "a", "clusterName": "c", "haServerAddr": "h"}, ErrMissingField, `"brokerId"`},
		{"query offset missing group", decoder[QueryConsumerOffsetRequestHeader](), map[string]string{
			"topic": "t", "queueId": "0"}, ErrMissingField, `"consumerGroup"`},
		{"offset response bad", decoder[OffsetResponseHeader](), map[string]string{"offset": "-"}, ErrBadField, `"offset"`},
		{"route missing topic", decoder[GetRouteInfoRequestHeader](), map[string]string{}, ErrMissingField, `"topic"`},
		{"unregister client missing clientID", decoder[UnregisterClientRequestHeader](), map[string]string{"producerGroup": "pg"}, ErrMissingField, `"clientID"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.ext)
			require.ErrorIs(t, err, tt.wantErr)
			require.Contains(t, err.Error(), tt.field)
		})
	}
}

func without(m map[string]string, k string) map[string]string { delete(m, k); return m }
func with(m map[string]string, k, v string) map[string]string { m[k] = v; return m }

// clientGoPull is client-go's PULL_MESSAGE map for a push consumer (§4.6).
func clientGoPull() map[string]string {
	return map[string]string{
		"consumerGroup": "g", "topic": "TopicTest", "queueId": "1", "queueOffset": "42", "maxMsgNums": "32",
		"sysFlag": "3", "commitOffset": "40", "suspendTimeoutMillis": "20000", "subscription": "",
		"subVersion": "0", "expressionType": "TAG", "bname": "broker-a",
	}
}

// TestPullHeaders pins PullMessageRequestHeader decoding of client-go's map and the response
// header always carrying all four offsets (pitfall 12).
func TestPullHeaders(t *testing.T) {
	var h PullMessageRequestHeader
	require.NoError(t, DecodeHeader(clientGoPull(), &h))
	require.Equal(t, PullMessageRequestHeader{
		ConsumerGroup: "g", Topic: "TopicTest", QueueID: 1, QueueOffset: 42, MaxMsgNums: 32, SysFlag: 3,
		CommitOffset: 40, SuspendTimeoutMillis: 20000, SubVersion: 0, ExpressionType: "TAG", BrokerName: "broker-a",
	}, h)
	require.Equal(t, clientGoPull(), EncodeHeader(&h))

	resp := PullMessageResponseHeader{NextBeginOffset: 7}
	require.Equal(t, map[string]string{"suggestWhichBrokerId": "0", "nextBeginOffset": "7", "minOffset": "0", "maxOffset": "0"},
		EncodeHeader(&resp), "zero offsets are still written")
	var back PullMessageResponseHeader
	require.NoError(t, DecodeHeader(map[string]string{"suggestWhichBrokerId": "1", "nextBeginOffset": "-1", "minOffset": "3", "maxOffset": "9223372036854775807"}, &back))
	require.Equal(t, PullMessageResponseHeader{SuggestWhichBrokerID: 1, NextBeginOffset: -1, MinOffset: 3, MaxOffset: 9223372036854775807}, back)
}

// TestSendMessageResponseHeader pins the send response extFields, incl. MSG_REGION/TRACE_ON as
// client-go reads them (§4.1).
func TestSendMessageResponseHeader(t *testing.T) {
	h := SendMessageResponseHeader{MsgID: "0A00000900002A9F0000000000001000", QueueID: 2, QueueOffset: 5,
		MsgRegion: "DefaultRegion", TraceOn: true}
	require.Equal(t, map[string]string{"msgId": "0A00000900002A9F0000000000001000", "queueId": "2", "queueOffset": "5",
		"MSG_REGION": "DefaultRegion", "TRACE_ON": "true"}, EncodeHeader(&h))
	var back SendMessageResponseHeader
	require.NoError(t, DecodeHeader(EncodeHeader(&h), &back))
	require.Equal(t, h, back)
	require.NoError(t, DecodeHeader(map[string]string{"msgId": "x", "queueId": "0", "queueOffset": "0"}, &back))
	require.False(t, back.TraceOn, "client-go: absent TRACE_ON is off")
}

// decoder is DecodeHeader into a new H, as a function of the extFields.
func decoder[H any]() func(map[string]string) error {
	return func(ext map[string]string) error { return DecodeHeader(ext, new(H)) }
}

// TestHeaderRoundTrips: every header's EncodeHeader decodes back to the same value (and booleans use
// Java's Boolean.parseBoolean: any case of "true").
func TestHeaderRoundTrips(t *testing.T) {
	cases := []struct{ in, out any }{
		{&ConsumerSendMsgBackRequestHeader{Offset: 4096, Group: "g", DelayLevel: -1, OriginMsgID: "m", OriginTopic: "t",
			MaxReconsumeTimes: 16, HasMaxReconsumeTimes: true, BrokerName: "b"}, &ConsumerSendMsgBackRequestHeader{}},
		{&EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: 3, CommitLogOffset: 4096,
			CommitOrRollback: 8, FromTransactionCheck: true, MsgID: "m", TransactionID: "x", BrokerName: "b"}, &EndTransactionRequestHeader{}},
		{&CheckTransactionStateRequestHeader{TranStateTableOffset: 1, CommitLogOffset: 2, MsgID: "m", TransactionID: "m", OffsetMsgID: "o"},
			&CheckTransactionStateRequestHeader{}},
		{&QueryConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "t", QueueID: 3, BrokerName: "b"}, &QueryConsumerOffsetRequestHeader{}},
		{&UpdateConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "t", QueueID: 3, CommitOffset: 99}, &UpdateConsumerOffsetRequestHeader{}},
		{&GetMaxOffsetRequestHeader{Topic: "t", QueueID: 1, BrokerName: "b"}, &GetMaxOffsetRequestHeader{}},
		{&SearchOffsetRequestHeader{Topic: "t", QueueID: 1, Timestamp: 1700000000000}, &SearchOffsetRequestHeader{}},
		{&QueryConsumerOffsetResponseHeader{Offset: -1}, &QueryConsumerOffsetResponseHeader{}},
		{&GetConsumerListByGroupRequestHeader{ConsumerGroup: "g"}, &GetConsumerListByGroupRequestHeader{}},
		{&UnregisterClientRequestHeader{ClientID: "10.0.0.1@1", ConsumerGroup: "g"}, &UnregisterClientRequestHeader{}},
		{&RegisterBrokerRequestHeader{BrokerName: "broker-a", BrokerAddr: "10.0.0.1:10911", ClusterName: "DefaultCluster",
			HaServerAddr: "10.0.0.1:10912", BrokerID: 1, Compressed: true, BodyCrc32: 12345}, &RegisterBrokerRequestHeader{}},
		{&RegisterBrokerResponseHeader{HaServerAddr: "10.0.0.1:10912", MasterAddr: "10.0.0.1:10911"}, &RegisterBrokerResponseHeader{}},
		{&UnRegisterBrokerRequestHeader{BrokerName: "b", BrokerAddr: "a", ClusterName: "c", BrokerID: 0}, &UnRegisterBrokerRequestHeader{}},
		{&QueryDataVersionResponseHeader{Changed: true}, &QueryDataVersionResponseHeader{}},
		{&GetRouteInfoRequestHeader{Topic: "t", AcceptStandardJSONOnly: true}, &GetRouteInfoRequestHeader{}},
		{&DeleteTopicFromNamesrvRequestHeader{Topic: "t", ClusterName: "c"}, &DeleteTopicFromNamesrvRequestHeader{}},
		{&CreateTopicRequestHeader{Topic: "t", DefaultTopic: "defaultTopic", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6,
			TopicFilterType: SingleTag, Order: true}, &CreateTopicRequestHeader{}},
		{&DeleteTopicRequestHeader{Topic: "t"}, &DeleteTopicRequestHeader{}},
		{&QueryMessageRequestHeader{Topic: "t", Key: "k", MaxNum: 32, BeginTimestamp: 1, EndTimestamp: 1 << 62}, &QueryMessageRequestHeader{}},
		{&ViewMessageRequestHeader{Offset: 4096}, &ViewMessageRequestHeader{}},
	}
	for _, c := range cases {
		ext := EncodeHeader(c.in)
		for k, v := range ext {
			require.NotContains(t, v, " ", "%T %s: values are plain strings", c.in, k)
		}
		require.NoError(t, DecodeHeader(maps.Clone(ext), c.out), "%T", c.in)
		require.Equal(t, c.in, c.out)
	}

	var rb RegisterBrokerRequestHeader
	require.NoError(t, DecodeHeader(map[string]string{"brokerName": "b", "brokerAddr": "a", "clusterName": "c",
		"haServerAddr": "h", "brokerId": "0", "compressed": "TRUE"}, &rb))
	require.True(t, rb.Compressed, "Boolean.parseBoolean ignores case")
	require.Equal(t, int32(0), rb.BodyCrc32, "absent bodyCrc32: don't check")
	require.NoError(t, DecodeHeader(map[string]string{"brokerName": "b", "brokerAddr": "a", "clusterName": "c",
		"haServerAddr": "h", "brokerId": "0", "compressed": "yes"}, &rb))
	require.False(t, rb.Compressed, "anything but true is false")
}
