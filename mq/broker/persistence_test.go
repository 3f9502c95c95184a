package broker

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// javaTopicsJSON is topics.json as a Java 4.9 broker writes it (fastjson PrettyFormat: tabs,
// fields in alphabetical order), plus what a newer version adds (an unknown "attributes"
// field) and a hand-edited topic that leaves fields out.
const javaTopicsJSON = `{
	"dataVersion":{
		"counter":7,
		"timestamp":1700000000000
	},
	"topicConfigTable":{
		"TopicTest":{
			"order":false,
			"perm":6,
			"readQueueNums":4,
			"topicFilterType":"SINGLE_TAG",
			"topicName":"TopicTest",
			"topicSysFlag":0,
			"writeQueueNums":4
		},
		"TBW102":{
			"order":false,
			"perm":7,
			"readQueueNums":8,
			"topicFilterType":"SINGLE_TAG",
			"topicName":"TBW102",
			"topicSysFlag":0,
			"writeQueueNums":8
		},
		"%RETRY%group1":{
			"attributes":{},
			"order":false,
			"perm":6,
			"readQueueNums":1,
			"topicFilterType":"MULTI_TAG",
			"topicName":"%RETRY%group1",
			"topicSysFlag":0,
			"writeQueueNums":1
		},
		"OrderTopic":{
			"order":true,
			"readQueueNums":2,
			"writeQueueNums":2
		}
	}
}`

// javaConsumerOffsetJSON is consumerOffset.json as Java writes it: queue ids unquoted, each
// inner map on one line with its closing brace on the next (store-formats.md §7.3).
const javaConsumerOffsetJSON = `{
	"offsetTable":{
		"%RETRY%group1@group1":{0:0
		},
		"TopicTest@group1":{0:250,1:248,2:251,3:249
		},
		"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS":{0:26
		}
	}
}`

// javaSubscriptionGroupJSON is subscriptionGroup.json as Java 4.9 writes it, plus a group
// written by hand with fields left out and one with the fields RocketMQ 5 adds.
const javaSubscriptionGroupJSON = `{
	"dataVersion":{
		"counter":3,
		"timestamp":1700000000001
	},
	"subscriptionGroupTable":{
		"group1":{
			"brokerId":0,
			"consumeBroadcastEnable":true,
			"consumeEnable":false,
			"consumeFromMinEnable":true,
			"groupName":"group1",
			"notifyConsumerIdsChangedEnable":true,
			"retryMaxTimes":3,
			"retryQueueNums":1,
			"whichBrokerWhenConsumeSlowly":1
		},
		"handEdited":{
			"retryMaxTimes":5
		},
		"fromV5":{
			"attributes":{},
			"brokerId":0,
			"consumeBroadcastEnable":true,
			"consumeEnable":true,
			"consumeFromMinEnable":true,
			"consumeMessageOrderly":false,
			"consumeTimeoutMinute":15,
			"groupName":"fromV5",
			"groupRetryPolicy":{
				"type":"CUSTOMIZED"
			},
			"groupSysFlag":0,
			"notifyConsumerIdsChangedEnable":true,
			"retryMaxTimes":16,
			"retryQueueNums":1,
			"whichBrokerWhenConsumeSlowly":1
		}
	},
	"forbiddenTable":{}
}`

