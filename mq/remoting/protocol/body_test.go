package protocol

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/stretchr/testify/require"
)

// TestTopicConfigDefaults pins TopicConfig's Java defaults and the filter type names.
func TestTopicConfigDefaults(t *testing.T) {
	c := NewTopicConfig("T")
	require.Equal(t, &TopicConfig{TopicName: "T", ReadQueueNums: 16, WriteQueueNums: 16, Perm: 6, TopicFilterType: "SINGLE_TAG"}, c)
	require.Equal(t, TopicFilterType("MULTI_TAG"), MultiTag)
	require.Equal(t, "T 16 16 6 SINGLE_TAG", c.EncodeCompact())
}

// TestRegisterBrokerBodyJSON pins the uncompressed REGISTER_BROKER body (remoting-protocol.md
// §5.1) byte for byte: fastjson's alphabetical field order, filterServerList as [].
func TestRegisterBrokerBodyJSON(t *testing.T) {
	b := &RegisterBrokerBody{TopicConfigSerializeWrapper: TopicConfigSerializeWrapper{
		DataVersion: DataVersion{Counter: 3, Timestamp: 1700000000000},
		TopicConfigTable: map[string]*TopicConfig{
			"TopicTest": {TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: SingleTag},
			"TBW102":    {TopicName: "TBW102", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 7, TopicFilterType: SingleTag},
		},
	}}
	body, err := b.Encode(false)
	require.NoError(t, err)
	want := `{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":3,"timestamp":1700000000000},"topicConfigTable":{` +
		`"TBW102":{"order":false,"perm":7,"readQueueNums":8,"topicFilterType":"SINGLE_TAG","topicName":"TBW102","topicSysFlag":0,"writeQueueNums":8},` +
		`"TopicTest":{"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}}}}`
	require.Equal(t, want, string(body))

	back, err := DecodeRegisterBrokerBody(body, false)
	require.NoError(t, err)
	require.Equal(t, b.TopicConfigSerializeWrapper, back.TopicConfigSerializeWrapper)
	require.Equal(t, []string{}, back.FilterServerList)

	_, err = DecodeRegisterBrokerBody([]byte(`{"filterServerList":`), false)
	require.ErrorIs(t, err, ErrBadBody)
}

// TestRegisterBrokerBodyCompressed decodes a hand-assembled compressed body (the layout of
// RegisterBrokerBody#encode(true), built here field by field) and our own encoder's output.
func TestRegisterBrokerBodyCompressed(t *testing.T) {
	var raw bytes.Buffer
	chunk := func(s string) {
		_ = binary.Write(&raw, binary.BigEndian, int32(len(s)))
		raw.WriteString(s)
	}
	chunk(`{"counter":5,"timestamp":1700000000000}`)
	_ = binary.Write(&raw, binary.BigEndian, int32(2))
	chunk("TopicTest 4 4 6 SINGLE_TAG")
	chunk("%RETRY%g 1 1 6 MULTI_TAG")
	chunk(`["10.0.0.1:30000"]`)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(raw.Bytes())
	require.NoError(t, zw.Close())

	b, err := DecodeRegisterBrokerBody(z.Bytes(), true)
	require.NoError(t, err)
	require.Equal(t, DataVersion{Counter: 5, Timestamp: 1700000000000}, b.TopicConfigSerializeWrapper.DataVersion)
	require.Equal(t, map[string]*TopicConfig{
		"TopicTest": {TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: SingleTag},
		"%RETRY%g":  {TopicName: "%RETRY%g", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6, TopicFilterType: MultiTag},
	}, b.TopicConfigSerializeWrapper.TopicConfigTable)
	require.Equal(t, []string{"10.0.0.1:30000"}, b.FilterServerList)

	enc, err := b.Encode(true)
	require.NoError(t, err)
	again, err := DecodeRegisterBrokerBody(enc, true)
	require.NoError(t, err)
	require.Equal(t, b, again)

	for _, bad := range [][]byte{nil, []byte("not zlib"), z.Bytes()[:len(z.Bytes())-6]} {
		_, err := DecodeRegisterBrokerBody(bad, true)
		require.ErrorIs(t, err, ErrBadBody)
	}
}

// TestDataVersion pins DataVersion#nextVersion and its JSON names.
func TestDataVersion(t *testing.T) {
	var v DataVersion
	v.NextVersion(1700000000000)
	v.NextVersion(1700000000001)
	require.Equal(t, DataVersion{Counter: 2, Timestamp: 1700000000001}, v)
	w := TopicConfigSerializeWrapper{DataVersion: v}
	body, err := w.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"dataVersion":{"counter":2,"timestamp":1700000000001},"topicConfigTable":{}}`, string(body))
}

// TestSmallBodies pins GET_CONSUMER_LIST_BY_GROUP's, TopicList's and the lock bodies' JSON.
func TestSmallBodies(t *testing.T) {
	require.Equal(t, `{"consumerIdList":[]}`, string((&GetConsumerListByGroupResponseBody{}).Encode()),
		"an empty list is [] (client-go then drops its queues, but must not fail to parse)")
	require.Equal(t, `{"consumerIdList":["10.0.0.1@1","10.0.0.2@2"]}`,
		string((&GetConsumerListByGroupResponseBody{ConsumerIDList: []string{"10.0.0.1@1", "10.0.0.2@2"}}).Encode()))
	require.Equal(t, `{"topicList":["A","B"]}`, string((&TopicList{TopicList: []string{"A", "B"}}).Encode()))
	require.Equal(t, `{"brokerAddr":"x","topicList":[]}`, string((&TopicList{BrokerAddr: "x"}).Encode()))

	var lock LockBatchRequestBody
	require.NoError(t, DecodeJSONBody([]byte(`{"consumerGroup":"g","clientId":"10.0.0.1@1","mqSet":[{"topic":"t","brokerName":"b","queueId":0}]}`), &lock))
	require.Equal(t, LockBatchRequestBody{ConsumerGroup: "g", ClientID: "10.0.0.1@1",
		MqSet: []primitive.MessageQueue{{Topic: "t", BrokerName: "b", QueueID: 0}}}, lock)
	require.ErrorIs(t, DecodeJSONBody([]byte(`{`), &lock), ErrBadBody)
}
