package broker

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestConfigFilePaths pins BrokerPathConfigHelper: the three files live in <root>/config/.
func TestConfigFilePaths(t *testing.T) {
	require.Equal(t, filepath.Join("/s", "config", "topics.json"), TopicConfigPath("/s"))
	require.Equal(t, filepath.Join("/s", "config", "consumerOffset.json"), ConsumerOffsetPath("/s"))
	require.Equal(t, filepath.Join("/s", "config", "subscriptionGroup.json"), SubscriptionGroupPath("/s"))
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