// TestTopicConfigManagerDecodeJavaFile pins TopicConfigManager#decode: the file's topics are
// put over the built-ins (putAll), its DataVersion is adopted (assignNewOne), missing fields
// take TopicConfig's defaults and unknown fields are ignored.
func TestTopicConfigManagerDecodeJavaFile(t *testing.T) {
	cfg := DefaultBrokerConfig()
	cfg.BrokerName = "broker-a"
	m := NewTopicConfigManager(&cfg, nil, nil)
	require.NoError(t, m.Decode([]byte(javaTopicsJSON)))
	require.Equal(t, protocol.DataVersion{Counter: 7, Timestamp: 1700000000000}, m.DataVersion())
	require.Equal(t, &protocol.TopicConfig{TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6,
		TopicFilterType: protocol.SingleTag}, m.SelectTopicConfig("TopicTest"))
	require.Equal(t, protocol.MultiTag, m.SelectTopicConfig("%RETRY%group1").TopicFilterType)
	require.Equal(t, &protocol.TopicConfig{TopicName: "OrderTopic", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6,
		TopicFilterType: protocol.SingleTag, Order: true}, m.SelectTopicConfig("OrderTopic"),
		"left-out fields take the defaults; the key names the topic")
	require.NotNil(t, m.SelectTopicConfig("SCHEDULE_TOPIC_XXXX"), "built-ins stay")
	require.True(t, m.IsSystemTopic("TBW102"))

	bad := []string{
		`{"topicConfigTable":{"T":{"perm":"six"}}}`,
		`{"topicConfigTable":{"T":{"topicFilterType":"EVERY_TAG"}}}`,
		`{"topicConfigTable":[`,
		`{"topicConfigTable":{"T":{"readQueueNums":99999999999}}}`,
	}
	for _, b := range bad {
		m2 := NewTopicConfigManager(&cfg, nil, nil)
		before := m2.TopicConfigTable()
		require.Error(t, m2.Decode([]byte(b)), b)
		require.Equal(t, before, m2.TopicConfigTable(), "nothing changes on error: %s", b)
	}
}

// TestTopicConfigManagerEncode pins topics.json's bytes: fastjson's pretty form, topics and
// fields in alphabetical order.
func TestTopicConfigManagerEncode(t *testing.T) {
	cfg := DefaultBrokerConfig()
	m := NewTopicConfigManager(&cfg, nil, nil)
	m.table = map[string]protocol.TopicConfig{
		"TopicTest": {TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: protocol.SingleTag},
		"TBW102":    {TopicName: "TBW102", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 7, TopicFilterType: protocol.SingleTag},
	}
	m.dataVersion = protocol.DataVersion{Counter: 7, Timestamp: 1700000000000}
	got, err := m.Encode()
	require.NoError(t, err)
	want := "{\n" +
		"\t\"dataVersion\":{\n\t\t\"counter\":7,\n\t\t\"timestamp\":1700000000000\n\t},\n" +
		"\t\"topicConfigTable\":{\n" +
		"\t\t\"TBW102\":{\n\t\t\t\"order\":false,\n\t\t\t\"perm\":7,\n\t\t\t\"readQueueNums\":8,\n" +
		"\t\t\t\"topicFilterType\":\"SINGLE_TAG\",\n\t\t\t\"topicName\":\"TBW102\",\n\t\t\t\"topicSysFlag\":0,\n" +
		"\t\t\t\"writeQueueNums\":8\n\t\t},\n" +
		"\t\t\"TopicTest\":{\n\t\t\t\"order\":false,\n\t\t\t\"perm\":6,\n\t\t\t\"readQueueNums\":4,\n" +
		"\t\t\t\"topicFilterType\":\"SINGLE_TAG\",\n\t\t\t\"topicName\":\"TopicTest\",\n\t\t\t\"topicSysFlag\":0,\n" +
		"\t\t\t\"writeQueueNums\":4\n\t\t}\n" +
		"\t}\n" +
		"}"
	require.Equal(t, want, string(got))

	back := NewTopicConfigManager(&cfg, nil, nil)
	require.NoError(t, back.Decode(got))
	require.Equal(t, m.table["TopicTest"], *back.SelectTopicConfig("TopicTest"), "what we write we read")
}

