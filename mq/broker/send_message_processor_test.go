package broker

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestSendThenPull pins SendMessageProcessor#asyncSendMessage and PullMessageProcessor: each
// send answers the ConsumeQueue offset (growing by one) and an offsetMsgId that decodes to the
// broker's store host and a growing CommitLog offset; a pull from 0 returns the stored records
// with the same bodies, CLUSTER added and WAIT not stored.
func TestSendThenPull(t *testing.T) {
	tb := startTestBroker(t, nil)
	bodies := [][]byte{[]byte("hello"), []byte("rocketmq"), []byte("go!")}
	var lastPhy int64 = -1
	for i, body := range bodies {
		props := map[string]string{primitive.PropertyTags: "TagA", primitive.PropertyWaitStoreMsgOK: "true"}
		h := sendHeader("TopicTest", 0, props)
		resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), body))
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		require.Equal(t, "DefaultRegion", resp.ExtFields["MSG_REGION"], "send responses carry MSG_REGION")
		require.Equal(t, "true", resp.ExtFields["TRACE_ON"], "send responses carry TRACE_ON")
		var rh protocol.SendMessageResponseHeader
		require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
		require.Equal(t, int32(0), rh.QueueID)
		require.Equal(t, int64(i), rh.QueueOffset, "queueOffset grows by one per message")
		host, phy, err := primitive.DecodeOffsetMsgID(rh.MsgID)
		require.NoError(t, err)
		require.Equal(t, tb.b.BrokerAddr(), host, "offsetMsgId holds brokerIP1 and the bound port")
		require.Greater(t, phy, lastPhy, "CommitLog offsets grow")
		lastPhy = phy
	}

	tb.waitDispatched(t, "TopicTest", 0, 3)
	resp := tb.pull(t, "g1", "TopicTest", 0, 0, "*")
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, "FOUND", resp.Remark, "pull remark is the store status name")
	rh := pullResponseHeader(t, resp)
	require.Equal(t, int64(3), rh.NextBeginOffset)
	require.Equal(t, int64(0), rh.MinOffset)
	require.Equal(t, int64(3), rh.MaxOffset)
	require.Equal(t, int64(0), rh.SuggestWhichBrokerID)
	msgs, err := primitive.DecodeMessages(resp.Body)
	require.NoError(t, err)
	require.Len(t, msgs, len(bodies))
	for i, m := range msgs {
		require.Equal(t, bodies[i], m.Body)
		require.Equal(t, int64(i), m.QueueOffset)
		require.Equal(t, "TopicTest", m.Topic)
		require.Equal(t, "DefaultCluster", m.Properties[primitive.PropertyCluster], "the broker adds CLUSTER")
		require.NotContains(t, m.Properties, primitive.PropertyWaitStoreMsgOK, "WAIT is not stored")
		require.Equal(t, tb.b.BrokerAddr(), m.StoreHost)
	}
}

// TestAutoCreateTopicFromTBW102 pins TopicConfigManager#createTopicInSendMessageMethod: an
// unknown topic sent with defaultTopic=TBW102 and defaultTopicQueueNums=4 gets
// min(4, 8) = 4 queues and TBW102's perm without INHERIT (7 → 6).
func TestAutoCreateTopicFromTBW102(t *testing.T) {
	tb := startTestBroker(t, nil)
	tbw := tb.b.TopicConfigManager().SelectTopicConfig(protocol.DefaultTopic)
	require.NotNil(t, tbw)
	require.Equal(t, int32(8), tbw.WriteQueueNums)
	require.Equal(t, int32(7), tbw.Perm)
	before := tb.b.TopicConfigManager().DataVersion().Counter

	tb.sendOK(t, "NewTopic", 3, "", []byte("x"))
	tc := tb.b.TopicConfigManager().SelectTopicConfig("NewTopic")
	require.NotNil(t, tc)
	require.Equal(t, int32(4), tc.ReadQueueNums)
	require.Equal(t, int32(4), tc.WriteQueueNums)
	require.Equal(t, int32(6), tc.Perm)
	require.Greater(t, tb.b.TopicConfigManager().DataVersion().Counter, before, "a created topic bumps the DataVersion")
}

