package fastjson

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuoteObjectKeys: fastjson writes a Map<MessageQueue, TopicOffset> with object keys
// (TopicStatsTable#offsetTable); the rewrite is standard JSON whose keys hold the key text.
func TestQuoteObjectKeys(t *testing.T) {
	in := `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T}"}:{"maxOffset":3},` +
		`{"brokerName":"b","queueId":1,"topic":"T"}:{"maxOffset":4}},"n":{0:1}}`
	out, err := QuoteObjectKeys([]byte(in))
	require.NoError(t, err)
	var v struct {
		OffsetTable map[string]struct{ MaxOffset int64 } `json:"offsetTable"`
		N           map[string]int                       `json:"n"`
	}
	require.NoError(t, json.Unmarshal(out, &v))
	require.Equal(t, int64(3), v.OffsetTable[`{"brokerName":"b","queueId":0,"topic":"T}"}`].MaxOffset)
	require.Equal(t, int64(4), v.OffsetTable[`{"brokerName":"b","queueId":1,"topic":"T"}`].MaxOffset)
	require.Equal(t, 1, v.N["0"])

	std := `{"a":{"b":[1,{"c":"d"}]}}`
	out, err = QuoteObjectKeys([]byte(std))
	require.NoError(t, err)
	require.Equal(t, std, string(out))
}

// TestQuoteObjectKeysBadInput: a key object that never closes and a torn string are errors.
func TestQuoteObjectKeysBadInput(t *testing.T) {
	for _, in := range []string{`{{"a":1`, `{"a`, `{{"a":"b}`} {
		_, err := QuoteObjectKeys([]byte(in))
		require.Error(t, err, in)
	}
}

func FuzzQuoteObjectKeys(f *testing.F) {
	f.Add([]byte(`{{"q":0}:{"x":1}}`))
	f.Fuzz(func(t *testing.T, in []byte) { _, _ = QuoteObjectKeys(in) })
}