// TestConsumerOffsetManagerJavaFile pins ConsumerOffsetManager#decode on a Java-written file
// (unquoted queue ids) and on standard JSON (quoted ids, an unknown field), and the bytes we
// write: fastjson's form, queue ids unquoted.
func TestConsumerOffsetManagerJavaFile(t *testing.T) {
	m := NewConsumerOffsetManager()
	m.CommitOffset("", "stale", "T", 0, 1)
	require.NoError(t, m.Decode([]byte(javaConsumerOffsetJSON)))
	require.Equal(t, map[string]map[int32]store.QueueOffset{
		"%RETRY%group1@group1":                       {0: 0},
		"TopicTest@group1":                           {0: 250, 1: 248, 2: 251, 3: 249},
		"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS": {0: 26},
	}, m.OffsetTable(), "the file replaces the table")
	require.Equal(t, store.QueueOffset(251), m.QueryOffset("group1", "TopicTest", 2))

	require.NoError(t, m.Decode([]byte(`{"dataVersion":{"counter":1},"offsetTable":{"T@g":{"0":5,"7":9}}}`)))
	require.Equal(t, map[string]map[int32]store.QueueOffset{"T@g": {0: 5, 7: 9}}, m.OffsetTable())

	for _, b := range []string{`{"offsetTable":{"T@g":{x:1}}}`, `{"offsetTable":{"T@g":{"99999999999":1}}}`,
		`{"offsetTable":{"T@g":{0:"a"}}}`, `{"offsetTable":`} {
		require.Error(t, m.Decode([]byte(b)), b)
		require.Equal(t, store.QueueOffset(9), m.QueryOffset("g", "T", 7), "nothing changes on error: %s", b)
	}

	m.SetOffsetTable(map[string]map[int32]store.QueueOffset{
		"TopicTest@group1":     {3: 249, 0: 250, 1: 248, 2: 251},
		"%RETRY%group1@group1": {0: 0},
		"Empty@g":              {},
	})
	got, err := m.Encode()
	require.NoError(t, err)
	want := "{\n\t\"offsetTable\":{\n" +
		"\t\t\"%RETRY%group1@group1\":{0:0\n\t\t},\n" +
		"\t\t\"Empty@g\":{},\n" +
		"\t\t\"TopicTest@group1\":{0:250,1:248,2:251,3:249\n\t\t}\n" +
		"\t}\n}"
	require.Equal(t, want, string(got))
	back := NewConsumerOffsetManager()
	require.NoError(t, back.Decode(got))
	require.Equal(t, m.OffsetTable(), back.OffsetTable())

	empty, err := NewConsumerOffsetManager().Encode()
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"offsetTable\":{}\n}", string(empty))
}

// TestSubscriptionGroupManagerJavaFile pins SubscriptionGroupManager#decode (putAll over the
// built-ins, DataVersion adopted, SubscriptionGroupConfig defaults for left-out fields, newer
// fields ignored) and the bytes we write (fields in fastjson's alphabetical order).
func TestSubscriptionGroupManagerJavaFile(t *testing.T) {
	cfg := DefaultBrokerConfig()
	m := NewSubscriptionGroupManager(&cfg, nil, nil)
	require.NoError(t, m.Decode([]byte(javaSubscriptionGroupJSON)))
	require.Equal(t, protocol.DataVersion{Counter: 3, Timestamp: 1700000000001}, m.DataVersion())
	table := m.SubscriptionGroupTable()
	g1 := NewSubscriptionGroupConfig("group1")
	g1.ConsumeEnable, g1.RetryMaxTimes = false, 3
	require.Equal(t, g1, table["group1"])
	hand := NewSubscriptionGroupConfig("handEdited")
	hand.RetryMaxTimes = 5
	require.Equal(t, hand, table["handEdited"], "left-out fields take Java's defaults")
	require.Equal(t, NewSubscriptionGroupConfig("fromV5"), table["fromV5"])
	require.Contains(t, table, "TOOLS_CONSUMER", "built-ins stay")

	require.Error(t, m.Decode([]byte(`{"subscriptionGroupTable":{"g":{"retryMaxTimes":"x"}}}`)))
	require.Equal(t, table, m.SubscriptionGroupTable(), "nothing changes on error")

	m.table = map[string]SubscriptionGroupConfig{"group1": g1}
	m.dataVersion = protocol.DataVersion{Counter: 3, Timestamp: 1700000000001}
	got, err := m.Encode()
	require.NoError(t, err)
	want := "{\n" +
		"\t\"dataVersion\":{\n\t\t\"counter\":3,\n\t\t\"timestamp\":1700000000001\n\t},\n" +
		"\t\"subscriptionGroupTable\":{\n" +
		"\t\t\"group1\":{\n" +
		"\t\t\t\"brokerId\":0,\n\t\t\t\"consumeBroadcastEnable\":true,\n\t\t\t\"consumeEnable\":false,\n" +
		"\t\t\t\"consumeFromMinEnable\":true,\n\t\t\t\"groupName\":\"group1\",\n" +
		"\t\t\t\"notifyConsumerIdsChangedEnable\":true,\n\t\t\t\"retryMaxTimes\":3,\n\t\t\t\"retryQueueNums\":1,\n" +
		"\t\t\t\"whichBrokerWhenConsumeSlowly\":1\n" +
		"\t\t}\n" +
		"\t}\n" +
		"}"
	require.Equal(t, want, string(got))
}