// TestSendChecks pins AbstractSendMessageProcessor#msgCheck's answers.
func TestSendChecks(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendOK(t, "Existing", 0, "", []byte("x")) // 4 queues

	cases := []struct {
		name   string
		mutate func(h *protocol.SendMessageRequestHeader)
		code   int32
		remark string
	}{
		{"unknown topic, template missing", func(h *protocol.SendMessageRequestHeader) {
			h.Topic, h.DefaultTopic = "Unknown1", "NoSuchTemplate"
		}, protocol.TopicNotExist, "topic[Unknown1] not exist"},
		{"template without inherit", func(h *protocol.SendMessageRequestHeader) {
			h.Topic, h.DefaultTopic = "Unknown2", "Existing"
		}, protocol.TopicNotExist, "topic[Unknown2] not exist"},
		{"illegal characters", func(h *protocol.SendMessageRequestHeader) { h.Topic = "bad topic" },
			protocol.SystemError, "illegal characters"},
		{"reserved topic", func(h *protocol.SendMessageRequestHeader) { h.Topic = "SCHEDULE_TOPIC_XXXX" },
			protocol.NoPermission, "is forbidden"},
		{"queueId out of range", func(h *protocol.SendMessageRequestHeader) { h.Topic, h.QueueID = "Existing", 4 },
			protocol.SystemError, "queueId[4] is illegal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sendHeader("x", 0, nil)
			c.mutate(h)
			resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("b")))
			require.Equal(t, c.code, resp.Code)
			require.Contains(t, resp.Remark, c.remark)
		})
	}
	require.Nil(t, tb.b.TopicConfigManager().SelectTopicConfig("Unknown1"))
}

// TestSendWithoutAutoCreate: with autoCreateTopicEnable=false there is no TBW102, so an unknown
// topic is TOPIC_NOT_EXIST (17), which client-go retries on another queue.
func TestSendWithoutAutoCreate(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.AutoCreateTopicEnable = false })
	require.Nil(t, tb.b.TopicConfigManager().SelectTopicConfig(protocol.DefaultTopic))
	resp := tb.send(t, "Unknown", 0, "", []byte("x"))
	require.Equal(t, int32(protocol.TopicNotExist), resp.Code)
}

// TestSendV2Header: SEND_MESSAGE_V2 (310) uses single-letter keys; the message lands in the
// queue the header names.
func TestSendV2Header(t *testing.T) {
	tb := startTestBroker(t, nil)
	h := sendHeader("TopicV2", 2, map[string]string{primitive.PropertyTags: "A"})
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessageV2, h.EncodeV2(), []byte("v2")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	var rh protocol.SendMessageResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	require.Equal(t, int32(2), rh.QueueID)
	tb.waitDispatched(t, "TopicV2", 2, 1)
}

// TestSendBadHeader: a header without its required fields is SYSTEM_ERROR naming the field,
// never a panic or a dropped connection.
func TestSendBadHeader(t *testing.T) {
	tb := startTestBroker(t, nil)
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, map[string]string{"producerGroup": "pg"}, []byte("x")))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "topic")
	resp = tb.invoke(t, remoting.NewRequest(protocol.SendMessageV2, map[string]string{"a": "pg", "b": "T"}, []byte("x")))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "defaultTopic", "V2 errors name the long field")
}

// TestSendRetryTopicToDLQ pins SendMessageProcessor#handleRetryAndDLQ: a direct send to
// %RETRY%g whose reconsumeTimes reached maxReconsumeTimes lands in %DLQ%g (1 queue, perm 6).
func TestSendRetryTopicToDLQ(t *testing.T) {
	tb := startTestBroker(t, nil)
	h := sendHeader("%RETRY%g", 0, nil)
	h.ReconsumeTimes, h.MaxReconsumeTimes = 16, 16
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("dead")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	dlq := tb.b.TopicConfigManager().SelectTopicConfig("%DLQ%g")
	require.NotNil(t, dlq)
	require.Equal(t, int32(1), dlq.WriteQueueNums)
	require.Equal(t, int32(6), dlq.Perm)
	tb.waitDispatched(t, "%DLQ%g", 0, 1)
	require.Equal(t, store.QueueOffset(0), tb.b.MessageStore().GetMaxOffsetInQueue("%RETRY%g", 0))
}

