package broker

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// sendKeyed sends a message with KEYS and UNIQ_KEY and returns its offsetMsgId.
func (tb *testBroker) sendKeyed(t *testing.T, topic, keys, uniq, body string) string {
	t.Helper()
	h := sendHeader(topic, 0, map[string]string{primitive.PropertyKeys: keys, primitive.PropertyUniqClientMessageIDKeyIdx: uniq})
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte(body)))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	return resp.ExtFields["msgId"]
}

func (tb *testBroker) queryMessage(t *testing.T, ext map[string]string) *remoting.RemotingCommand {
	t.Helper()
	return tb.invoke(t, remoting.NewRequest(protocol.QueryMessage, ext, nil))
}

// TestQueryMessage: QUERY_MESSAGE (12) finds the messages of a key through the index and
// answers their records back to back, with the newest index file's end time and offset in the
// header; a key not found is QUERY_NOT_FOUND (22) with Java's remark; _UNIQUE_KEY_QUERY caps
// maxNum at defaultQueryMaxNum; a bad header is SYSTEM_ERROR. Java: QueryMessageProcessor#queryMessage.
func TestQueryMessage(t *testing.T) {
	tb := startTestBroker(t, nil)
	for i := 0; i < 3; i++ {
		tb.sendKeyed(t, "Q", "order-7 k"+strconv.Itoa(i), "U"+strconv.Itoa(i), "body-"+strconv.Itoa(i))
	}
	tb.waitDispatched(t, "Q", 0, 3)

	h := protocol.QueryMessageRequestHeader{Topic: "Q", Key: "order-7", MaxNum: 32, BeginTimestamp: 0, EndTimestamp: 1 << 62}
	resp := tb.queryMessage(t, protocol.EncodeHeader(&h))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	msgs, err := primitive.DecodeMessages(resp.Body)
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	for i, m := range msgs {
		require.Equal(t, "body-"+strconv.Itoa(i), string(m.Body))
	}
	last := tb.b.MessageStore().IndexService().IndexFiles()[0]
	require.Equal(t, strconv.FormatInt(last.EndTimestamp(), 10), resp.ExtFields["indexLastUpdateTimestamp"])
	require.Equal(t, strconv.FormatInt(msgs[2].CommitLogOffset, 10), resp.ExtFields["indexLastUpdatePhyoffset"])

	h.MaxNum = 2
	resp = tb.queryMessage(t, protocol.EncodeHeader(&h))
	msgs, err = primitive.DecodeMessages(resp.Body)
	require.NoError(t, err)
	require.Len(t, msgs, 2)

	h.Key = "U1"
	resp = tb.queryMessage(t, protocol.EncodeHeader(&h))
	msgs, err = primitive.DecodeMessages(resp.Body)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "body-1", string(msgs[0].Body))

	tb.b.MessageStoreConfig().DefaultQueryMaxNum = 1
	h.Key, h.MaxNum = "order-7", 32
	ext := protocol.EncodeHeader(&h)
	ext["_UNIQUE_KEY_QUERY"] = "true"
	msgs, err = primitive.DecodeMessages(tb.queryMessage(t, ext).Body)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "a unique-key query is capped at defaultQueryMaxNum")

	h.Key = "nothing"
	resp = tb.queryMessage(t, protocol.EncodeHeader(&h))
	require.Equal(t, int32(protocol.QueryNotFound), resp.Code)
	require.Equal(t, "can not find message, maybe time range not correct", resp.Remark)
	require.Contains(t, resp.ExtFields, "indexLastUpdateTimestamp")

	resp = tb.queryMessage(t, map[string]string{"topic": "Q", "key": "k", "maxNum": "x", "beginTimestamp": "0", "endTimestamp": "1"})
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Contains(t, resp.Remark, "maxNum")

	// A header lacking a field it needs is an error naming it, never an empty success.
	for _, missing := range []string{"topic", "key", "maxNum", "beginTimestamp", "endTimestamp"} {
		ext := map[string]string{"topic": "Q", "key": "k", "maxNum": "32", "beginTimestamp": "0", "endTimestamp": "1"}
		delete(ext, missing)
		resp = tb.queryMessage(t, ext)
		require.Equal(t, remoting.SystemError, resp.Code, missing)
		require.Contains(t, resp.Remark, missing)
		require.Empty(t, resp.Body)
	}
}

// TestViewMessageByID: VIEW_MESSAGE_BY_ID (33) answers the record at a CommitLog offset —
// the one an offsetMsgId encodes — and SYSTEM_ERROR "can not find message by the offset, N"
// where there is none, and SYSTEM_ERROR for an offset that is no number.
// Java: QueryMessageProcessor#viewMessageById.
func TestViewMessageByID(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendKeyed(t, "V", "a", "U0", "first")
	id := tb.sendKeyed(t, "V", "b", "U1", "second")
	_, offset, err := primitive.DecodeOffsetMsgID(id)
	require.NoError(t, err)

	resp := tb.invoke(t, remoting.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": strconv.FormatInt(offset, 10)}, nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	m, n, err := primitive.DecodeMessage(resp.Body)
	require.NoError(t, err)
	require.Equal(t, len(resp.Body), n, "exactly one record")
	require.Equal(t, "second", string(m.Body))
	require.Equal(t, offset, m.CommitLogOffset)

	resp = tb.invoke(t, remoting.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": "999999"}, nil))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Equal(t, "can not find message by the offset, 999999", resp.Remark)

	resp = tb.invoke(t, remoting.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": "x"}, nil))
	require.Equal(t, remoting.SystemError, resp.Code)
	require.Contains(t, resp.Remark, `bad view message request header`)
	require.Contains(t, resp.Remark, `"offset"="x"`)
}