// persistTestStore is a small store config rooted at dir.
func persistTestStore(dir string) testOption {
	return func(_ *BrokerConfig, s storeSetup) { s.StorePathRootDir = dir }
}

// TestBrokerLoadsJavaWrittenFiles: a store whose config/ holds Java-written files starts with
// their topics, offsets and groups (Java: BrokerController#initialize loads them before the
// store).
func TestBrokerLoadsJavaWrittenFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "config"), 0o755))
	for path, text := range map[string]string{
		TopicConfigPath(dir):       javaTopicsJSON,
		ConsumerOffsetPath(dir):    javaConsumerOffsetJSON,
		SubscriptionGroupPath(dir): javaSubscriptionGroupJSON,
	} {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	tb := startTestBroker(t, nil, persistTestStore(dir))
	require.Equal(t, int32(4), tb.b.TopicConfigManager().SelectTopicConfig("TopicTest").WriteQueueNums)
	require.Equal(t, int64(7), tb.b.TopicConfigManager().DataVersion().Counter)
	require.False(t, tb.b.SubscriptionGroupManager().FindSubscriptionGroupConfig("group1").ConsumeEnable)

	h := protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: "group1", Topic: "TopicTest", QueueID: 3}
	resp := tb.invoke(t, remoting.NewRequest(protocol.QueryConsumerOffset, protocol.EncodeHeader(&h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	var rh protocol.QueryConsumerOffsetResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	require.Equal(t, int64(249), rh.Offset, "the Java-written offset is served")
}

// TestRestartKeepsTopicsOffsetsGroupsAndMessages: what a broker learned (a topic created by
// UPDATE_AND_CREATE_TOPIC, one auto-created by a send, committed offsets, an auto-created
// group) and the messages are all there after Shutdown and a start on the same store.
func TestRestartKeepsTopicsOffsetsGroupsAndMessages(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, persistTestStore(dir))

	ch := protocol.CreateTopicRequestHeader{Topic: "Created", DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: 3, WriteQueueNums: 3, Perm: 6, TopicFilterType: protocol.MultiTag, Order: true}
	resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&ch), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	for i := range 3 {
		tb.sendOK(t, "AutoTopic", 0, "", []byte("m"+strconv.Itoa(i)))
	}
	tb.waitDispatched(t, "AutoTopic", 0, 3)
	for q, off := range []int64{2, 7} {
		uh := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "cg", Topic: "AutoTopic", QueueID: int32(q), CommitOffset: off}
		resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateConsumerOffset, protocol.EncodeHeader(&uh), nil))
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	}
	require.NotNil(t, tb.b.SubscriptionGroupManager().FindSubscriptionGroupConfig("cg"))
	topicsBefore := tb.b.TopicConfigManager().TopicConfigTable()
	versionBefore := tb.b.TopicConfigManager().DataVersion()
	groupsBefore := tb.b.SubscriptionGroupManager().SubscriptionGroupTable()
	tb.b.Shutdown()

	tb2 := startTestBroker(t, nil, persistTestStore(dir))
	require.Equal(t, topicsBefore, tb2.b.TopicConfigManager().TopicConfigTable())
	require.Equal(t, versionBefore, tb2.b.TopicConfigManager().DataVersion(), "the DataVersion survives too")
	require.Equal(t, groupsBefore, tb2.b.SubscriptionGroupManager().SubscriptionGroupTable())
	require.Equal(t, map[int32]store.QueueOffset{0: 2, 1: 7}, tb2.b.ConsumerOffsetManager().QueryOffsets("cg", "AutoTopic"))
	created := tb2.b.TopicConfigManager().SelectTopicConfig("Created")
	require.NotNil(t, created)
	require.Equal(t, protocol.TopicConfig{TopicName: "Created", ReadQueueNums: 3, WriteQueueNums: 3, Perm: 6,
		TopicFilterType: protocol.MultiTag, Order: true}, *created)

	pr := tb2.pull(t, "cg", "AutoTopic", 0, 0, "*")
	require.Equal(t, int32(protocol.Success), pr.Code, pr.Remark)
	require.Equal(t, int64(3), pullResponseHeader(t, pr).NextBeginOffset, "the messages are back too")
}