// batchEntry encodes one batch member as client-go does (remoting-protocol.md §6.2).
func batchEntry(body []byte, props string) []byte {
	total := 20 + len(body) + 2 + len(props)
	b := make([]byte, 0, total)
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint32(b, 0) // magic (ignored)
	b = binary.BigEndian.AppendUint32(b, 0) // body CRC (ignored)
	b = binary.BigEndian.AppendUint32(b, 0) // flag
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, body...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(props)))
	return append(b, props...)
}

// TestSendBatch pins SendMessageProcessor#asyncSendBatchMessage: every member is its own
// record, msgId lists their offsetMsgIds joined by ',', queueOffset is the first member's.
func TestSendBatch(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendOK(t, "BatchTopic", 1, "", []byte("first")) // queue 1 offset 0
	body := append(batchEntry([]byte("xy"), "TAGS\x01A\x02"), batchEntry([]byte("z"), "TAGS\x01B\x02")...)
	h := sendHeader("BatchTopic", 1, nil)
	h.Batch = true
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), body))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	var rh protocol.SendMessageResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	require.Equal(t, int64(1), rh.QueueOffset)
	require.Len(t, strings.Split(rh.MsgID, ","), 2)

	tb.waitDispatched(t, "BatchTopic", 1, 3)
	pr := tb.pull(t, "g", "BatchTopic", 1, 1, "*")
	require.Equal(t, int32(protocol.Success), pr.Code, pr.Remark)
	msgs, err := primitive.DecodeMessages(pr.Body)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, []byte("xy"), msgs[0].Body)
	require.Equal(t, "A", msgs[0].Properties[primitive.PropertyTags])
	require.Equal(t, "DefaultCluster", msgs[1].Properties[primitive.PropertyCluster])
}

// TestSendSyncFlush: with flushDiskType=SYNC_FLUSH a send is answered SUCCESS once its record
// is on disk, and a batch too; when the flush stalls past syncFlushTimeout the answer is
// FLUSH_DISK_TIMEOUT (10) with msgId, queueId and queueOffset filled (the message is stored).
// A send with WAIT=false is answered without waiting for the stalled disk.
// Java: SendMessageProcessor#handlePutMessageResult (FLUSH_DISK_TIMEOUT: sendOK = true).
func TestSendSyncFlush(t *testing.T) {
	var stall atomic.Bool
	release := make(chan struct{})
	tb := startTestBroker(t, nil, func(_ *BrokerConfig, sc storeSetup) {
		sc.FlushDiskType = store.SyncFlush
		sc.SyncFlushTimeout = 100 * time.Millisecond
		sc.Events.BeforeFlush = func(file string) {
			if stall.Load() && strings.HasPrefix(file, "commitlog/") {
				<-release
			}
		}
	})
	defer close(release)
	rh := tb.sendOK(t, "SyncTopic", 0, "", []byte("flushed"))
	ms := tb.b.MessageStore()
	_, phy, err := primitive.DecodeOffsetMsgID(rh.MsgID)
	require.NoError(t, err)
	require.Greater(t, ms.FlushedWhere(), phy, "answered after the flush passed the record")

	body := append(batchEntry([]byte("xy"), "TAGS\x01A\x02"), batchEntry([]byte("z"), "TAGS\x01B\x02")...)
	h := sendHeader("SyncTopic", 0, nil)
	h.Batch = true
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), body))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, ms.GetMaxPhyOffset(), ms.FlushedWhere())

	stall.Store(true)
	resp = tb.send(t, "SyncTopic", 0, "", []byte("stalled"))
	require.Equal(t, int32(protocol.FlushDiskTimeout), resp.Code)
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	require.Equal(t, int32(0), rh.QueueID)
	require.Equal(t, int64(3), rh.QueueOffset)
	require.NotEmpty(t, rh.MsgID)

	h = sendHeader("SyncTopic", 0, map[string]string{primitive.PropertyWaitStoreMsgOK: "false"})
	resp = tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("no wait")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	stall.Store(false)
}

