package protocol

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeHeartbeatData: heartbeat bodies come from the network; decoding never panics.
func FuzzDecodeHeartbeatData(f *testing.F) {
	f.Add([]byte(clientGoHeartbeat))
	f.Add([]byte(`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":["1",2],"subVersion":"3"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeartbeatData(b)
		if err == nil {
			require.NotNil(t, h)
			for _, c := range h.ConsumerDataSet {
				for i := range c.SubscriptionDataSet {
					c.SubscriptionDataSet[i].RebuildCodeSet()
				}
			}
		}
	})
}

// FuzzHeaderDecode: extFields come from the network; every header decoder returns an error or
// a value, never panics. The fuzzer's string is split into key/value pairs.
func FuzzHeaderDecode(f *testing.F) {
	f.Add("queueId=1;topic=T;consumerGroup=g;queueOffset=9;maxMsgNums=32;sysFlag=3;commitOffset=0;suspendTimeoutMillis=20000;subVersion=0")
	f.Add("a=pg;b=T;c=TBW102;d=4;e=0;f=0;g=1;h=0;l=x")
	f.Add("commitOrRollback=99;topicFilterType=X;offset=-9223372036854775808")
	f.Fuzz(func(t *testing.T, s string) {
		ext := map[string]string{}
		for _, kv := range strings.Split(s, ";") {
			k, v, _ := strings.Cut(kv, "=")
			ext[k] = v
		}
		decoders := []func(map[string]string) error{
			decoder[SendMessageRequestHeader](),
			func(m map[string]string) error { _, err := DecodeSendMessageRequestHeaderV2(m); return err },
			decoder[SendMessageResponseHeader](),
			decoder[PullMessageRequestHeader](),
			decoder[PullMessageResponseHeader](),
			decoder[ConsumerSendMsgBackRequestHeader](),
			decoder[EndTransactionRequestHeader](),
			decoder[CheckTransactionStateRequestHeader](),
			decoder[QueryConsumerOffsetRequestHeader](),
			decoder[OffsetResponseHeader](),
			decoder[UpdateConsumerOffsetRequestHeader](),
			decoder[TopicQueueRequestHeader](),
			decoder[SearchOffsetRequestHeader](),
			decoder[GroupRequestHeader](),
			decoder[UnregisterClientRequestHeader](),
			decoder[RegisterBrokerRequestHeader](),
			decoder[RegisterBrokerResponseHeader](),
			decoder[BrokerIdentityHeader](),
			decoder[QueryDataVersionResponseHeader](),
			decoder[GetRouteInfoRequestHeader](),
			decoder[DeleteTopicFromNamesrvRequestHeader](),
			decoder[CreateTopicRequestHeader](),
			decoder[DeleteTopicRequestHeader](),
			decoder[QueryMessageRequestHeader](),
			decoder[ViewMessageRequestHeader](),
		}
		for _, d := range decoders {
			_ = d(ext)
		}
	})
}

// FuzzDecodeTopicRouteData: the fastjson rewrite and route decoding never panic, and a decoded
// route re-encodes to something that decodes again.
func FuzzDecodeTopicRouteData(f *testing.F) {
	f.Add([]byte(wantRouteFastjson))
	f.Add([]byte(wantRouteStandard))
	f.Add([]byte(`{"a":{0:"x",-1:{"b":[1,{2:3}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeTopicRouteData(b)
		if err != nil {
			return
		}
		for _, bd := range r.BrokerDatas {
			if bd == nil {
				return
			}
		}
		for _, q := range r.QueueDatas {
			if q == nil {
				return
			}
		}
		_, err = DecodeTopicRouteData(r.Encode())
		require.NoError(t, err)
	})
}

// FuzzDecodeRegisterBrokerBody: compressed bodies come from brokers over the network.
func FuzzDecodeRegisterBrokerBody(f *testing.F) {
	b := &RegisterBrokerBody{TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{
		TopicConfigTable: map[string]*TopicConfig{"T": NewTopicConfig("T")}}}
	enc, err := b.Encode(true)
	require.NoError(f, err)
	f.Add(enc, true)
	plain, err := b.Encode(false)
	require.NoError(f, err)
	f.Add(plain, false)
	f.Fuzz(func(t *testing.T, body []byte, compressed bool) {
		_, _ = DecodeRegisterBrokerBody(body, compressed)
	})
}

// FuzzSendHeaderFields: the fields a reader collects member by member (SendHeaderFields)
// decode to the same header, or the same error, as the map the same members make, for the V1
// and the V2 keys; the keys it does not take are the ones the map decoders ignore.
func FuzzSendHeaderFields(f *testing.F) {
	f.Add("a=pg;b=T;c=TBW102;d=4;e=0;f=0;g=1;h=0;l=x;l=3;z=1")
	f.Add("producerGroup=pg;topic=T;defaultTopic=TBW102;defaultTopicQueueNums=4;queueId=-1;sysFlag=0;bornTimestamp=9;flag=0;batch=TRUE")
	f.Fuzz(func(t *testing.T, s string) {
		ext := map[string]string{}
		v1, v2 := NewSendHeaderFields(SendMessage), NewSendHeaderFields(SendMessageV2)
		for _, kv := range strings.Split(s, ";") {
			k, v, _ := strings.Cut(kv, "=")
			ext[k] = v
			inV1 := v1.SetExtField(k, v)
			require.Equal(t, slices.Contains(sendKeysV1[:], k), inV1, k)
			require.Equal(t, slices.Contains(sendKeysV2[:], k), v2.SetExtField(k, v), k)
		}
		var want SendMessageRequestHeader
		wantErr := DecodeHeader(ext, &want)
		got, err := v1.Decode()
		require.Equal(t, wantErr, err)
		require.Equal(t, want, got)
		want, wantErr = DecodeSendMessageRequestHeaderV2(ext)
		got, err = v2.Decode()
		require.Equal(t, wantErr, err)
		require.Equal(t, want, got)
	})
}

// TestSendHeaderFields: which codes get a collector, what a missing or bad field says (the V2
// key with its long name), ExtField, and that decoding allocates nothing.
func TestSendHeaderFields(t *testing.T) {
	require.Nil(t, NewSendHeaderFields(ConsumerSendMsgBack))
	require.Nil(t, NewSendHeaderFields(PullMessage))
	f := NewSendHeaderFields(SendBatchMessage)
	for k, v := range map[string]string{"a": "pg", "b": "T", "c": "TBW102", "d": "4", "e": "x"} {
		require.True(t, f.SetExtField(k, v))
	}
	require.False(t, f.SetExtField("topic", "T2"), "a V1 key is not a V2 field")
	require.False(t, f.SetExtField("o", "1"))
	v, ok := f.ExtField("b")
	require.True(t, ok)
	require.Equal(t, "T", v)
	_, ok = f.ExtField("f")
	require.False(t, ok)
	_, err := f.Decode()
	require.True(t, errors.Is(err, ErrBadField), err)
	require.ErrorContains(t, err, `"e" (queueId)="x" is not an int32`)
	f.SetExtField("e", "1")
	_, err = f.Decode()
	require.True(t, errors.Is(err, ErrMissingField), err)
	require.ErrorContains(t, err, `"f" (sysFlag)`)
	for k, v := range map[string]string{"f": "0", "g": "17", "h": "0", "m": "true", "l": "16"} {
		f.SetExtField(k, v)
	}
	h, err := f.Decode()
	require.NoError(t, err)
	require.Equal(t, SendMessageRequestHeader{ProducerGroup: "pg", Topic: "T", DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: 1, BornTimestamp: 17, Batch: true, MaxReconsumeTimes: 16,
		HasMaxReconsumeTimes: true}, h)
	require.Zero(t, testing.AllocsPerRun(100, func() { h, err = f.Decode() }))
}