// TestTopicsAndGroupsPersistOnChange: topics.json and subscriptionGroup.json are written as
// soon as they change, not only at shutdown (Java: ConfigManager#persist after each change).
func TestTopicsAndGroupsPersistOnChange(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, persistTestStore(dir))
	_, err := os.Stat(TopicConfigPath(dir))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is written before a change")

	tb.sendOK(t, "OnChange", 0, "", []byte("x"))
	m := NewTopicConfigManager(tb.b.BrokerConfig(), nil, nil)
	m.SetConfigFilePath(TopicConfigPath(dir))
	used, err := m.Load()
	require.NoError(t, err)
	require.Equal(t, TopicConfigPath(dir), used)
	require.NotNil(t, m.SelectTopicConfig("OnChange"))

	tb.b.SubscriptionGroupManager().FindSubscriptionGroupConfig("newGroup")
	g := NewSubscriptionGroupManager(tb.b.BrokerConfig(), nil, nil)
	g.SetConfigFilePath(SubscriptionGroupPath(dir))
	_, err = g.Load()
	require.NoError(t, err)
	require.Contains(t, g.SubscriptionGroupTable(), "newGroup")

	tb.b.TopicConfigManager().DeleteTopicConfig("OnChange")
	m2 := NewTopicConfigManager(tb.b.BrokerConfig(), nil, nil)
	m2.SetConfigFilePath(TopicConfigPath(dir))
	_, err = m2.Load()
	require.NoError(t, err)
	require.Nil(t, m2.SelectTopicConfig("OnChange"), "a deletion is persisted too")
}

// TestConsumerOffsetsPersistPeriodically: consumerOffset.json is written every
// flushConsumerOffsetInterval while the broker runs (Java: the scheduled
// consumerOffsetManager.persist()).
func TestConsumerOffsetsPersistPeriodically(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, func(c *BrokerConfig, s storeSetup) {
		s.StorePathRootDir = dir
		c.FlushConsumerOffsetInterval = 20 * time.Millisecond
	})
	tb.b.ConsumerOffsetManager().CommitOffset("test", "g", "T", 1, 42)
	require.Eventually(t, func() bool {
		m := NewConsumerOffsetManager()
		m.SetConfigFilePath(ConsumerOffsetPath(dir))
		_, err := m.Load()
		return err == nil && m.QueryOffset("g", "T", 1) == 42
	}, 5*time.Second, 10*time.Millisecond)
}

// TestFailedPersistIsRetried: a topics.json write that fails (here: the temp file's name is
// taken by a directory) is retried by the periodic persist pass once the cause is gone.
func TestFailedPersistIsRetried(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, func(c *BrokerConfig, s storeSetup) {
		s.StorePathRootDir = dir
		c.FlushConsumerOffsetInterval = 20 * time.Millisecond
	})
	blocker := TopicConfigPath(dir) + ".tmp"
	require.NoError(t, os.MkdirAll(blocker, 0o755))
	tb.sendOK(t, "Retried", 0, "", []byte("x"))
	require.True(t, tb.b.TopicConfigManager().file.dirty.Load(), "the write failed")
	_, err := os.Stat(TopicConfigPath(dir))
	require.ErrorIs(t, err, os.ErrNotExist)

	require.NoError(t, os.Remove(blocker))
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(TopicConfigPath(dir))
		return err == nil && len(data) > 0 && !tb.b.TopicConfigManager().file.dirty.Load()
	}, 5*time.Second, 10*time.Millisecond)
}

