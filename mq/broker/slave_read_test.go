package broker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestPullSuggestWhichBroker pins the pull answer's suggestWhichBrokerId. Without
// slaveReadEnable it is always the master (0). With it, it is the group's brokerId while the
// data read is in memory, and the group's whichBrokerWhenConsumeSlowly once the consumer is
// further behind than accessMessageInMemoryMaxRatio of RAM (0 % here, so any backlog past the
// batch counts). Java: PullMessageProcessor#processRequest (the slaveReadEnable block).
func TestPullSuggestWhichBroker(t *testing.T) {
	for _, tc := range []struct {
		name        string
		slaveRead   bool
		memoryRatio int
		want        int64
	}{
		{name: "slaveReadEnable=false", slaveRead: false, memoryRatio: 0, want: 0},
		{name: "in memory: the group's brokerId", slaveRead: true, memoryRatio: 40, want: 3},
		{name: "behind: whichBrokerWhenConsumeSlowly", slaveRead: true, memoryRatio: 0, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := startTestBroker(t, nil, func(c *BrokerConfig, s storeSetup) {
				c.SlaveReadEnable = tc.slaveRead
				s.AccessMessageInMemoryMaxRatio = tc.memoryRatio
			})
			g := NewSubscriptionGroupConfig("sg")
			g.BrokerID = 3
			tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(g)
			for i := 0; i < 3; i++ {
				tb.sendOK(t, "SlaveReadTopic", 0, "", []byte("m"))
			}
			require.Eventually(t, func() bool { return tb.b.MessageStore().GetMaxOffsetInQueue("SlaveReadTopic", 0) == 3 },
				5*time.Second, time.Millisecond)
			h := pullHeader("sg", "SlaveReadTopic", 0, 0, protocol.PullFlagSubscription, 0, "*")
			h.MaxMsgNums = 1
			resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, h.Encode(), nil))
			require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
			require.Equal(t, tc.want, pullResponseHeader(t, resp).SuggestWhichBrokerID)
		})
	}
}
