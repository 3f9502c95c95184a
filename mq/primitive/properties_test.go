package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMarshalProperties pins the 4.9.3+ writer (MessageDecoder#messageProperties2String):
// name 0x01 value, joined by 0x02, no trailing separator; our names sorted.
func TestMarshalProperties(t *testing.T) {
	tests := []struct {
		name  string
		props map[string]string
		want  string
	}{
		{"nil", nil, ""},
		{"one", map[string]string{"TAGS": "TagA"}, "TAGS\x01TagA"},
		{"sorted", map[string]string{"TAGS": "TagA", "CLUSTER": "DefaultCluster", "KEYS": "k1 k2"},
			"CLUSTER\x01DefaultCluster\x02KEYS\x01k1 k2\x02TAGS\x01TagA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, MarshalProperties(tt.props))
		})
	}
	many := map[string]string{}
	for _, c := range "abcdefghijklmnopqrstuvwxyz" {
		many[string(c)] = "v"
	}
	got := MarshalProperties(many)
	require.Len(t, got, 26*3+25, "more names than the stack buffer still encode")
	require.Equal(t, many, UnmarshalProperties(got))
}

// TestUnmarshalProperties pins MessageDecoder#string2messageProperties: both trailing forms,
// split at the first 0x01, empty names/values and separator-less entries skipped.
func TestUnmarshalProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"empty", "", nil},
		{"java 4.9.3+", "TAGS\x01TagA\x02CLUSTER\x01DefaultCluster", map[string]string{"TAGS": "TagA", "CLUSTER": "DefaultCluster"}},
		{"client-go trailing 0x02", "TAGS\x01TagA\x02UNIQ_KEY\x01C0A8\x02", map[string]string{"TAGS": "TagA", "UNIQ_KEY": "C0A8"}},
		{"value with 0x01", "K\x01a\x01b", map[string]string{"K": "a\x01b"}},
		{"empty value skipped", "K\x01\x02TAGS\x01A", map[string]string{"TAGS": "A"}},
		{"empty name skipped", "\x01v\x02TAGS\x01A", map[string]string{"TAGS": "A"}},
		{"no separator skipped", "garbage\x02\x02TAGS\x01A", map[string]string{"TAGS": "A"}},
		{"only separators", "\x02\x02", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, UnmarshalProperties(tt.in))
		})
	}
}

// TestMessagePropertyHelpers pins Message#isWaitStoreMsgOK (absent ⇒ true),
// Message#getDelayTimeLevel and nil-map safety.
func TestMessagePropertyHelpers(t *testing.T) {
	var m Message
	require.Equal(t, "", m.GetProperty(PropertyTags))
	m.RemoveProperty(PropertyTags) // nil map: no panic
	require.True(t, m.WaitStoreMsgOK(), "absent WAIT means wait")
	require.Equal(t, int32(0), m.DelayTimeLevel())

	m.PutProperty(PropertyWaitStoreMsgOK, "false")
	m.PutProperty(PropertyDelayTimeLevel, "3")
	m.PutProperty(PropertyTags, "TagA")
	m.PutProperty(PropertyKeys, "k1 k2")
	require.False(t, m.WaitStoreMsgOK())
	require.Equal(t, int32(3), m.DelayTimeLevel())
	require.Equal(t, "TagA", m.Tags())
	require.Equal(t, "k1 k2", m.Keys())

	m.PutProperty(PropertyWaitStoreMsgOK, "TRUE")
	require.True(t, m.WaitStoreMsgOK(), "Boolean.parseBoolean ignores case")
	m.PutProperty(PropertyDelayTimeLevel, "x")
	require.Equal(t, int32(0), m.DelayTimeLevel())
	m.RemoveProperty(PropertyTags)
	require.Equal(t, "", m.Tags())
}

// TestPropertyNames pins the MessageConst strings that travel on the wire
// (remoting-protocol.md §8).
func TestPropertyNames(t *testing.T) {
	pinned := map[string]string{
		PropertyKeys: "KEYS", PropertyTags: "TAGS", PropertyWaitStoreMsgOK: "WAIT",
		PropertyDelayTimeLevel: "DELAY", PropertyRetryTopic: "RETRY_TOPIC", PropertyRealTopic: "REAL_TOPIC",
		PropertyRealQueueID: "REAL_QID", PropertyTransactionPrepared: "TRAN_MSG", PropertyProducerGroup: "PGROUP",
		PropertyMinOffset: "MIN_OFFSET", PropertyMaxOffset: "MAX_OFFSET", PropertyBuyerID: "BUYER_ID",
		PropertyOriginMessageID: "ORIGIN_MESSAGE_ID", PropertyTransferFlag: "TRANSFER_FLAG",
		PropertyCorrectionFlag: "CORRECTION_FLAG", PropertyMQ2Flag: "MQ2_FLAG", PropertyReconsumeTime: "RECONSUME_TIME",
		PropertyMsgRegion: "MSG_REGION", PropertyTraceSwitch: "TRACE_ON", PropertyUniqClientMessageIDKeyIdx: "UNIQ_KEY",
		PropertyMaxReconsumeTimes: "MAX_RECONSUME_TIMES", PropertyConsumeStartTimestamp: "CONSUME_START_TIME",
		PropertyTransactionPreparedQueueOffset: "TRAN_PREPARED_QUEUE_OFFSET",
		PropertyTransactionCheckTimes:          "TRANSACTION_CHECK_TIMES",
		PropertyCheckImmunityTimeInSeconds:     "CHECK_IMMUNITY_TIME_IN_SECONDS", PropertyInstanceID: "INSTANCE_ID",
		PropertyCorrelationID: "CORRELATION_ID", PropertyMessageReplyToClient: "REPLY_TO_CLIENT",
		PropertyMessageTTL: "TTL", PropertyReplyMessageArriveTime: "ARRIVE_TIME", PropertyPushReplyTime: "PUSH_REPLY_TIME",
		PropertyCluster: "CLUSTER", PropertyMessageType: "MSG_TYPE", PropertyTransactionID: "__transactionId__",
		PropertyTimerDeliverMS: "TIMER_DELIVER_MS", KeySeparator: " ", ReplyMessageFlag: "reply",
	}
	for got, want := range pinned {
		require.Equal(t, want, got)
	}
	require.Len(t, pinned, 37)
	require.Equal(t, byte(1), NameValueSeparator)
	require.Equal(t, byte(2), PropertySeparator)
}
