package broker

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestAdminRequestsRefuseBadInput: every admin code whose header lacks a required field
// answers SYSTEM_ERROR naming the field, and a body that does not decode answers SYSTEM_ERROR;
// nothing panics and no state changes. Java: RemotingCommand#decodeCommandCustomHeader's
// failure answered by the remoting layer; AdminBrokerProcessor's body parsing.
func TestAdminRequestsRefuseBadInput(t *testing.T) {
	tb := startTestBroker(t, nil)
	for _, tc := range []struct {
		code  int32
		ext   map[string]string
		field string
	}{
		{protocol.GetTopicStatsInfo, nil, "topic"},
		{protocol.GetConsumeStats, map[string]string{"topic": "T"}, "consumerGroup"},
		{protocol.GetConsumerConnectionList, nil, "consumerGroup"},
		{protocol.GetProducerConnectionList, nil, "producerGroup"},
		{protocol.QueryTopicConsumeByWho, nil, "topic"},
		{protocol.DeleteSubscriptionGroup, nil, "groupName"},
		{protocol.InvokeBrokerToResetOffset, map[string]string{"topic": "T", "group": "g", "isForce": "true"}, "timestamp"},
		{protocol.InvokeBrokerToResetOffset, map[string]string{"topic": "T", "group": "g", "timestamp": "soon", "isForce": "true"}, "timestamp"},
	} {
		resp := tb.invoke(t, remoting.NewRequest(tc.code, tc.ext, nil))
		require.Equal(t, remoting.SystemError, resp.Code, "code %d", tc.code)
		require.Contains(t, resp.Remark, tc.field, "code %d", tc.code)
		require.Empty(t, resp.Body)
	}

	groups := len(tb.b.SubscriptionGroupManager().SubscriptionGroupTable())
	for _, body := range []string{"", "{", `{"groupName":""}`, `{"groupName":"g","retryMaxTimes":"many"}`} {
		resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, []byte(body)))
		require.Equal(t, remoting.SystemError, resp.Code, body)
	}
	require.Len(t, tb.b.SubscriptionGroupManager().SubscriptionGroupTable(), groups, "no group created")

	for _, body := range []string{"", "noEquals\n", "fileReservedTime=soon\n", "fileReservedTime=-5\n", "flushDiskType=NEVER\n", "noSuchKey=1\n"} {
		resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateBrokerConfig, nil, []byte(body)))
		require.Equal(t, remoting.SystemError, resp.Code, body)
	}
	resp := tb.invoke(t, remoting.NewRequest(protocol.GetBrokerConfig, nil, nil))
	require.Equal(t, int32(protocol.Success), resp.Code)
	require.Contains(t, string(resp.Body), "fileReservedTime=72\n", "nothing was recorded")
	require.Contains(t, resp.ExtFields["version"], `"counter":0`)
}

// TestAdminAnswersForUnknownNames: a topic the broker lacks is TOPIC_NOT_EXIST for topic stats
// and SYSTEM_ERROR for a reset; a group with no consumer online is CONSUMER_NOT_ONLINE (206),
// an unknown producer group SYSTEM_ERROR. Java: AdminBrokerProcessor#getTopicStatsInfo,
// #getConsumerConnectionList, #getProducerConnectionList, Broker2Client#resetOffset.
func TestAdminAnswersForUnknownNames(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp := tb.invoke(t, remoting.NewRequest(protocol.GetTopicStatsInfo, map[string]string{"topic": "Nope"}, nil))
	require.Equal(t, int32(protocol.TopicNotExist), resp.Code)
	require.Equal(t, "topic[Nope] not exist", resp.Remark)

	resp = tb.invoke(t, remoting.NewRequest(protocol.GetConsumerConnectionList, map[string]string{"consumerGroup": "g"}, nil))
	require.Equal(t, int32(protocol.ConsumerNotOnline), resp.Code)
	require.Equal(t, "the consumer group[g] not online", resp.Remark)

	resp = tb.invoke(t, remoting.NewRequest(protocol.GetProducerConnectionList, map[string]string{"producerGroup": "p"}, nil))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Equal(t, "the producer group[p] not exist", resp.Remark)

	h := protocol.ResetOffsetRequestHeader{Topic: "Nope", Group: "g", Timestamp: 0, IsForce: true}
	resp = tb.invoke(t, remoting.NewRequest(protocol.InvokeBrokerToResetOffset, protocol.EncodeHeader(&h), nil))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Contains(t, resp.Remark, "no topic in this broker")

	resp = tb.invoke(t, remoting.NewRequest(protocol.GetConsumeStats, map[string]string{"consumerGroup": "g"}, nil))
	require.Equal(t, int32(protocol.Success), resp.Code)
	cs, err := protocol.DecodeConsumeStats(resp.Body)
	require.NoError(t, err)
	require.Empty(t, cs.OffsetTable, "a group with no offsets has no queues")
}

