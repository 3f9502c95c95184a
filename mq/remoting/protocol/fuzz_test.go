package protocol

import (
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