// TestSendRefusalsExact pins every answer a send gets before the store, byte for byte: the
// code, the whole remark (Java's wording), and the two ext fields every send response carries
// (MSG_REGION, TRACE_ON) and nothing else — for the single (SEND_MESSAGE) and the batch
// (SEND_BATCH_MESSAGE) path alike where both have the check. Java: AbstractSendMessageProcessor
// #msgCheck, SendMessageProcessor#asyncSendMessage / #asyncSendBatchMessage / #handleRetryAndDLQ.
func TestSendRefusalsExact(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
		c.AutoCreateSubscriptionGroup = false
		c.RejectTransactionMessage = true
	})
	tcm := tb.b.TopicConfigManager()
	noWrite := protocol.NewTopicConfig("NoWriteQueues")
	noWrite.ReadQueueNums, noWrite.WriteQueueNums = 4, 0
	tcm.UpdateTopicConfig(*noWrite)
	tb.sendOK(t, "Existing", 0, "", []byte("x")) // 4 queues
	ip := tb.b.BrokerConfig().BrokerIP1

	cases := []struct {
		name       string
		batchToo   bool
		mutate     func(h *protocol.SendMessageRequestHeader)
		code       int32
		remark     string
		withRemote bool // remark ends with the producer's address as the broker sees it
	}{
		{"illegal characters", true, func(h *protocol.SendMessageRequestHeader) { h.Topic = "bad topic" },
			protocol.SystemError, "The specified topic[bad topic] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$", false},
		{"too long", true, func(h *protocol.SendMessageRequestHeader) { h.Topic = strings.Repeat("t", 128) },
			protocol.SystemError, "The specified topic is longer than topic max length.", false},
		{"reserved topic", true, func(h *protocol.SendMessageRequestHeader) { h.Topic = "SCHEDULE_TOPIC_XXXX" },
			protocol.NoPermission, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.", false},
		{"unknown topic, template missing", true, func(h *protocol.SendMessageRequestHeader) {
			h.Topic, h.DefaultTopic = "Unknown1", "NoSuchTemplate"
		}, protocol.TopicNotExist, "topic[Unknown1] not exist, apply first please!", false},
		{"queueId out of range", true, func(h *protocol.SendMessageRequestHeader) { h.Topic, h.QueueID = "Existing", 4 },
			protocol.SystemError, "request queueId[4] is illegal, topic Existing has 4 queues, producer: ", true},
		{"negative queueId (Deviation: Java picks a queue)", true, func(h *protocol.SendMessageRequestHeader) { h.Topic, h.QueueID = "NoWriteQueues", -1 },
			protocol.SystemError, "request queueId[-1] is illegal, topic NoWriteQueues has 4 queues, producer: ", true},
		{"retry topic of an unknown group", false, func(h *protocol.SendMessageRequestHeader) { h.Topic = "%RETRY%nosuchgroup" },
			protocol.SubscriptionGroupNotExist, "subscription group not exist, nosuchgroup", false},
		{"transaction half message under rejectTransactionMessage", false, func(h *protocol.SendMessageRequestHeader) {
			h.Topic = "Existing"
			h.Properties = primitive.MarshalProperties(map[string]string{primitive.PropertyTransactionPrepared: "true"})
		}, protocol.NoPermission, "the broker[" + ip + "] sending transaction message is forbidden", false},
	}
	for _, c := range cases {
		for _, batch := range []bool{false, true} {
			if batch && !c.batchToo {
				continue
			}
			name := c.name
			if batch {
				name += " (batch)"
			}
			t.Run(name, func(t *testing.T) {
				h := sendHeader("x", 0, nil)
				c.mutate(h)
				req := remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("b"))
				if batch {
					h.Batch = true
					req = remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), batchEntry([]byte("b"), ""))
				}
				resp := tb.invoke(t, req)
				require.Equal(t, c.code, resp.Code)
				if c.withRemote {
					require.Regexp(t, "^"+regexp.QuoteMeta(c.remark)+`127\.0\.0\.1:\d+$`, resp.Remark)
				} else {
					require.Equal(t, c.remark, resp.Remark)
				}
				require.Equal(t, map[string]string{"MSG_REGION": "DefaultRegion", "TRACE_ON": "true"}, resp.ExtFields)
			})
		}
	}
	require.Nil(t, tcm.SelectTopicConfig("Unknown1"), "a refused send creates no topic")
}

