package fastjson

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuoteNumericKeysCases: fastjson's bare numeric keys are quoted (docs/reference/remoting-protocol.md §7.4);
// numbers that are values, digits inside strings and standard JSON are left alone.
func TestQuoteNumericKeysCases(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{0:12,1:3}`, `{"0":12,"1":3}`},
		{`{"offsetTable":{"T@g":{0:250,12:-1}}}`, `{"offsetTable":{"T@g":{"0":250,"12":-1}}}`},
		{"{\n\t\t\"a\":{0:7\n\t\t}}", "{\n\t\t\"a\":{\"0\":7\n\t\t}}"},
		{"{ -1 : 5 ,\n 2:6}", "{ \"-1\" : 5 ,\n \"2\":6}"},
		{`{"0":1}`, `{"0":1}`},
		{`[1,2,{3:4}]`, `[1,2,{"3":4}]`},
		{`{"k":"{0:1,2:3}"}`, `{"k":"{0:1,2:3}"}`},
		{`{"k\"{0:":{5:6}}`, `{"k\"{0:":{"5":6}}`},
		{`{"a":[0,1],"b":{}}`, `{"a":[0,1],"b":{}}`},
	}
	for _, c := range cases {
		got, err := QuoteNumericKeys([]byte(c.in))
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, string(got), c.in)
	}
	_, err := QuoteNumericKeys([]byte(`{"abc`))
	require.ErrorIs(t, err, ErrUnterminatedString, "an unterminated string is reported")
}

// TestQuoteNumericKeysDelayOffset pins the schedule service's delayOffset.json as fastjson
// writes it (Integer level keys bare, a newline before the closing braces).
func TestQuoteNumericKeysDelayOffset(t *testing.T) {
	got, err := QuoteNumericKeys([]byte("{\n\t\"offsetTable\":{1:0,2:5\n\t}\n}"))
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"offsetTable\":{\"1\":0,\"2\":5\n\t}\n}", string(got))
}

// TestUnmarshal pins that fastjson text and standard JSON decode alike, and that an
// unterminated string is ErrUnterminatedString, not a json error.
func TestUnmarshal(t *testing.T) {
	for _, in := range []string{`{"offsetTable":{1:0,2:5}}`, `{"offsetTable":{"1":0,"2":5}}`} {
		var f struct {
			OffsetTable map[string]int64 `json:"offsetTable"`
		}
		require.NoError(t, Unmarshal([]byte(in), &f), in)
		require.Equal(t, map[string]int64{"1": 0, "2": 5}, f.OffsetTable, in)
	}
	var v map[string]any
	require.ErrorIs(t, Unmarshal([]byte(`{"abc`), &v), ErrUnterminatedString)
	require.Error(t, Unmarshal([]byte(`{1:}`), &v), "what json rejects after quoting is an error")
}
