package producer

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// DefaultMQProducer's defaults in rocketmq-all-4.9.8: createTopicKey TBW102,
// defaultTopicQueueNums 4, sendMsgTimeout 3000 ms, compressMsgBodyOverHowmuch 4096, compress
// level 5, retryTimesWhenSendFailed 2, retryTimesWhenSendAsyncFailed 2,
// retryAnotherBrokerWhenNotStoreOK false, maxMessageSize 4 MiB, sendLatencyFaultEnable false,
// retryResponseCodes {17, 14, 1, 16, 204, 205}.
func TestDefaultConfigMatchesJava(t *testing.T) {
	c := DefaultConfig("g").withDefaults()
	require.Equal(t, "g", c.ProducerGroup)
	require.Equal(t, "TBW102", c.CreateTopicKey)
	require.Equal(t, int32(4), c.DefaultTopicQueueNums)
	require.Equal(t, 3000*time.Millisecond, c.SendMsgTimeout)
	require.Equal(t, 4096, c.CompressMsgBodyOverHowmuch)
	require.Equal(t, 5, c.CompressLevel)
	require.Equal(t, 2, c.RetryTimesWhenSendFailed)
	require.Equal(t, 2, c.RetryTimesWhenSendAsyncFailed)
	require.False(t, c.RetryAnotherBrokerWhenNotStoreOK)
	require.Equal(t, 4194304, c.MaxMessageSize)
	require.False(t, c.SendLatencyFaultEnable)
	require.Equal(t, []int32{17, 14, 1, 16, 204, 205}, c.RetryResponseCodes)
	require.Equal(t, "DEFAULT", c.InstanceName)
	zero := Config{}.withDefaults()
	require.Equal(t, 0, zero.RetryTimesWhenSendFailed, "a zero retry count stays zero")
	require.Equal(t, 3*time.Second, zero.SendMsgTimeout)
}
