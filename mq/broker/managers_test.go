package broker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestWireConstants pins the literal values this package writes or compares.
func TestWireConstants(t *testing.T) {
	require.Equal(t, 121, versionV349, "MQVersion V3_4_9 ordinal")
	require.Equal(t, int32(1), buildTopicSysFlag(true, false), "TopicSysFlag FLAG_UNIT")
	require.Equal(t, int32(2), buildTopicSysFlag(false, true), "TopicSysFlag FLAG_UNIT_SUB")
	require.Equal(t, 18, ScheduleTopicQueueNums)
	require.Equal(t, 1024, BenchmarkTopicQueueNums)
	require.Equal(t, "@", TopicGroupSeparator)
	require.Equal(t, "topic@3", buildKey("topic", 3), "PullRequestHoldService key")
}

// TestTopicConfigManagerBuiltins pins TopicConfigManager's constructor (RocketMQ 4.9).
func TestTopicConfigManagerBuiltins(t *testing.T) {
	cfg := DefaultBrokerConfig()
	cfg.BrokerName, cfg.BrokerClusterName = "b1", "c1"
	m := NewTopicConfigManager(&cfg, nil, nil)
	cases := []struct {
		topic  string
		queues int32
		perm   int32
	}{
		{"SELF_TEST_TOPIC", 1, 6},
		{"TBW102", 8, 7},
		{"BenchmarkTest", 1024, 6},
		{"c1", 16, 7},
		{"b1", 1, 7},
		{"OFFSET_MOVED_EVENT", 1, 6},
		{"SCHEDULE_TOPIC_XXXX", 18, 6},
		{"c1_REPLY_TOPIC", 1, 6},
	}
	for _, c := range cases {
		tc := m.SelectTopicConfig(c.topic)
		require.NotNil(t, tc, c.topic)
		require.Equal(t, c.queues, tc.ReadQueueNums, c.topic)
		require.Equal(t, c.queues, tc.WriteQueueNums, c.topic)
		require.Equal(t, c.perm, tc.Perm, c.topic)
		require.True(t, m.IsSystemTopic(c.topic), c.topic)
	}
	require.Len(t, m.TopicConfigTable(), len(cases), "no trace topic without traceTopicEnable")

	cfg.AutoCreateTopicEnable, cfg.ClusterTopicEnable, cfg.TraceTopicEnable = false, false, true
	m = NewTopicConfigManager(&cfg, nil, nil)
	require.Nil(t, m.SelectTopicConfig("TBW102"))
	require.Equal(t, int32(1), m.SelectTopicConfig("c1").Perm, "cluster topic: INHERIT only")
	require.NotNil(t, m.SelectTopicConfig("RMQ_SYS_TRACE_TOPIC"))
}

// TestTopicConfigManagerCreate pins createTopicInSendMessageMethod and
// createTopicInSendMessageBackMethod: queue count, perm, DataVersion bump and one registration
// per created topic (none for an existing one).
func TestTopicConfigManagerCreate(t *testing.T) {
	cfg := DefaultBrokerConfig()
	m := NewTopicConfigManager(&cfg, nil, nil)
	registered := 0
	m.SetRegisterBroker(func() { registered++ })
	v0 := m.DataVersion().Counter

	tc := m.CreateTopicInSendMessageMethod("A", "TBW102", "client", 16, 0)
	require.NotNil(t, tc)
	require.Equal(t, int32(8), tc.WriteQueueNums, "min(client 16, template 8)")
	require.Equal(t, int32(6), tc.Perm)
	require.Equal(t, protocol.SingleTag, tc.TopicFilterType)
	require.Equal(t, 1, registered)
	require.Equal(t, v0+1, m.DataVersion().Counter)

	require.NotNil(t, m.CreateTopicInSendMessageMethod("A", "TBW102", "client", 4, 0))
	require.Equal(t, 1, registered, "existing topic: no registration")
	require.Nil(t, m.CreateTopicInSendMessageMethod("B", "A", "client", 4, 0), "A has no INHERIT")
	require.Nil(t, m.CreateTopicInSendMessageMethod("B", "Nope", "client", 4, 0))

	r := m.CreateTopicInSendMessageBackMethod("%RETRY%g", 1, 6, 0)
	require.Equal(t, int32(1), r.ReadQueueNums)
	require.Equal(t, 2, registered)
	require.Equal(t, v0+2, m.DataVersion().Counter)

	w := m.BuildTopicConfigSerializeWrapper()
	require.Equal(t, m.DataVersion(), w.DataVersion)
	w.TopicConfigTable["A"].Perm = 0
	require.Equal(t, int32(6), m.SelectTopicConfig("A").Perm, "the wrapper is a copy")

	m.DeleteTopicConfig("A")
	require.Nil(t, m.SelectTopicConfig("A"))
	require.Equal(t, v0+3, m.DataVersion().Counter)
}

