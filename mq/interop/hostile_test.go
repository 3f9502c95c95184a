package interop

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// hostileSend is a SEND_MESSAGE header (long keys) to topic and queueID, edited by more.
func hostileSend(topic string, queueID int, more ...func(map[string]string)) map[string]string {
	ext := map[string]string{"producerGroup": "hostile", "topic": topic, "defaultTopic": protocol.DefaultTopic,
		"defaultTopicQueueNums": "4", "queueId": strconv.Itoa(queueID), "sysFlag": "0",
		"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0"}
	for _, f := range more {
		f(ext)
	}
	return ext
}

// hostilePull is a PULL_MESSAGE header with the subscription flag (the broker builds the
// subscription from the request) for queue 0 of Hostile, edited by more.
func hostilePull(more ...func(map[string]string)) map[string]string {
	ext := map[string]string{"consumerGroup": "hostile-g", "topic": "Hostile", "queueId": "0", "queueOffset": "0",
		"maxMsgNums": "32", "sysFlag": strconv.Itoa(int(protocol.PullFlagSubscription)), "commitOffset": "0",
		"suspendTimeoutMillis": "0", "subscription": "*", "subVersion": "0"}
	for _, f := range more {
		f(ext)
	}
	return ext
}

func set(key, value string) func(map[string]string) {
	return func(ext map[string]string) { ext[key] = value }
}

