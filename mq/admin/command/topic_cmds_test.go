package command_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestTopicLifecycle: updateTopic -c creates the topic on every master of the cluster (one
// "create topic to <addr> success." line each, then TopicConfig#toString); topicList lists it;
// topicRoute prints its route as JSON (both brokers, 3 queues each); deleteTopic removes it
// from the brokers and the name server, after which topicRoute fails with the name server's
// TOPIC_NOT_EXIST and exit code 1. Java: UpdateTopicSubCommand, TopicListSubCommand,
// TopicRouteSubCommand, DeleteTopicSubCommand.
func TestTopicLifecycle(t *testing.T) {
	c := startCluster(t, 2)
	topic := "T_" + name(t, "")
	out := ok(t, c, "updateTopic", "-c", "DefaultCluster", "-t", topic, "-r", "3", "-w", "3", "-p", "6")
	for _, b := range c.Brokers {
		require.Contains(t, out, "create topic to "+b.BrokerAddr()+" success.\n")
	}
	require.Contains(t, out, "TopicConfig [topicName="+topic+", readQueueNums=3, writeQueueNums=3, perm=RW-, topicFilterType=SINGLE_TAG")

	list := strings.Split(strings.TrimSpace(ok(t, c, "topicList")), "\n")
	require.Contains(t, list, topic)
	require.Contains(t, list, "DefaultCluster", "the cluster-name topic")

	var route struct {
		BrokerDatas []struct {
			BrokerName  string            `json:"brokerName"`
			BrokerAddrs map[string]string `json:"brokerAddrs"`
		} `json:"brokerDatas"`
		QueueDatas []struct {
			BrokerName     string `json:"brokerName"`
			ReadQueueNums  int    `json:"readQueueNums"`
			WriteQueueNums int    `json:"writeQueueNums"`
			Perm           int    `json:"perm"`
		} `json:"queueDatas"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, c, "topicRoute", "-t", topic)), &route))
	require.Len(t, route.BrokerDatas, 2)
	require.Len(t, route.QueueDatas, 2)
	for _, q := range route.QueueDatas {
		require.Equal(t, 3, q.ReadQueueNums)
		require.Equal(t, 3, q.WriteQueueNums)
		require.Equal(t, 6, q.Perm)
	}
	require.Equal(t, c.Brokers[0].BrokerAddr(), route.BrokerDatas[0].BrokerAddrs["0"])

	out = ok(t, c, "deleteTopic", "-c", "DefaultCluster", "-t", topic)
	require.Equal(t, "delete topic ["+topic+"] from cluster [DefaultCluster] success.\n"+
		"delete topic ["+topic+"] from NameServer success.\n", out)
	r := mqadmin(t, c, "topicRoute", "-t", topic)
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "topicRoute command failed")
	require.Contains(t, r.errOut, "CODE: 17")
	require.NotContains(t, strings.Split(ok(t, c, "topicList"), "\n"), topic)
	for _, b := range c.Brokers {
		_, ok := b.TopicConfigManager().TopicConfigTable()[topic]
		require.False(t, ok, "the broker forgot the topic")
	}
}

// TestUpdateTopicOnOneBroker: -b creates the topic on that broker only; a system topic name is
// refused with the broker's remark and exit code 1; neither -b nor -c is a usage error (2).
func TestUpdateTopicOnOneBroker(t *testing.T) {
	c := startCluster(t, 2)
	topic := "One_" + name(t, "")
	ok(t, c, "updateTopic", "-b", c.Brokers[1].BrokerAddr(), "-t", topic, "-r", "2", "-w", "2")
	_, onA := c.Brokers[0].TopicConfigManager().TopicConfigTable()[topic]
	tc, onB := c.Brokers[1].TopicConfigManager().TopicConfigTable()[topic]
	require.False(t, onA)
	require.True(t, onB)
	require.Equal(t, int32(2), tc.WriteQueueNums)

	r := mqadmin(t, c, "updateTopic", "-b", c.Brokers[0].BrokerAddr(), "-t", "SCHEDULE_TOPIC_XXXX")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "is conflict with system topic")

	r = mqadmin(t, c, "updateTopic", "-t", topic)
	require.Equal(t, command.ExitUsage, r.code)
	require.Contains(t, r.errOut, "one of -b (brokerAddr) and -c (clusterName) is required")
}

// TestTopicStatus: topicStatus prints one row per queue with its min and max offset, and the
// max offsets are the messages sent to each queue; an unsent queue has no last-updated time.
// Java: TopicStatusSubCommand.
func TestTopicStatus(t *testing.T) {
	c := startCluster(t, 2)
	topic := "S_" + name(t, "")
	createTopic(t, c, topic, 2)
	p := startProducer(t, c, name(t, "pg_"))
	sendTo(t, p, primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}, "a0", "", "", 3)
	sendTo(t, p, primitive.MessageQueue{Topic: topic, BrokerName: "broker-b", QueueID: 1}, "b1", "", "", 5)

	want := map[string]string{"broker-a/0": "0..3", "broker-a/1": "0..0", "broker-b/0": "0..0", "broker-b/1": "0..5"}
	var tbl [][]string
	got := map[string]string{}
	require.Eventually(t, func() bool { // the ConsumeQueue is built by the reput service, behind the send
		tbl = rows(ok(t, c, "topicStatus", "-t", topic))
		clear(got)
		for _, r := range tbl[1:] {
			got[r[0]+"/"+r[1]] = r[2] + ".." + r[3]
		}
		return maps.Equal(want, got)
	}, 5*time.Second, 10*time.Millisecond, "%v", got)
	require.Equal(t, []string{"#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated"}, tbl[0])
	for _, r := range tbl[1:] {
		if r[3] == "0" {
			require.Equal(t, "", r[4], "an empty queue was never updated: blank, as Java prints it")
		} else {
			require.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}$`, r[4])
		}
	}
}

