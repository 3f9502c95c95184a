package broker

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// sendHalf sends a transaction's message (TRAN_MSG=true, PGROUP=pg) to topic queue 1 and
// returns the answer's header and the half record's CommitLog offset.
func (tb *testBroker) sendHalf(t *testing.T, topic string, body string) (protocol.SendMessageResponseHeader, int64) {
	t.Helper()
	h := sendHeader(topic, 1, map[string]string{primitive.PropertyTransactionPrepared: "true",
		primitive.PropertyProducerGroup: "pg", primitive.PropertyTags: "TagA"})
	return tb.sendStored(t, h, []byte(body))
}

// endTransaction sends END_TRANSACTION as a request with an answer (the producer sends it one
// way; the answer lets the test see the verdict).
func (tb *testBroker) endTransaction(t *testing.T, h protocol.EndTransactionRequestHeader) *remoting.RemotingCommand {
	t.Helper()
	return tb.invoke(t, remoting.NewRequest(protocol.EndTransaction, protocol.EncodeHeader(&h), nil))
}

// sendAndEnd sends a half message of body and ends it with typ (commit or rollback), requiring
// SUCCESS; it returns the send's answer header and the half record's CommitLog offset.
func (tb *testBroker) sendAndEnd(t *testing.T, body string, typ int32) (protocol.SendMessageResponseHeader, int64) {
	t.Helper()
	rh, off := tb.sendHalf(t, "TxTopic", body)
	resp := tb.endTransaction(t, protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rh.QueueOffset,
		CommitLogOffset: off, CommitOrRollback: typ, MsgID: rh.MsgID})
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	return rh, off
}

// readQueue decodes every message of topic's queue from offset 0.
func (tb *testBroker) readQueue(t *testing.T, topic string, queueID int32) []*primitive.MessageExt {
	t.Helper()
	r := tb.b.MessageStore().GetMessage("test", topic, queueID, 0, 32, nil)
	var out []*primitive.MessageExt
	for _, rec := range r.Messages {
		m, _, err := primitive.DecodeMessage(rec)
		require.NoError(t, err)
		out = append(out, m)
	}
	return out
}

// TestHalfMessageStoredInHalfTopic pins TransactionalMessageBridge#parseHalfMessageInner: a
// send with TRAN_MSG=true is answered SUCCESS with the real queue id, and stored in
// RMQ_SYS_TRANS_HALF_TOPIC queue 0 with REAL_TOPIC / REAL_QID and a non-transaction sysFlag;
// the real topic's queue stays empty, so no consumer sees it.
func TestHalfMessageStoredInHalfTopic(t *testing.T) {
	tb := startTestBroker(t, nil)
	rh, off := tb.sendHalf(t, "TxTopic", "half")
	require.Equal(t, int32(1), rh.QueueID)
	require.Equal(t, int64(0), rh.QueueOffset, "the half queue's offset")
	tb.waitDispatched(t, transaction.HalfTopic, 0, 1)
	half := tb.readQueue(t, transaction.HalfTopic, 0)
	require.Len(t, half, 1)
	require.Equal(t, off, half[0].CommitLogOffset)
	require.Equal(t, "TxTopic", half[0].GetProperty(primitive.PropertyRealTopic))
	require.Equal(t, "1", half[0].GetProperty(primitive.PropertyRealQueueID))
	require.Equal(t, primitive.TransactionNotType, primitive.GetTransactionValue(half[0].SysFlag))
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue("TxTopic", 1))
}

