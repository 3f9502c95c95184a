package clienttest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestNames: Name keeps what a group may spell and replaces the rest; InstanceName never
// repeats.
func TestNames(t *testing.T) {
	t.Run("a/b c.d", func(t *testing.T) {
		require.Equal(t, "TestNames_a_b_c_d", Name(t))
	})
	a, b := InstanceName(t, "p"), InstanceName(t, "p")
	require.NotEqual(t, a, b)
	require.Regexp(t, `^p-TestNames-[0-9]+$`, a)
}

// TestStartCluster: the brokers register with the name server, with the test-sized store and
// the caller's adjustment applied.
func TestStartCluster(t *testing.T) {
	c := StartCluster(t, 2, func(sc *store.MessageStoreConfig) { sc.MessageDelayLevel = "1s" })
	require.Len(t, c.Brokers, 2)
	require.NotEmpty(t, c.NamesrvAddr())
	sc := c.Brokers[0].MessageStoreConfig()
	require.Equal(t, 1<<20, sc.MappedFileSizeCommitLog)
	require.Equal(t, 1000*20, sc.MappedFileSizeConsumeQueue)
	require.Equal(t, "1s", sc.MessageDelayLevel)
}
