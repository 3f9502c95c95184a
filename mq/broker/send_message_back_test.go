package broker

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/schedule"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// secondLevels gives delay level n a delay of n seconds.
const secondLevels = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 11s 12s 13s 14s 15s 16s 17s 18s"

// fakeClock starts the store clock at a fixed time; tests move it to make delayed messages due.
func fakeClock(clk *clock.Manual) testOption {
	clk.SetMillis(1700000000000)
	return func(_ *BrokerConfig, sc storeSetup) {
		sc.Clock = clk
		sc.MessageDelayLevel = secondLevels
	}
}

// sendBack sends CONSUMER_SEND_MSG_BACK as client-go does (maxReconsumeTimes always present).
func (tb *testBroker) sendBack(t *testing.T, group string, offset int64, delayLevel, maxReconsumeTimes int32) *remoting.RemotingCommand {
	t.Helper()
	h := protocol.ConsumerSendMsgBackRequestHeader{Group: group, Offset: offset, DelayLevel: delayLevel,
		OriginTopic: "ignored", MaxReconsumeTimes: maxReconsumeTimes, HasMaxReconsumeTimes: true}
	return tb.invoke(t, remoting.NewRequest(protocol.ConsumerSendMsgBack, protocol.EncodeHeader(&h), nil))
}

// sendReconsumed stores body in topic queue 0 as a message already consumed reconsumeTimes
// times; it returns the offsetMsgId and CommitLog offset.
func (tb *testBroker) sendReconsumed(t *testing.T, topic string, reconsumeTimes int32, body string) (string, int64) {
	t.Helper()
	h := sendHeader(topic, 0, map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "UNIQ-" + body,
		primitive.PropertyTags: "TagA"})
	h.ReconsumeTimes = reconsumeTimes
	rh, offset := tb.sendStored(t, h, []byte(body))
	return rh.MsgID, offset
}

// messages waits until topic/queueID holds n messages and returns them decoded.
func (tb *testBroker) messages(t *testing.T, topic string, queueID int32, n int64) []*primitive.MessageExt {
	t.Helper()
	tb.waitDispatched(t, topic, queueID, n)
	res := tb.b.MessageStore().GetMessage("test", topic, queueID, 0, 32, nil)
	require.NotNil(t, res)
	msgs, err := primitive.DecodeMessages(res.Body())
	require.NoError(t, err)
	require.Len(t, msgs, int(n))
	return msgs
}