// TestDelayedHalfMessageStaysAHalfMessage: a transaction's message sent with a DELAY level
// (rocketmq-client-go's SendMessageInTransaction keeps it; Java's client clears it) is stored as
// a half message like any other — in RMQ_SYS_TRANS_HALF_TOPIC with its real topic kept and the
// DELAY dropped — not moved to SCHEDULE_TOPIC_XXXX with REAL_TOPIC overwritten by the half
// topic, where END_TRANSACTION could not find it and a check-back's commit would write it into
// the half topic. Its commit reaches its real queue at once.
func TestDelayedHalfMessageStaysAHalfMessage(t *testing.T) {
	tb := startTestBroker(t, nil)
	h := sendHeader("TxTopic", 1, map[string]string{primitive.PropertyTransactionPrepared: "true",
		primitive.PropertyProducerGroup: "pg", primitive.PropertyDelayTimeLevel: "2"})
	rh, off := tb.sendStored(t, h, []byte("delayed"))
	half, err := tb.b.MessageStore().LookMessageByOffset(store.CommitLogOffset(off))
	require.NoError(t, err)
	require.Equal(t, transaction.HalfTopic, half.Topic)
	require.Equal(t, "TxTopic", half.GetProperty(primitive.PropertyRealTopic))
	require.Equal(t, "1", half.GetProperty(primitive.PropertyRealQueueID))
	require.Empty(t, half.GetProperty(primitive.PropertyDelayTimeLevel))
	end := tb.endTransaction(t, protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rh.QueueOffset,
		CommitLogOffset: off, CommitOrRollback: primitive.TransactionCommitType, MsgID: rh.MsgID})
	require.Equal(t, int32(protocol.Success), end.Code, end.Remark)
	tb.waitDispatched(t, "TxTopic", 1, 1)
	got := tb.readQueue(t, "TxTopic", 1)
	require.Len(t, got, 1)
	require.Equal(t, []byte("delayed"), got[0].Body)
}

// TestEndTransactionCommit pins EndTransactionProcessor's commit: a copy of the half message
// lands in its real topic and queue with sysFlag TRANSACTION_COMMIT_TYPE and the half record's
// offset as PreparedTransactionOffset, keeping its properties; an op message (tag d, body the
// half queue offset) records the decision.
func TestEndTransactionCommit(t *testing.T) {
	tb := startTestBroker(t, nil)
	rh, off := tb.sendAndEnd(t, "commit-me", primitive.TransactionCommitType)
	tb.waitDispatched(t, "TxTopic", 1, 1)
	got := tb.readQueue(t, "TxTopic", 1)
	require.Len(t, got, 1)
	require.Equal(t, []byte("commit-me"), got[0].Body)
	require.Equal(t, primitive.TransactionCommitType, primitive.GetTransactionValue(got[0].SysFlag))
	require.Equal(t, off, got[0].PreparedTransactionOffset)
	require.Equal(t, "TagA", got[0].Tags())
	require.Equal(t, "pg", got[0].GetProperty(primitive.PropertyProducerGroup))
	tb.waitDispatched(t, transaction.OpHalfTopic, 0, 1)
	ops := tb.readQueue(t, transaction.OpHalfTopic, 0)
	require.Len(t, ops, 1)
	require.Equal(t, transaction.RemoveTag, ops[0].Tags())
	require.Equal(t, strconv.FormatInt(rh.QueueOffset, 10), string(ops[0].Body))
}

// TestEndTransactionRollback: a rollback writes only the op message; the real queue stays empty.
func TestEndTransactionRollback(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendAndEnd(t, "roll-me-back", primitive.TransactionRollbackType)
	tb.waitDispatched(t, transaction.OpHalfTopic, 0, 1)
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue("TxTopic", 1))
}

// TestEndTransactionDecidesOnce: a transaction ended twice (the same END_TRANSACTION again, or a
// rollback after the commit) is decided by the first: one copy in the real queue, and every
// later END_TRANSACTION writes only its op message (Deviation: RocketMQ stores a commit each
// time). A transaction rolled back first is never committed after.
func TestEndTransactionDecidesOnce(t *testing.T) {
	tb := startTestBroker(t, nil)
	rh, off := tb.sendAndEnd(t, "once", primitive.TransactionCommitType)
	h := protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rh.QueueOffset,
		CommitLogOffset: off, CommitOrRollback: primitive.TransactionCommitType, MsgID: rh.MsgID}
	for _, typ := range []int32{primitive.TransactionCommitType, primitive.TransactionRollbackType, primitive.TransactionCommitType} {
		h.CommitOrRollback = typ
		resp := tb.endTransaction(t, h)
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	}
	rolledBack, _ := tb.sendAndEnd(t, "never", primitive.TransactionRollbackType)
	_, rbOff, err := primitive.DecodeOffsetMsgID(rolledBack.MsgID)
	require.NoError(t, err)
	resp := tb.endTransaction(t, protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rolledBack.QueueOffset,
		CommitLogOffset: rbOff, CommitOrRollback: primitive.TransactionCommitType, MsgID: rolledBack.MsgID})
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	tb.waitDispatched(t, transaction.OpHalfTopic, 0, 6)
	got := tb.readQueue(t, "TxTopic", 1)
	require.Len(t, got, 1, "one commit stored")
	require.Equal(t, []byte("once"), got[0].Body)
}

