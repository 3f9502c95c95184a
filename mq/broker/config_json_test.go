package broker

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestConfigFilePaths pins BrokerPathConfigHelper: the three files live in <root>/config/.
func TestConfigFilePaths(t *testing.T) {
	require.Equal(t, filepath.Join("/s", "config", "topics.json"), TopicConfigPath("/s"))
	require.Equal(t, filepath.Join("/s", "config", "consumerOffset.json"), ConsumerOffsetPath("/s"))
	require.Equal(t, filepath.Join("/s", "config", "subscriptionGroup.json"), SubscriptionGroupPath("/s"))
}

// TestFastjsonPretty pins the layout of fastjson's PrettyFormat, which RocketMQ's
// ConfigManager#persist uses: tabs, no space after ':', empty containers kept on one line.
func TestFastjsonPretty(t *testing.T) {
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
	got := fastjsonPretty([]byte(in))
	require.Equal(t, want, string(got))
	var a, b any
	require.NoError(t, json.Unmarshal([]byte(in), &a))
	require.NoError(t, json.Unmarshal(got, &b))
	require.Equal(t, a, b, "re-indenting keeps the value")
}

// FuzzFastjsonPretty: the pretty printer and the numeric-key reader never panic; valid standard
// JSON passes the reader unchanged.
func FuzzFastjsonPretty(f *testing.F) {
	for _, s := range []string{`{0:1}`, `{"a":{1:2}}`, `[{`, `"x`, `{"k":"v"}`, "{\n0:\n1}", `{-:}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := protocol.QuoteNumericKeys(in)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, len(out), len(in))
		if json.Valid(in) {
			require.Equal(t, string(in), string(out), "standard JSON has no bare keys")
		}
		_ = fastjsonPretty(in) // must not panic on any input either
	})
}

// FuzzDecodeConfigFiles: the three decoders take file bytes from disk; none may panic, and a
// failed decode leaves the table as it was (Load then tries the .bak copy).
func FuzzDecodeConfigFiles(f *testing.F) {
	for _, s := range []string{javaTopicsJSON, javaConsumerOffsetJSON, javaSubscriptionGroupJSON,
		`{"topicConfigTable":{"T":null}}`, `{"offsetTable":{"k":{x:1}}}`, `null`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultBrokerConfig()
		tm := NewTopicConfigManager(&cfg, nil, nil)
		before := tm.TopicConfigTable()
		if err := tm.Decode(data); err != nil {
			require.Equal(t, before, tm.TopicConfigTable(), "a failed decode changes nothing")
		}
		om := NewConsumerOffsetManager()
		om.CommitOffset("", "g", "t", 0, 1)
		if err := om.Decode(data); err != nil {
			require.Equal(t, store.QueueOffset(1), om.QueryOffset("g", "t", 0), "a failed decode changes nothing")
		}
		gm := NewSubscriptionGroupManager(&cfg, nil, nil)
		n := len(gm.SubscriptionGroupTable())
		if err := gm.Decode(data); err != nil {
			require.Len(t, gm.SubscriptionGroupTable(), n, "a failed decode changes nothing")
		}
		_, _ = tm.Encode()
		_, _ = om.Encode()
		_, _ = gm.Encode()
	})
}
