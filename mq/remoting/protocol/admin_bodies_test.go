package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestTopicStatsTableFixture pins the fastjson text Java's TopicStatsTable#toJson writes (a
// Map<MessageQueue, TopicOffset> with object keys, fields in alphabetical order) and reads it back.
func TestTopicStatsTableFixture(t *testing.T) {
	const fixture = `{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":1700000000000,"maxOffset":5,"minOffset":0},` +
		`{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"lastUpdateTimestamp":0,"maxOffset":0,"minOffset":0}}}`
	tbl := &TopicStatsTable{OffsetTable: map[primitive.MessageQueue]TopicOffset{
		{Topic: "T", BrokerName: "broker-a", QueueID: 1}: {},
		{Topic: "T", BrokerName: "broker-a", QueueID: 0}: {LastUpdateTimestamp: 1700000000000, MaxOffset: 5},
	}}
	require.Equal(t, fixture, string(tbl.Encode()))
	got, err := DecodeTopicStatsTable([]byte(fixture))
	require.NoError(t, err)
	require.Equal(t, tbl, got)
}

// TestConsumeStatsFixture: consumeTps and the offset table as Java writes them; the total
// diff is the lag summed over the queues.
func TestConsumeStatsFixture(t *testing.T) {
	const fixture = `{"consumeTps":0.5,"offsetTable":{{"brokerName":"b","queueId":3,"topic":"T"}:{"brokerOffset":10,"consumerOffset":4,"lastTimestamp":7}}}`
	cs := &ConsumeStats{ConsumeTps: 0.5, OffsetTable: map[primitive.MessageQueue]OffsetWrapper{
		{Topic: "T", BrokerName: "b", QueueID: 3}: {BrokerOffset: 10, ConsumerOffset: 4, LastTimestamp: 7},
	}}
	require.Equal(t, fixture, string(cs.Encode()))
	got, err := DecodeConsumeStats([]byte(fixture))
	require.NoError(t, err)
	require.Equal(t, cs, got)
	require.Equal(t, int64(6), got.ComputeTotalDiff())
}

// TestResetOffsetBodyFixture: ResetOffsetBody's values are bare longs.
func TestResetOffsetBodyFixture(t *testing.T) {
	const fixture = `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:2}}`
	r := &ResetOffsetBody{OffsetTable: map[primitive.MessageQueue]int64{{Topic: "T", BrokerName: "b"}: 2}}
	require.Equal(t, fixture, string(r.Encode()))
	got, err := DecodeResetOffsetBody([]byte(fixture))
	require.NoError(t, err)
	require.Equal(t, r, got)
}

// TestAdminBodiesBadInput: truncated text and a key that is no queue are ErrBadBody.
func TestAdminBodiesBadInput(t *testing.T) {
	for _, in := range []string{`{"offsetTable":{{"brokerName":"b"`, `{"offsetTable":{"x":{}}}`, `[`} {
		_, err := DecodeTopicStatsTable([]byte(in))
		require.ErrorIs(t, err, ErrBadBody, in)
		_, err = DecodeConsumeStats([]byte(in))
		require.ErrorIs(t, err, ErrBadBody, in)
	}
}

func FuzzDecodeConsumeStats(f *testing.F) {
	f.Add([]byte(`{"consumeTps":0.5,"offsetTable":{{"brokerName":"b","queueId":3,"topic":"T"}:{"brokerOffset":10}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = DecodeConsumeStats(in)
		_, _ = DecodeTopicStatsTable(in)
		_, _ = DecodeResetOffsetBody(in)
	})
}
