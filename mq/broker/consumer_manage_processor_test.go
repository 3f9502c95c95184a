package broker

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func (tb *testBroker) queryOffset(t *testing.T, group, topic string, queueID int32) *remoting.RemotingCommand {
	t.Helper()
	h := protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: queueID}
	return tb.invoke(t, remoting.NewRequest(protocol.QueryConsumerOffset, protocol.EncodeHeader(&h), nil))
}

func offsetOf(t *testing.T, resp *remoting.RemotingCommand) int64 {
	t.Helper()
	var rh protocol.OffsetResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	return rh.Offset
}

// TestQueryConsumerOffset pins ConsumerManageProcessor#queryConsumerOffset: a stored offset is
// answered; without one, a young queue (min offset 0 and its first message still in memory, or
// no message at all) answers 0, otherwise QUERY_NOT_FOUND (22) — the only error client-go
// accepts there. accessMessageInMemoryMaxRatio=0 makes every message count as "on disk".
func TestQueryConsumerOffset(t *testing.T) {
	cases := []struct {
		name     string
		ratio    int
		messages int
		code     int32
	}{
		{"empty queue", 40, 0, protocol.Success},
		{"young queue in memory", 40, 2, protocol.Success},
		{"first message on disk", 0, 2, protocol.QueryNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := startTestBroker(t, nil, func(_ *BrokerConfig, s storeSetup) {
				s.AccessMessageInMemoryMaxRatio = c.ratio
			})
			tb.createTopic(t, "Q", 1)
			for i := 0; i < c.messages; i++ {
				tb.sendOK(t, "Q", 0, "", []byte("m"))
			}
			tb.waitDispatched(t, "Q", 0, int64(c.messages))
			resp := tb.queryOffset(t, "newGroup", "Q", 0)
			require.Equal(t, c.code, resp.Code, resp.Remark)
			if c.code == protocol.Success {
				require.Equal(t, int64(0), offsetOf(t, resp))
			} else {
				require.Equal(t, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first", resp.Remark)
			}
		})
	}
}

// TestUpdateThenQueryConsumerOffset pins ConsumerManageProcessor#updateConsumerOffset: stored
// unconditionally (a smaller offset overwrites), then answered by QUERY_CONSUMER_OFFSET.
func TestUpdateThenQueryConsumerOffset(t *testing.T) {
	tb := startTestBroker(t, nil, func(_ *BrokerConfig, s storeSetup) { s.AccessMessageInMemoryMaxRatio = 0 })
	tb.sendOK(t, "U", 2, "", []byte("m"))
	tb.waitDispatched(t, "U", 2, 1)
	require.Equal(t, int32(protocol.QueryNotFound), tb.queryOffset(t, "g", "U", 2).Code)
	for _, off := range []int64{7, 3} {
		h := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "U", QueueID: 2, CommitOffset: off}
		resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateConsumerOffset, protocol.EncodeHeader(&h), nil))
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		resp = tb.queryOffset(t, "g", "U", 2)
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		require.Equal(t, off, offsetOf(t, resp))
	}
	require.Equal(t, map[string]map[int32]store.QueueOffset{"U@g": {2: 3}}, tb.b.ConsumerOffsetManager().OffsetTable(),
		"the table key is topic@group")
}

// TestOffsetQueries pins AdminBrokerProcessor's GET_MAX_OFFSET (next offset to write, 0 for an
// unknown queue), GET_MIN_OFFSET and SEARCH_OFFSET_BY_TIMESTAMP.
func TestOffsetQueries(t *testing.T) {
	tb := startTestBroker(t, nil)
	for i := 0; i < 3; i++ {
		tb.sendOK(t, "M", 1, "", []byte("m"))
	}
	tb.waitDispatched(t, "M", 1, 3)
	ask := func(code int32, topic string, queueID int32) int64 {
		h := protocol.TopicQueueRequestHeader{Topic: topic, QueueID: queueID}
		resp := tb.invoke(t, remoting.NewRequest(code, protocol.EncodeHeader(&h), nil))
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		return offsetOf(t, resp)
	}
	require.Equal(t, int64(3), ask(protocol.GetMaxOffset, "M", 1))
	require.Equal(t, int64(0), ask(protocol.GetMaxOffset, "M", 0))
	require.Equal(t, int64(0), ask(protocol.GetMaxOffset, "NoSuchTopic", 0))
	require.Equal(t, int64(0), ask(protocol.GetMinOffset, "M", 1))

	h := protocol.SearchOffsetRequestHeader{Topic: "M", QueueID: 1, Timestamp: time.Now().Add(-time.Hour).UnixMilli()}
	resp := tb.invoke(t, remoting.NewRequest(protocol.SearchOffsetByTimestamp, protocol.EncodeHeader(&h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, int64(0), offsetOf(t, resp), "a time before every message finds the first")

	bad := tb.invoke(t, remoting.NewRequest(protocol.GetMaxOffset, map[string]string{"topic": "M"}, nil))
	require.Equal(t, int32(protocol.SystemError), bad.Code)
	require.Contains(t, bad.Remark, "queueId")
}

// TestUnknownCodeAndAdminTopics pins the default (admin) processor: unknown codes are
// REQUEST_CODE_NOT_SUPPORTED; UPDATE_AND_CREATE_TOPIC refuses system topics and creates user
// topics; DELETE_TOPIC_IN_BROKER removes them with their ConsumeQueues, so the topic created
// again under the name starts empty at queue offset 0 (it showed the old messages).
// Java: AdminBrokerProcessor#deleteTopic's cleanUnusedTopic.
func TestUnknownCodeAndAdminTopics(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp := tb.invoke(t, remoting.NewRequest(9999, nil, nil))
	require.Equal(t, int32(protocol.RequestCodeNotSupported), resp.Code)

	h := protocol.CreateTopicRequestHeader{Topic: protocol.DefaultTopic, DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6, TopicFilterType: protocol.SingleTag}
	resp = tb.invoke(t, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "conflict with system topic")

	tb.createTopic(t, "Adm", 3)
	tc := tb.b.TopicConfigManager().SelectTopicConfig("Adm")
	require.NotNil(t, tc)
	require.Equal(t, int32(3), tc.ReadQueueNums)
	tb.sendOK(t, "Adm", 1, "", []byte("old"))
	tb.sendOK(t, "Adm", 1, "", []byte("old"))
	tb.waitDispatched(t, "Adm", 1, 2)

	d := protocol.DeleteTopicRequestHeader{Topic: "Adm"}
	resp = tb.invoke(t, remoting.NewRequest(protocol.DeleteTopicInBroker, protocol.EncodeHeader(&d), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Nil(t, tb.b.TopicConfigManager().SelectTopicConfig("Adm"))
	_, err := os.Stat(filepath.Join(tb.b.MessageStoreConfig().StorePathRootDir, "consumequeue", "Adm"))
	require.ErrorIs(t, err, os.ErrNotExist, "the topic's ConsumeQueue files went with it")

	tb.createTopic(t, "Adm", 3)
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue("Adm", 1), "the new topic is empty")
	require.Equal(t, int64(0), tb.sendOK(t, "Adm", 1, "", []byte("new")).QueueOffset, "and numbered from 0")
}