// TestEndTransactionChecks pins EndTransactionProcessor#checkPrepareMessage: the wrong group,
// queue offset, or a CommitLog offset that is not a half message is SYSTEM_ERROR naming it, and
// nothing is written.
func TestEndTransactionChecks(t *testing.T) {
	tb := startTestBroker(t, nil)
	plain := tb.sendOK(t, "Plain", 0, "", []byte("not a half message"))
	_, plainOff, err := primitive.DecodeOffsetMsgID(plain.MsgID)
	require.NoError(t, err)
	rh, off := tb.sendHalf(t, "TxTopic", "checked")
	ok := protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rh.QueueOffset,
		CommitLogOffset: off, CommitOrRollback: primitive.TransactionCommitType, MsgID: rh.MsgID}
	cases := []struct {
		name   string
		mutate func(h *protocol.EndTransactionRequestHeader)
		remark string
	}{
		{"producer group", func(h *protocol.EndTransactionRequestHeader) { h.ProducerGroup = "other" }, "The producer group wrong"},
		{"queue offset", func(h *protocol.EndTransactionRequestHeader) { h.TranStateTableOffset = 7 }, "The transaction state table offset wrong"},
		{"not a half message", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = plainOff }, "Find prepared transaction message failed"},
		{"nothing there", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = 1 << 40 }, "Find prepared transaction message failed"},
		{"negative offset", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = -1 }, "Find prepared transaction message failed"},
		{"inside a record", func(h *protocol.EndTransactionRequestHeader) { h.CommitLogOffset = off + 7 }, "Find prepared transaction message failed"},
	}
	for _, c := range cases {
		for _, typ := range []int32{primitive.TransactionCommitType, primitive.TransactionRollbackType} {
			h := ok
			h.CommitOrRollback = typ
			c.mutate(&h)
			resp := tb.endTransaction(t, h)
			require.Equal(t, int32(protocol.SystemError), resp.Code, c.name)
			require.Equal(t, c.remark, resp.Remark, c.name)
		}
	}
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue(transaction.OpHalfTopic, 0), "no op message")
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue("TxTopic", 1), "nothing committed")
}

// TestTransactionTopicNamesMatchProtocol: the transaction package spells the system topics and
// group as literals (it sits below mq/remoting/protocol); they must be protocol's names.
func TestTransactionTopicNamesMatchProtocol(t *testing.T) {
	require.Equal(t, protocol.TransHalfTopic, transaction.HalfTopic)
	require.Equal(t, protocol.TransOpHalfTopic, transaction.OpHalfTopic)
	require.Equal(t, protocol.TransCheckMaxTimeTopic, transaction.CheckMaxTimeTopic)
	require.Equal(t, protocol.TransactionSysGroup, transaction.SysGroup)
}

// TestEndTransactionBadHeader: a header without its fields, or with a commitOrRollback other
// than 0, 8 or 12, is SYSTEM_ERROR naming the field (Java: checkFields), not a panic.
func TestEndTransactionBadHeader(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp := tb.invoke(t, remoting.NewRequest(protocol.EndTransaction, nil, nil))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "bad end transaction request header")
	h := protocol.EndTransactionRequestHeader{ProducerGroup: "pg", CommitOrRollback: 5, MsgID: "x"}
	resp = tb.endTransaction(t, h)
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "commitOrRollback")
}

// TestEndTransactionOnSlave: a slave ends no transaction: SLAVE_NOT_AVAILABLE (11), as Java's.
func TestEndTransactionOnSlave(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, s storeSetup) {
		c.BrokerID = 1
		s.BrokerRole = store.Slave
	})
	resp := tb.endTransaction(t, protocol.EndTransactionRequestHeader{ProducerGroup: "pg", CommitLogOffset: 0,
		CommitOrRollback: primitive.TransactionCommitType, MsgID: "x"})
	require.Equal(t, int32(protocol.SlaveNotAvailable), resp.Code)
}