// TestTopicListClusterModel: topicList -c prints cluster, topic and the groups with offsets on
// it (retry and DLQ topics left out).
func TestTopicListClusterModel(t *testing.T) {
	c := startCluster(t, 1)
	topic := "L_" + name(t, "")
	createTopic(t, c, topic, 1)
	c.Brokers[0].ConsumerOffsetManager().CommitOffset("test", name(t, "g_"), topic, 0, 0)
	tbl := rows(ok(t, c, "topicList", "-c"))
	require.Equal(t, []string{"#Cluster Name", "#Topic", "#Consumer Group"}, tbl[0])
	require.True(t, slices.ContainsFunc(tbl[1:], func(r []string) bool {
		return r[0] == "DefaultCluster" && r[1] == topic && r[2] == name(t, "g_")
	}), "%v", tbl)
}

// TestUpdateOrderTopic: with -o true the topic's brokers and queue counts go into the name
// servers' ORDER_TOPIC_CONFIG ("broker-a:4;broker-b:4" for -c, the one broker for -b).
// Java: UpdateTopicSubCommand with isOrder.
func TestUpdateOrderTopic(t *testing.T) {
	c := startCluster(t, 2)
	topic := name(t, "Ord_")
	out := ok(t, c, "updateTopic", "-c", "DefaultCluster", "-t", topic, "-r", "4", "-w", "4", "-o", "true")
	require.Contains(t, out, "set cluster orderConf. isOrder=true, orderConf=[broker-a:4;broker-b:4]\n")
	require.Contains(t, out, "order=true]")
	conf, found := c.Namesrv.KVConfigManager.GetKVConfig(protocol.NamespaceOrderTopicConfig, topic)
	require.True(t, found)
	require.Equal(t, "broker-a:4;broker-b:4", conf)

	out = ok(t, c, "updateTopic", "-b", c.Brokers[1].BrokerAddr(), "-t", topic, "-w", "2", "-r", "2", "-o", "true")
	require.Contains(t, out, "set broker orderConf. isOrder=true, orderConf=[broker-b:2]\n")
}