// TestConsumerSendMsgBackRetryPath follows one message through two failed consumptions
// (SendMessageProcessor#asyncConsumerSendMsgBack, ScheduleMessageService#deliverMessage):
// sent back with delayLevel 0 it is stored for %RETRY%g1 (created: 1 queue, perm 6) with
// DELAY = 3 + reconsumeTimes, parked in SCHEDULE_TOPIC_XXXX queue 2, delivered to %RETRY%g1
// after 3 s with reconsumeTimes 1, RETRY_TOPIC = TopicA, WAIT=false and ORIGIN_MESSAGE_ID = the
// original offsetMsgId; sent back again it gets level 4, reconsumeTimes 2, the same
// ORIGIN_MESSAGE_ID, and one REAL_TOPIC / REAL_QID pair.
func TestConsumerSendMsgBackRetryPath(t *testing.T) {
	rec := trace.NewRecorder()
	clk := new(clock.Manual)
	tb := startTestBroker(t, rec.Tracer("broker-a"), fakeClock(clk))
	origID, origOffset := tb.sendReconsumed(t, "TopicA", 0, "hello")
	orig := tb.messages(t, "TopicA", 0, 1)[0]

	resp := tb.sendBack(t, "g1", origOffset, 0, 16)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	retryTC := tb.b.TopicConfigManager().SelectTopicConfig("%RETRY%g1")
	require.NotNil(t, retryTC)
	require.Equal(t, int32(1), retryTC.WriteQueueNums)
	require.Equal(t, int32(1), retryTC.ReadQueueNums)
	require.Equal(t, int32(6), retryTC.Perm)

	parked := tb.messages(t, schedule.ScheduleTopic, 2, 1)[0]
	require.Equal(t, map[string]string{
		"UNIQ_KEY": "UNIQ-hello", "TAGS": "TagA", "CLUSTER": "DefaultCluster",
		"RETRY_TOPIC": "TopicA", "WAIT": "false", "DELAY": "3", "ORIGIN_MESSAGE_ID": origID,
		"REAL_TOPIC": "%RETRY%g1", "REAL_QID": "0",
	}, parked.Properties)
	require.Equal(t, int32(1), parked.ReconsumeTimes)
	require.Equal(t, "hello", string(parked.Body))
	require.Equal(t, orig.BornTimestamp, parked.BornTimestamp)
	require.Equal(t, orig.BornHost, parked.BornHost)
	require.Equal(t, orig.StoreHost, parked.StoreHost)
	require.Equal(t, orig.SysFlag, parked.SysFlag)
	require.Empty(t, tb.b.TopicConfigManager().SelectTopicConfig("%DLQ%g1"), "no dead letter yet")

	clk.Advance(2999 * time.Millisecond)
	require.Equal(t, 0, tb.b.ScheduleMessageService().DoDeliver(), "level 3 is 3 s")
	clk.Advance(1 * time.Millisecond)
	tb.b.ScheduleMessageService().DoDeliver() // the service's own loop may have been first
	retry := tb.messages(t, "%RETRY%g1", 0, 1)[0]
	require.Equal(t, int32(1), retry.ReconsumeTimes)
	require.Equal(t, "TopicA", retry.Properties[primitive.PropertyRetryTopic])
	require.Equal(t, origID, retry.Properties[primitive.PropertyOriginMessageID])

	resp = tb.sendBack(t, "g1", retry.CommitLogOffset, 0, 16)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	again := tb.messages(t, schedule.ScheduleTopic, 3, 1)[0]
	require.Equal(t, "4", again.Properties[primitive.PropertyDelayTimeLevel], "3 + reconsumeTimes 1")
	require.Equal(t, int32(2), again.ReconsumeTimes)
	require.Equal(t, origID, again.Properties[primitive.PropertyOriginMessageID], "the first id is kept")
	require.Equal(t, "TopicA", again.Properties[primitive.PropertyRetryTopic], "RETRY_TOPIC is not overwritten")
	raw, ok := tb.b.MessageStore().SelectOneMessageByOffset(store.CommitLogOffset(again.CommitLogOffset))
	require.True(t, ok)
	require.Equal(t, 1, strings.Count(string(raw), "REAL_TOPIC\x01"), "one REAL_TOPIC in the stored properties")

	var backs []trace.Recorded
	for _, s := range rec.Steps() {
		if s.Label == "SendMessageProcessor#asyncConsumerSendMsgBack" {
			backs = append(backs, s)
		}
	}
	require.Len(t, backs, 2)
	require.Equal(t, map[string]string{"group": "g1", "offset": "0", "originTopic": "TopicA", "topic": "%RETRY%g1",
		"queueId": "0", "delayLevel": "3", "reconsumeTimes": "1"}, backs[0].Attrs)
	require.Equal(t, "4", backs[1].Attrs["delayLevel"])
	require.Contains(t, rec.Labels(), "ScheduleMessageService#deliverMessage")
}

