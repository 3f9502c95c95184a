package interop

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

// TestOfficialAdmin: the official client's admin API against our name server and broker —
// CreateTopic (UPDATE_AND_CREATE_TOPIC) makes a topic with the queues asked, FetchAllTopicList
// (GET_ALL_TOPIC_LIST_FROM_NAMESERVER) lists it, GetAllSubscriptionGroup
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG) decodes our subscriptionGroup table, and DeleteTopic
// (DELETE_TOPIC_IN_BROKER, then DELETE_TOPIC_IN_NAMESRV) removes it from both.
func TestOfficialAdmin(t *testing.T) {
	c := startCluster(t)
	b := c.Brokers[0]
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{c.NamesrvAddr()})))
	require.NoError(t, err)
	t.Cleanup(func() { _ = adm.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	topic := "Admin_" + t.Name()
	require.NoError(t, adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(b.BrokerAddr()),
		admin.WithReadQueueNums(3), admin.WithWriteQueueNums(5)))
	tc, ok := b.TopicConfigManager().TopicConfigTable()[topic]
	require.True(t, ok, "the broker holds the topic")
	require.Equal(t, int32(3), tc.ReadQueueNums)
	require.Equal(t, int32(5), tc.WriteQueueNums)

	list, err := adm.FetchAllTopicList(ctx)
	require.NoError(t, err)
	require.Contains(t, list.TopicList, topic, "registered with the name server before the create answered")

	groups, err := adm.GetAllSubscriptionGroup(ctx, b.BrokerAddr(), 5*time.Second)
	require.NoError(t, err)
	tools, ok := groups.SubscriptionGroupTable["TOOLS_CONSUMER"]
	require.True(t, ok, "a built-in group")
	require.Equal(t, "TOOLS_CONSUMER", tools.GroupName)
	require.True(t, tools.ConsumeEnable)
	require.Equal(t, 16, tools.RetryMaxTimes)
	require.Equal(t, 1, tools.RetryQueueNums)

	require.NoError(t, adm.DeleteTopic(ctx, admin.WithTopicDelete(topic), admin.WithBrokerAddrDelete(b.BrokerAddr()),
		admin.WithNameSrvAddr([]string{c.NamesrvAddr()})))
	_, ok = b.TopicConfigManager().TopicConfigTable()[topic]
	require.False(t, ok, "the broker forgot the topic")
	list, err = adm.FetchAllTopicList(ctx)
	require.NoError(t, err)
	require.False(t, slices.Contains(list.TopicList, topic), "the name server forgot the topic")
}