// TestTBW102DowngradedWithoutAutoCreate: a TBW102 left in the table with autoCreateTopicEnable
// off is downgraded to RW and cannot serve as template (Java createTopicInSendMessageMethod).
func TestTBW102DowngradedWithoutAutoCreate(t *testing.T) {
	cfg := DefaultBrokerConfig()
	m := NewTopicConfigManager(&cfg, nil, nil)
	cfg.AutoCreateTopicEnable = false
	require.Nil(t, m.CreateTopicInSendMessageMethod("A", "TBW102", "client", 4, 0))
	require.Equal(t, int32(6), m.SelectTopicConfig("TBW102").Perm)
}

// TestExpressionMessageFilter pins ExpressionMessageFilter#isMatchedByConsumeQueue.
func TestExpressionMessageFilter(t *testing.T) {
	neg := int32(-1887180642)
	cases := []struct {
		name     string
		sub      *protocol.SubscriptionData
		tagsCode int64
		want     bool
	}{
		{"nil subscription", nil, 42, true},
		{"star", &protocol.SubscriptionData{SubString: "*"}, 42, true},
		{"class filter", &protocol.SubscriptionData{SubString: "A", ClassFilterMode: true}, 42, true},
		{"code in set", &protocol.SubscriptionData{SubString: "A", CodeSet: []int32{65}}, 65, true},
		{"code not in set", &protocol.SubscriptionData{SubString: "A", CodeSet: []int32{65}}, 66, false},
		{"no tags stored (0)", &protocol.SubscriptionData{SubString: "A", CodeSet: []int32{65}}, 0, false},
		{"sign-extended negative code", &protocol.SubscriptionData{SubString: "x", CodeSet: []int32{neg}}, int64(neg), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, NewExpressionMessageFilter(c.sub).IsMatchedByConsumeQueue(c.tagsCode))
		})
	}
}

// TestRebuildTagCodes: codes come from tagsSet (or subString) with Java's hash, whatever the
// client sent.
func TestRebuildTagCodes(t *testing.T) {
	s := rebuildTagCodes(protocol.SubscriptionData{Topic: "T", SubString: "中文 || TagA", TagsSet: []string{"中文", "TagA"},
		CodeSet: []int32{-1887180642, 2598919}})
	require.Equal(t, []int32{646394, 2598919}, s.CodeSet)
	s = rebuildTagCodes(protocol.SubscriptionData{Topic: "T", SubString: "TagA || TagB"})
	require.Equal(t, []string{"TagA", "TagB"}, s.TagsSet)
	require.Len(t, s.CodeSet, 2)
	s = rebuildTagCodes(protocol.SubscriptionData{Topic: "T", SubString: "*"})
	require.Empty(t, s.CodeSet)
}

// TestConsumerOffsetManager pins commitOffset/queryOffset (-1 when none) and the table form.
func TestConsumerOffsetManager(t *testing.T) {
	m := NewConsumerOffsetManager()
	require.Equal(t, store.QueueOffset(-1), m.QueryOffset("g", "T", 0))
	m.CommitOffset("client", "g", "T", 0, 10)
	m.CommitOffset("client", "g", "T", 1, 5)
	m.CommitOffset("client", "g", "T", 0, 8)
	require.Equal(t, store.QueueOffset(8), m.QueryOffset("g", "T", 0), "smaller offsets overwrite")
	require.Equal(t, map[int32]store.QueueOffset{0: 8, 1: 5}, m.QueryOffsets("g", "T"))
	require.Equal(t, []string{"g"}, m.WhichGroupByTopic("T"))
	tbl := m.OffsetTable()
	tbl["T@g"][0] = 99
	require.Equal(t, store.QueueOffset(8), m.QueryOffset("g", "T", 0), "OffsetTable is a copy")
	m.SetOffsetTable(map[string]map[int32]store.QueueOffset{"X@h": {3: 4}})
	require.Equal(t, store.QueueOffset(4), m.QueryOffset("h", "X", 3))
	require.Equal(t, store.QueueOffset(-1), m.QueryOffset("g", "T", 0))
}

// TestSubscriptionGroupManager pins auto-creation with Java's defaults.
func TestSubscriptionGroupManager(t *testing.T) {
	cfg := DefaultBrokerConfig()
	m := NewSubscriptionGroupManager(&cfg, nil, nil)
	require.Contains(t, m.SubscriptionGroupTable(), "TOOLS_CONSUMER")
	v := m.DataVersion().Counter
	c := m.FindSubscriptionGroupConfig("g")
	require.Equal(t, NewSubscriptionGroupConfig("g"), *c)
	require.Equal(t, int32(1), c.RetryQueueNums)
	require.Equal(t, int32(16), c.RetryMaxTimes)
	require.Equal(t, v+1, m.DataVersion().Counter)

	cfg.AutoCreateSubscriptionGroup = false
	require.Nil(t, m.FindSubscriptionGroupConfig("other"))
	require.NotNil(t, m.FindSubscriptionGroupConfig("CID_RMQ_SYS_TRANS"), "system groups are always created")
}
