package fastjson

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPretty pins the layout of fastjson's PrettyFormat, which RocketMQ's
// ConfigManager#persist uses: tabs, no space after ':', empty containers kept on one line.
func TestPretty(t *testing.T) {
	in := `{"dataVersion":{"counter":2,"timestamp":5},"empty":{},"list":["a,{b}",1],"t":{"x":{"k":"v:1"}}}`
	want := "{\n" +
		"\t\"dataVersion\":{\n" +
		"\t\t\"counter\":2,\n" +
		"\t\t\"timestamp\":5\n" +
		"\t},\n" +
		"\t\"empty\":{},\n" +
		"\t\"list\":[\n" +
		"\t\t\"a,{b}\",\n" +
		"\t\t1\n" +
		"\t],\n" +
		"\t\"t\":{\n" +
		"\t\t\"x\":{\n" +
		"\t\t\t\"k\":\"v:1\"\n" +
		"\t\t}\n" +
		"\t}\n" +
		"}"
	got := Pretty([]byte(in))
	require.Equal(t, want, string(got))
	var a, b any
	require.NoError(t, json.Unmarshal([]byte(in), &a))
	require.NoError(t, json.Unmarshal(got, &b))
	require.Equal(t, a, b, "re-indenting keeps the value")
}

// FuzzPretty: the pretty printer and the numeric-key reader never panic; valid standard
// JSON passes the reader unchanged.
func FuzzPretty(f *testing.F) {
	for _, s := range []string{`{0:1}`, `{"a":{1:2}}`, `[{`, `"x`, `{"k":"v"}`, "{\n0:\n1}", `{-:}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := QuoteNumericKeys(in)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, len(out), len(in))
		if json.Valid(in) {
			require.Equal(t, string(in), string(out), "standard JSON has no bare keys")
		}
		_ = Pretty(in) // must not panic on any input either
	})
}