// TestSendOrderTopicOnReadOnlyBroker pins msgCheck's first check: a broker without write
// permission refuses sends to an order topic (NO_PERMISSION naming brokerIP1), single and batch.
func TestSendOrderTopicOnReadOnlyBroker(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.BrokerPermission = int(protocol.PermRead) })
	order := protocol.NewTopicConfig("OrderTopic")
	order.Order = true
	tb.b.TopicConfigManager().UpdateTopicConfig(*order)
	h := sendHeader("OrderTopic", 0, nil)
	want := "the broker[" + tb.b.BrokerConfig().BrokerIP1 + "] sending message is forbidden"
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("b")))
	require.Equal(t, int32(protocol.NoPermission), resp.Code)
	require.Equal(t, want, resp.Remark)
	h.Batch = true
	resp = tb.invoke(t, remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), batchEntry([]byte("b"), "")))
	require.Equal(t, int32(protocol.NoPermission), resp.Code)
	require.Equal(t, want, resp.Remark)
}

// TestSendNegativeQueueRefused: a send or a batch with a negative queueId is refused
// (SYSTEM_ERROR naming the id; a marked Deviation: Java picks a writable queue), and nothing
// is stored.
func TestSendNegativeQueueRefused(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendOK(t, "BatchAny", 0, "", []byte("x")) // 4 queues
	single := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(sendHeader("BatchAny", -1, nil)), []byte("b")))
	h := sendHeader("BatchAny", -1, nil)
	h.Batch = true
	body := append(batchEntry([]byte("a"), ""), batchEntry([]byte("b"), "")...)
	batch := tb.invoke(t, remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), body))
	for _, resp := range []*remoting.RemotingCommand{single, batch} {
		require.Equal(t, int32(protocol.SystemError), resp.Code, resp.Remark)
		require.Contains(t, resp.Remark, "request queueId[-1] is illegal")
	}
	// the refused ones stored nothing: after one more send to queue 1, queues 0 and 1 hold
	// one message each, 2 and 3 none
	tb.sendOK(t, "BatchAny", 1, "", []byte("y"))
	tb.waitDispatched(t, "BatchAny", 1, 1)
	for q := int32(0); q < 4; q++ {
		want := store.QueueOffset(0)
		if q < 2 {
			want = 1
		}
		require.Equal(t, want, tb.b.MessageStore().GetMaxOffsetInQueue("BatchAny", q), "queue %d", q)
	}
}

// TestSendCompressedFlagChecked: the compressed sysFlag is refused with MESSAGE_ILLEGAL on a
// body without a zlib header and on a batch (a marked Deviation: Java stores both as sent);
// a zlib body with the flag is stored.
func TestSendCompressedFlagChecked(t *testing.T) {
	tb := startTestBroker(t, nil)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write([]byte("a compressed body"))
	require.NoError(t, w.Close())
	send := func(body []byte, batch bool) *remoting.RemotingCommand {
		h := sendHeader("Zip", 0, nil)
		h.SysFlag = primitive.CompressedFlag
		if batch {
			h.Batch = true
			return tb.invoke(t, remoting.NewRequest(protocol.SendBatchMessage, h.EncodeV2(), batchEntry(body, "")))
		}
		return tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), body))
	}
	resp := send(z.Bytes(), false)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	for _, row := range []struct {
		name   string
		body   []byte
		batch  bool
		remark string
	}{
		{"not zlib", []byte("not zlib"), false, "the body is not zlib"},
		{"one byte", []byte{0x78}, false, "the body is not zlib"},
		{"empty", nil, false, "the body is not zlib"},
		{"zlib method, bad check bits", []byte{0x78, 0x9D}, false, "the body is not zlib"},
		{"a batch", z.Bytes(), true, "a batch cannot have the compressed flag"},
	} {
		resp := send(row.body, row.batch)
		require.Equal(t, int32(protocol.MessageIllegal), resp.Code, "%s: %s", row.name, resp.Remark)
		require.Contains(t, resp.Remark, row.remark, row.name)
	}
	require.True(t, isZlibHeader([]byte{0x78, 0x9C}), "zlib's default header")
	require.True(t, isZlibHeader([]byte{0x78, 0x01}), "zlib's no-compression header")
	require.True(t, isZlibHeader([]byte{0x78, 0xDA}), "zlib's best-compression header")
}