// TestCorruptConfigFiles pins ConfigManager#load/#loadBak through configfile.Load: a corrupt
// file falls back to its .bak; a corrupt file without a readable .bak refuses the start with an
// error naming the file, and the broker writes nothing over it.
func TestCorruptConfigFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(string) string
		good string
	}{
		{"topics", TopicConfigPath, javaTopicsJSON},
		{"offsets", ConsumerOffsetPath, javaConsumerOffsetJSON},
		{"groups", SubscriptionGroupPath, javaSubscriptionGroupJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.path(dir)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(`{"torn`), 0o644))
			require.NoError(t, os.WriteFile(path+".bak", []byte(tc.good), 0o644))
			tb := startTestBroker(t, nil, persistTestStore(dir))
			switch tc.name {
			case "topics":
				require.NotNil(t, tb.b.TopicConfigManager().SelectTopicConfig("TopicTest"), "loaded from .bak")
			case "offsets":
				require.Equal(t, store.QueueOffset(26), tb.b.ConsumerOffsetManager().QueryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_HALF_TOPIC", 0))
			case "groups":
				require.Contains(t, tb.b.SubscriptionGroupManager().SubscriptionGroupTable(), "handEdited")
			}
			tb.b.Shutdown()

			for _, bak := range []string{`{"torn too`, ""} {
				require.NoError(t, os.WriteFile(path, []byte(`{"torn`), 0o644))
				if bak == "" {
					require.NoError(t, os.Remove(path+".bak"))
				} else {
					require.NoError(t, os.WriteFile(path+".bak", []byte(bak), 0o644))
				}
				cfg, storeCfg := testConfigs(dir)
				_, err := CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
				require.Error(t, err)
				require.ErrorContains(t, err, path, "the error names the file")
				data, rerr := os.ReadFile(path)
				require.NoError(t, rerr)
				require.Equal(t, `{"torn`, string(data), "a refused start writes nothing")
			}
		})
	}
}

// TestLockedStoreWritesNoConfig: a second broker that cannot lock a store another broker holds
// must not overwrite that broker's config files on its way out.
func TestLockedStoreWritesNoConfig(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, persistTestStore(dir))
	tb.sendOK(t, "Mine", 0, "", []byte("x"))
	before, err := os.ReadFile(TopicConfigPath(dir))
	require.NoError(t, err)

	cfg, storeCfg := testConfigs(dir)
	cfg.BrokerName = "intruder" // its built-in broker-name topic would show in a file it wrote
	_, err = CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
	require.ErrorIs(t, err, store.ErrStoreLocked)
	after, err := os.ReadFile(TopicConfigPath(dir))
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))
	_, err = os.Stat(ConsumerOffsetPath(dir))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestShutdownPersistsCommittedOffsets: an offset committed just before Shutdown is in
// consumerOffset.json afterwards (Java: consumerOffsetManager.persist() in shutdown).
func TestShutdownPersistsCommittedOffsets(t *testing.T) {
	dir := t.TempDir()
	tb := startTestBroker(t, nil, persistTestStore(dir))
	uh := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "last", Topic: "T", QueueID: 0, CommitOffset: 99}
	resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateConsumerOffset, protocol.EncodeHeader(&uh), nil))
	require.Equal(t, int32(protocol.Success), resp.Code)
	tb.b.Shutdown()
	data, err := os.ReadFile(ConsumerOffsetPath(dir))
	require.NoError(t, err)
	require.Contains(t, string(data), "\"T@last\":{0:99\n", "fastjson's form: queue id unquoted")
}

// testConfigs returns the configs startTestBroker uses, rooted at dir.
func testConfigs(dir string) (BrokerConfig, store.MessageStoreConfig) {
	cfg := DefaultBrokerConfig()
	cfg.BrokerName = "broker-a"
	cfg.ListenPort = 0
	cfg.NamesrvAddr = ""
	storeCfg := store.DefaultMessageStoreConfig()
	storeCfg.StorePathRootDir = dir
	storeCfg.MappedFileSizeCommitLog = 256 << 10
	storeCfg.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	return cfg, storeCfg
}