// TestConsumerSendMsgBackDecision pins the retry-or-DLQ decision of asyncConsumerSendMsgBack:
// DLQ when the stored reconsumeTimes ≥ maxReconsumeTimes (the header's from version 3.4.9 =
// 121 on, else the group's retryMaxTimes 16) or delayLevel < 0; else the retry topic with the
// header's delay level, or 3 + reconsumeTimes for 0. A dead letter goes to %DLQ%<group>
// (1 queue, perm 6 as in 4.9.2+) at once, with DELAY=0.
func TestConsumerSendMsgBackDecision(t *testing.T) {
	clk := new(clock.Manual)
	tb := startTestBroker(t, nil, fakeClock(clk))
	for _, tc := range []struct {
		name           string
		reconsumeTimes int32
		delayLevel     int32
		max            int32
		noMax          bool  // header without maxReconsumeTimes
		version        int32 // request version (0 = ours, 409)
		wantLevel      int32 // 0 = dead letter
	}{
		{name: "first failure", reconsumeTimes: 0, max: 16, wantLevel: 3},
		{name: "below max", reconsumeTimes: 2, max: 3, wantLevel: 5},
		{name: "reached max", reconsumeTimes: 2, max: 2, wantLevel: 0},
		{name: "above max", reconsumeTimes: 5, max: 2, wantLevel: 0},
		{name: "explicit level", reconsumeTimes: 1, delayLevel: 2, max: 16, wantLevel: 2},
		{name: "negative level", reconsumeTimes: 0, delayLevel: -1, max: 16, wantLevel: 0},
		{name: "group max 16 without header", reconsumeTimes: 15, noMax: true, wantLevel: 18},
		{name: "group max 16 reached", reconsumeTimes: 16, noMax: true, wantLevel: 0},
		{name: "old client: header max ignored", reconsumeTimes: 2, max: 2, version: 120, wantLevel: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := "g-" + strings.ReplaceAll(tc.name, " ", "-")
			group = strings.ReplaceAll(group, ":", "")
			_, offset := tb.sendReconsumed(t, "TopicD", tc.reconsumeTimes, tc.name)
			h := protocol.ConsumerSendMsgBackRequestHeader{Group: group, Offset: offset, DelayLevel: tc.delayLevel,
				MaxReconsumeTimes: tc.max, HasMaxReconsumeTimes: !tc.noMax}
			req := remoting.NewRequest(protocol.ConsumerSendMsgBack, protocol.EncodeHeader(&h), nil)
			if tc.version != 0 {
				req.Version = tc.version
			}
			resp := tb.invoke(t, req)
			require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
			var m *primitive.MessageExt
			dlq := protocol.GetDLQTopic(group)
			if tc.wantLevel == 0 {
				dtc := tb.b.TopicConfigManager().SelectTopicConfig(dlq)
				require.NotNil(t, dtc)
				require.Equal(t, int32(1), dtc.ReadQueueNums)
				require.Equal(t, int32(1), dtc.WriteQueueNums)
				require.Equal(t, int32(6), dtc.Perm)
				m = tb.messages(t, dlq, 0, 1)[0]
				require.Equal(t, dlq, m.Topic)
				require.Equal(t, "0", m.Properties[primitive.PropertyDelayTimeLevel])
			} else {
				require.Nil(t, tb.b.TopicConfigManager().SelectTopicConfig(dlq))
				require.Eventually(t, func() bool {
					res := tb.b.MessageStore().GetMessage("test", schedule.ScheduleTopic, tc.wantLevel-1, 0, 64, nil)
					msgs, err := primitive.DecodeMessages(res.Body())
					require.NoError(t, err)
					for _, x := range msgs {
						if string(x.Body) == tc.name {
							m = x
						}
					}
					return m != nil
				}, 5*time.Second, time.Millisecond, "parked in SCHEDULE_TOPIC_XXXX queue %d", tc.wantLevel-1)
				require.Equal(t, protocol.GetRetryTopic(group), m.Properties[primitive.PropertyRealTopic])
			}
			require.Equal(t, tc.reconsumeTimes+1, m.ReconsumeTimes)
			require.Equal(t, "TopicD", m.Properties[primitive.PropertyRetryTopic])
		})
	}
}

// TestConsumerSendMsgBackRefusals: an unknown group without auto-create is
// SUBSCRIPTION_GROUP_NOT_EXIST (26); an offset with no message is SYSTEM_ERROR (1) "look message
// by offset failed"; a group with retryQueueNums 0 is answered SUCCESS and the message dropped;
// a header without group is SYSTEM_ERROR. Java: asyncConsumerSendMsgBack's early returns.
func TestConsumerSendMsgBackRefusals(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
		c.AutoCreateSubscriptionGroup = false
	})
	_, offset := tb.sendReconsumed(t, "TopicR", 0, "x")

	resp := tb.sendBack(t, "nobody", offset, 0, 16)
	require.Equal(t, int32(protocol.SubscriptionGroupNotExist), resp.Code)
	require.Equal(t, int32(26), resp.Code)
	require.Contains(t, resp.Remark, "subscription group not exist, nobody")

	tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(NewSubscriptionGroupConfig("g"))
	resp = tb.sendBack(t, "g", 1<<40, 0, 16)
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Equal(t, "look message by offset failed, 1099511627776", resp.Remark)

	noRetry := NewSubscriptionGroupConfig("noretry")
	noRetry.RetryQueueNums = 0
	tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(noRetry)
	resp = tb.sendBack(t, "noretry", offset, 0, 16)
	require.Equal(t, int32(protocol.Success), resp.Code)
	require.Nil(t, tb.b.TopicConfigManager().SelectTopicConfig("%RETRY%noretry"), "dropped: no retry topic")
	require.Zero(t, tb.b.MessageStore().GetMaxOffsetInQueue(schedule.ScheduleTopic, 2))

	resp = tb.invoke(t, remoting.NewRequest(protocol.ConsumerSendMsgBack, map[string]string{"offset": "0", "delayLevel": "0"}, nil))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
}