// TestRuntimeInfoTPS: putTps and getTransferedTps are the store's rates over 10, 60 and 600 s,
// two decimals each, 0.00 while the store has not sampled long enough; msgPutTotalTodayNow is
// the messages stored. The store's services are driven by hand here, so the test places the
// once-a-second samples itself. Java: StoreStatsService#getPutTps(), #getGetTransferedTps().
func TestRuntimeInfoTPS(t *testing.T) {
	tb := startTestBroker(t, nil, func(_ *BrokerConfig, s storeSetup) { s.ManualServices = true })
	stats := tb.b.MessageStore().StoreStatsService()
	for i := range 10 {
		stats.Sample(int64(i) * 1000)
	}
	runtime := func() map[string]string {
		resp := tb.invoke(t, remoting.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
		require.Equal(t, int32(protocol.Success), resp.Code)
		kv, err := protocol.DecodeKVTable(resp.Body)
		require.NoError(t, err)
		return kv.Table
	}
	require.Equal(t, "0.00 0.00 0.00", runtime()["putTps"], "ten samples are not enough for the 10 s rate")
	for range 5 {
		tb.sendOK(t, "TPS", 0, "", []byte("m"))
	}
	stats.Sample(10_000)
	kv := runtime()
	require.Equal(t, "0.50 0.00 0.00", kv["putTps"], "5 messages in the 10 s between the samples")
	require.Equal(t, "0.00 0.00 0.00", kv["getTransferedTps"])
	require.Equal(t, "5", kv["msgPutTotalTodayNow"])
}

// TestUpdateBrokerConfigSaysWhereItWent: a successful UPDATE_BROKER_CONFIG answers a remark
// naming config/broker.properties and saying the running broker keeps its values until a
// restart on that file; when that file cannot be written the answer is SYSTEM_ERROR and nothing
// is recorded (GET_BROKER_CONFIG still shows the old value, DataVersion unchanged), so a user is
// never told "success" for a change no restart would see. Java answers SUCCESS with no remark
// and applies the values live (brokerConfiguration's Deviation).
func TestUpdateBrokerConfigSaysWhereItWent(t *testing.T) {
	tb := startTestBroker(t, nil)
	path := BrokerConfigPath(tb.b.MessageStoreConfig().StorePathRootDir)
	require.NoError(t, os.MkdirAll(path, 0o755)) // a directory where the file should go

	resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateBrokerConfig, nil, []byte("fileReservedTime=48\n")))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Contains(t, resp.Remark, "broker.properties")
	resp = tb.invoke(t, remoting.NewRequest(protocol.GetBrokerConfig, nil, nil))
	require.Contains(t, string(resp.Body), "fileReservedTime=72\n", "nothing was recorded")
	require.Contains(t, resp.ExtFields["version"], `"counter":0`)

	require.NoError(t, os.Remove(path))
	resp = tb.invoke(t, remoting.NewRequest(protocol.UpdateBrokerConfig, nil, []byte("fileReservedTime=48\n")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, "written to "+path+"; the running broker keeps its current values until it is restarted with -c "+path, resp.Remark)
	file, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(file), "fileReservedTime=48\n")
}

// TestUpdateAndCreateTopicRefusesAbsurdQueueNums: negative queue nums, or more than
// MaxTopicQueueNums (one request asking for 99999999 queues would make every stats answer and
// client rebalance that large), are SYSTEM_ERROR naming the numbers and create no topic;
// MaxTopicQueueNums itself is accepted. Java: AdminBrokerProcessor#updateAndCreateTopic (which
// accepts any int: our Deviation).
func TestUpdateAndCreateTopicRefusesAbsurdQueueNums(t *testing.T) {
	tb := startTestBroker(t, nil)
	create := func(topic string, read, write int) *remoting.RemotingCommand {
		h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: int32(read),
			WriteQueueNums: int32(write), Perm: 6, TopicFilterType: "SINGLE_TAG"}
		return tb.invoke(t, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	}
	for _, n := range [][2]int{{-3, 8}, {8, -1}, {99999999, 99999999}, {4, MaxTopicQueueNums + 1}, {MaxTopicQueueNums + 1, 4}} {
		resp := create("Absurd", n[0], n[1])
		require.Equal(t, remoting.SystemError, resp.Code, "%v", n)
		require.Contains(t, resp.Remark, fmt.Sprintf("read %d, write %d", n[0], n[1]))
		_, ok := tb.b.TopicConfigManager().TopicConfigTable()["Absurd"]
		require.False(t, ok, "no topic created for %v", n)
	}
	resp := create("Wide", MaxTopicQueueNums, MaxTopicQueueNums)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, int32(MaxTopicQueueNums), tb.b.TopicConfigManager().TopicConfigTable()["Wide"].WriteQueueNums)
}