// TestBadRequestsGetRocketMQAnswers sends bad requests, each on its own raw connection, to a
// broker and its name server and checks each answer: the response code RocketMQ 4.9 gives,
// with a remark saying why; never a panic, and the servers keep serving (a connection opened
// before, a new one and the official producer still get answers). Frames that cannot be
// decoded at all close their connection (TestMalformedFramesCloseOnlyThatConnection).
//
// Where RocketMQ 4.9 serves a bad request, the broker refuses it (marked Deviations, listed in
// the README's "Where it is stricter than RocketMQ"): a negative queueId on a send (Java picks
// a queue), a compressed flag on a body that is not zlib or on a batch (Java stores it as sent,
// and the consumer fails to inflate it), a pull's maxMsgNums below 0 or above 1024 (Java caps
// it by maxTransferCountOnMessageInMemory, and a negative one still returns one message),
// UPDATE_AND_CREATE_TOPIC with more than broker.MaxTopicQueueNums (1024) queues (4.9's
// AdminBrokerProcessor#updateAndCreateTopic checks only the name). One row is served, as
// RocketMQ serves it, because the broker bounds it: an auto-created topic gets at most
// TBW102's queue count whatever the producer asks (TopicConfigManager#createTopicInSendMessageMethod).
func TestBadRequestsGetRocketMQAnswers(t *testing.T) {
	t.Parallel()
	c, p := startWithProducer(t, "hostile-producer")
	broker, namesrv := c.Brokers[0].BrokerAddr(), c.NamesrvAddr()
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	require.NoError(t, mqtest.CreateTopic(cl, broker, "Hostile", 4, protocol.PermRead|protocol.PermWrite))
	sendSync(t, p, primitive.NewMessage("Hostile", []byte("before")))
	req := remoting.NewRequest
	setup := dialRaw(t, broker)
	for range 3 { // queue 0 holds messages for the pulls
		resp := setup.invoke(t, req(protocol.SendMessage, hostileSend("Hostile", 0), []byte("queue 0")))
		require.Equal(t, int32(remoting.Success), resp.Code, resp.Remark)
	}
	require.NoError(t, mqtest.WaitUntil(5*time.Second, func() bool {
		resp := setup.invoke(t, req(protocol.GetMaxOffset,
			protocol.EncodeHeader(&protocol.GetMaxOffsetRequestHeader{Topic: "Hostile", QueueID: 0}), nil))
		return resp.ExtFields["offset"] == "3"
	}), "queue 0 dispatched")

	rows := []struct {
		name   string
		addr   string
		req    *remoting.RemotingCommand
		code   int32
		remark string // a part of the remark
	}{
		{"unknown request code", broker, req(9999, nil, nil), remoting.RequestCodeNotSupported, "not supported"},
		{"unknown request code (name server)", namesrv, req(9999, nil, nil), remoting.RequestCodeNotSupported, "not supported"},
		{"send header without topic", broker, req(protocol.SendMessage, map[string]string{"producerGroup": "x"}, []byte("b")),
			remoting.SystemError, `"topic"`},
		{"send queueId not a number", broker, req(protocol.SendMessage, hostileSend("Hostile", 0, set("queueId", "x")), []byte("b")),
			remoting.SystemError, `"queueId"`},
		{"topic over 127 characters", broker, req(protocol.SendMessage, hostileSend(strings.Repeat("t", 200), 0), []byte("b")),
			remoting.SystemError, "longer than topic max length"},
		{"topic with illegal characters", broker, req(protocol.SendMessage, hostileSend("a b/c", 0), []byte("b")),
			remoting.SystemError, "illegal characters"},
		{"send to a system topic", broker, req(protocol.SendMessage, hostileSend("SCHEDULE_TOPIC_XXXX", 0), []byte("b")),
			protocol.NoPermission, "is forbidden"},
		{"queueId out of range", broker, req(protocol.SendMessage, hostileSend("Hostile", 1000), []byte("b")),
			remoting.SystemError, "queueId[1000] is illegal"},
		{"properties over 32767 bytes", broker,
			req(protocol.SendMessage, hostileSend("Hostile", 0, set("properties", "K\x01"+strings.Repeat("v", 40000))), []byte("b")),
			protocol.MessageIllegal, "properties length limit"},
		{"body over maxMessageSize", broker, req(protocol.SendMessage, hostileSend("Hostile", 0), make([]byte, 4<<20+10)),
			protocol.MessageIllegal, "msg body length limit"},
		{"pull at a negative offset", broker, req(protocol.PullMessage, hostilePull(set("queueOffset", "-5")), nil),
			protocol.PullOffsetMoved, ""}, // the remark is the store's status (NO_MATCHED_LOGIC_QUEUE, OFFSET_TOO_SMALL)
		{"pull from a negative queueId", broker, req(protocol.PullMessage, hostilePull(set("queueId", "-3")), nil),
			remoting.SystemError, "queueId[-3] is illegal"},
		{"pull from a queueId out of range", broker, req(protocol.PullMessage, hostilePull(set("queueId", "300")), nil),
			remoting.SystemError, "queueId[300] is illegal"},
		{"topic with negative queue counts", broker, req(protocol.UpdateAndCreateTopic, map[string]string{"topic": "Neg",
			"defaultTopic": protocol.DefaultTopic, "readQueueNums": "-4", "writeQueueNums": "-4", "perm": "6",
			"topicFilterType": "SINGLE_TAG", "order": "false"}, nil), remoting.SystemError, "must not be negative"},
		{"topic created with 1e8 queues", broker, req(protocol.UpdateAndCreateTopic, map[string]string{"topic": "Absurd",
			"defaultTopic": protocol.DefaultTopic, "readQueueNums": "100000000", "writeQueueNums": "100000000", "perm": "6",
			"topicFilterType": "SINGLE_TAG", "order": "false"}, nil), remoting.SystemError, "must be at most 1024"},
		{"heartbeat body not JSON", broker, req(protocol.HeartBeat, nil, []byte("{garbage")), remoting.SystemError, "bad heartbeat body"},
		{"registration body not JSON", namesrv, req(protocol.RegisterBroker, map[string]string{"brokerName": "x",
			"brokerAddr": "127.0.0.1:1", "clusterName": "c", "haServerAddr": "", "brokerId": "0", "compressed": "false"},
			[]byte("{garbage")), remoting.SystemError, "bad register body"},

		// served by RocketMQ, refused here (see the doc comment)
		{"send to a negative queueId", broker, req(protocol.SendMessage, hostileSend("Hostile", -5), []byte("b")),
			remoting.SystemError, "queueId[-5] is illegal"},
		{"compressed flag on a body that is not zlib", broker,
			req(protocol.SendMessage, hostileSend("Hostile", 0, set("sysFlag", "1")), []byte("not zlib")),
			protocol.MessageIllegal, "the body is not zlib"},
		{"compressed flag on a batch", broker,
			req(protocol.SendMessage, hostileSend("Hostile", 0, set("sysFlag", "1"), set("batch", "true")), []byte("x")),
			protocol.MessageIllegal, "a batch cannot have the compressed flag"},
		{"pull of 2e9 messages", broker, req(protocol.PullMessage, hostilePull(set("maxMsgNums", "2000000000")), nil),
			remoting.SystemError, "maxMsgNums[2000000000] is illegal"},
		{"pull of -1 messages", broker, req(protocol.PullMessage, hostilePull(set("maxMsgNums", "-1")), nil),
			remoting.SystemError, "maxMsgNums[-1] is illegal"},
		{"pull of 0 messages (served: one message)", broker, req(protocol.PullMessage, hostilePull(set("maxMsgNums", "0")), nil),
			remoting.Success, "FOUND"},

		// served as RocketMQ serves it, bounded (see the doc comment)
		{"auto-created topic asking for 1e8 queues", broker,
			req(protocol.SendMessage, hostileSend("AutoAbsurd", 0, set("defaultTopicQueueNums", "100000000")), []byte("b")), remoting.Success, ""},
	}
	keepBroker, keepNamesrv := dialRaw(t, broker), dialRaw(t, namesrv)
	for _, row := range rows {
		resp := dialRaw(t, row.addr).invoke(t, row.req)
		t.Logf("%-44s code %d %q", row.name, resp.Code, resp.Remark)
		require.Equal(t, row.code, resp.Code, "%s: %s", row.name, resp.Remark)
		require.Contains(t, resp.Remark, row.remark, row.name)
		if row.code != remoting.Success {
			require.NotEmpty(t, resp.Remark, "%s: a refusal says why", row.name)
		}
	}
	// the auto-created topic got TBW102's queue count (8), not what was asked
	sendTo := func(queueID int) *remoting.RemotingCommand {
		return keepBroker.invoke(t, req(protocol.SendMessage, hostileSend("AutoAbsurd", queueID), []byte("b")))
	}
	require.Equal(t, int32(remoting.Success), sendTo(7).Code)
	resp := sendTo(8)
	require.Equal(t, int32(remoting.SystemError), resp.Code, "no queue 8 in the auto-created topic")
	require.Contains(t, resp.Remark, "has 8 queues")

	// everyone else is still served
	resp = keepNamesrv.invoke(t, req(protocol.GetRouteinfoByTopic, map[string]string{"topic": "TBW102"}, nil))
	require.Equal(t, int32(remoting.Success), resp.Code, resp.Remark)
	require.Equal(t, primitive.SendOK, sendSync(t, p, primitive.NewMessage("Hostile", []byte("after"))).Status)
}