// TestConsumerSendMsgBackReadOnlyBroker: a broker without write permission refuses with
// NO_PERMISSION (16).
func TestConsumerSendMsgBackReadOnlyBroker(t *testing.T) {
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
		c.BrokerPermission = int(protocol.PermRead)
	})
	resp := tb.sendBack(t, "g", 0, 0, 16)
	require.Equal(t, int32(protocol.NoPermission), resp.Code)
}

// TestGetAllDelayOffsetAndPersist: GET_ALL_DELAY_OFFSET (45) answers the in-memory delay offset
// table as fastjson's compact JSON with unquoted levels; Shutdown writes config/delayOffset.json
// pretty-printed. Java: AdminBrokerProcessor#getAllDelayOffset, ScheduleMessageService#persist.
func TestGetAllDelayOffsetAndPersist(t *testing.T) {
	clk := new(clock.Manual)
	tb := startTestBroker(t, nil, fakeClock(clk))
	get := func() string {
		resp := tb.invoke(t, remoting.NewRequest(protocol.GetAllDelayOffset, nil, nil))
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		return string(resp.Body)
	}
	require.Equal(t, `{"offsetTable":{}}`, get())

	h := sendHeader("TopicS", 0, map[string]string{primitive.PropertyDelayTimeLevel: "2"})
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("later")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	tb.waitDispatched(t, schedule.ScheduleTopic, 1, 1)
	require.Zero(t, tb.b.MessageStore().GetMaxOffsetInQueue("TopicS", 0), "parked, not in its topic yet")
	clk.Advance(2000 * time.Millisecond)
	tb.b.ScheduleMessageService().DoDeliver()
	tb.waitDispatched(t, "TopicS", 0, 1)
	require.Equal(t, `{"offsetTable":{2:1}}`, get())

	tb.b.Shutdown()
	data, err := os.ReadFile(schedule.DelayOffsetPath(tb.b.MessageStoreConfig().StorePathRootDir))
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"offsetTable\":{2:1\n\t}\n}", string(data))
}

// TestSendToRetryTopicWithDelay: client-go's fallback (remoting-protocol.md §9.4) sends the
// message itself to %RETRY%<group> with DELAY = 3 + reconsumeTimes; the store parks it in
// SCHEDULE_TOPIC_XXXX and the schedule service delivers it to the retry topic.
func TestSendToRetryTopicWithDelay(t *testing.T) {
	clk := new(clock.Manual)
	tb := startTestBroker(t, nil, fakeClock(clk))
	h := sendHeader("%RETRY%gf", 0, map[string]string{primitive.PropertyDelayTimeLevel: "4",
		primitive.PropertyRetryTopic: "TopicF"})
	h.ProducerGroup = "CLIENT_INNER_PRODUCER"
	h.ReconsumeTimes = 1
	h.MaxReconsumeTimes = 16
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte("fallback")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	parked := tb.messages(t, schedule.ScheduleTopic, 3, 1)[0]
	require.Equal(t, "%RETRY%gf", parked.Properties[primitive.PropertyRealTopic])
	clk.Advance(4000 * time.Millisecond)
	tb.b.ScheduleMessageService().DoDeliver()
	m := tb.messages(t, "%RETRY%gf", 0, 1)[0]
	require.Equal(t, int32(1), m.ReconsumeTimes)
	require.Equal(t, "fallback", string(m.Body))
}
