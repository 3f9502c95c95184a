package command_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// TestQueryMessages: queryMsgByKey lists exactly the messages of the topic carrying the key
// (not those of another topic with the same key, nor those with a key that only starts the
// same way); queryMsgById finds a message by its offsetMsgId, and by its UNIQ_KEY with -t;
// queryMsgByOffset finds it by broker, queue and queue offset. Java: QueryMsgByKeySubCommand,
// QueryMsgByIdSubCommand, QueryMsgByOffsetSubCommand.
func TestQueryMessages(t *testing.T) {
	c := startCluster(t, 2)
	topic, other := name(t, "Q_"), name(t, "O_")
	createTopic(t, c, topic, 2)
	createTopic(t, c, other, 1)
	p := startProducer(t, c, name(t, "pg_"))
	mqA := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 1}
	mqB := primitive.MessageQueue{Topic: topic, BrokerName: "broker-b", QueueID: 0}
	hits := append(sendTo(t, p, mqA, "a", "order-1", "TagA", 2), sendTo(t, p, mqB, "b", "order-1 x", "TagB", 1)...)
	sendTo(t, p, mqA, "near", "order-10", "", 1)
	sendTo(t, p, primitive.MessageQueue{Topic: other, BrokerName: "broker-a"}, "other", "order-1", "", 1)

	var tbl [][]string
	require.Eventually(t, func() bool { // the index is built by the reput service
		r := mqadmin(t, c, "queryMsgByKey", "-t", topic, "-k", "order-1")
		tbl = rows(r.out)
		return r.code == command.ExitOK && len(tbl) == 4
	}, 5*time.Second, 20*time.Millisecond, "%v", tbl)
	require.Equal(t, []string{"#Message ID", "#QID", "#Offset"}, tbl[0])
	var want, got []string
	for _, h := range hits {
		want = append(want, h.MsgID+" "+itoa(h.MessageQueue.QueueID)+" "+itoa64(h.QueueOffset))
	}
	for _, r := range tbl[1:] {
		got = append(got, strings.Join(r, " "))
	}
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got)
	require.Len(t, rows(ok(t, c, "queryMsgByKey", "-t", topic, "-k", "order-1", "-c", "1")), 2, "-c caps the rows")

	r := mqadmin(t, c, "queryMsgByKey", "-t", topic, "-k", "none")
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "message not found")

	h := hits[2]
	d := keyValues(ok(t, c, "queryMsgById", "-i", h.OffsetMsgID), ": ")
	require.Equal(t, h.OffsetMsgID, d["OffsetID"])
	require.Equal(t, h.MsgID, d["MsgID"])
	require.Equal(t, topic, d["Topic"])
	require.Equal(t, "[TagB]", d["Tags"])
	require.Equal(t, "[order-1 x]", d["Keys"])
	require.Equal(t, "0", d["Queue ID"])
	require.Equal(t, "b-0", d["Message Body"])
	require.Equal(t, c.Brokers[1].BrokerAddr(), d["Store Host"])
	require.Regexp(t, regexp.MustCompile(`^\{.*KEYS=order-1 x.*UNIQ_KEY=`+h.MsgID+`.*\}$`), d["Properties"])

	d = keyValues(ok(t, c, "queryMsgById", "-t", topic, "-i", h.MsgID), ": ")
	require.Equal(t, h.OffsetMsgID, d["OffsetID"], "the UNIQ_KEY through the index")
	r = mqadmin(t, c, "queryMsgById", "-i", h.MsgID)
	require.Equal(t, command.ExitFailed, r.code, "a UNIQ_KEY without -t")
	require.Contains(t, r.errOut, "msgId "+h.MsgID+" is not an offset msgId")
	require.Contains(t, r.errOut, "a producer msgId (UNIQ_KEY) needs the topic")

	d = keyValues(ok(t, c, "queryMsgByOffset", "-t", topic, "-b", "broker-a", "-i", "1", "-o", "1"), ": ")
	require.Equal(t, hits[1].OffsetMsgID, d["OffsetID"])
	require.Equal(t, "a-1", d["Message Body"])
	require.Equal(t, "1", d["Queue Offset"])
	r = mqadmin(t, c, "queryMsgByOffset", "-t", topic, "-b", "broker-a", "-i", "1", "-o", "9")
	require.Equal(t, command.ExitFailed, r.code)
}

// TestSendMessageAndPrint: sendMessage stores a message (to the queue asked, with -b and -i)
// and prints its queue, status and msgId; printMsg prints every message of the topic queue by
// queue, filtered by tag with -s; consumeMessage prints up to -c messages of one queue from -o.
// Java: SendMessageCommand, PrintMessageSubCommand, ConsumeMessageCommand.
func TestSendMessageAndPrint(t *testing.T) {
	c := startCluster(t, 1)
	topic := "P_" + name(t, "")
	createTopic(t, c, topic, 2)
	var ids []string
	for i, body := range []string{"hello", "world", "again"} {
		tag := "TagA"
		if i == 1 {
			tag = "TagB"
		}
		tbl := rows(ok(t, c, "sendMessage", "-t", topic, "-p", body, "-k", "k"+body, "-c", tag, "-b", "broker-a", "-i", itoa(int32(i%2))))
		require.Equal(t, []string{"#Broker Name", "#QID", "#Send Result", "#MsgId"}, tbl[0])
		require.Equal(t, []string{"broker-a", itoa(int32(i % 2)), "SEND_OK"}, tbl[1][:3])
		require.Regexp(t, `^[0-9A-F]{32}$`, tbl[1][3])
		ids = append(ids, tbl[1][3])
	}
	var d map[string]string
	require.Eventually(t, func() bool { // the UNIQ_KEY is found through the index, built behind the send
		r := mqadmin(t, c, "queryMsgById", "-t", topic, "-i", ids[0])
		d = keyValues(r.out, ": ")
		return r.code == command.ExitOK
	}, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, "hello", d["Message Body"])

	var out string
	require.Eventually(t, func() bool {
		out = ok(t, c, "printMsg", "-t", topic)
		return strings.Count(out, "MSGID: ") == 3
	}, 5*time.Second, 20*time.Millisecond, out)
	require.Contains(t, out, "MSGID: "+ids[0]+" QID: 0 OFFSET: 0 KEYS: [khello] TAGS: [TagA] BODY: hello\n")
	require.Contains(t, out, "MSGID: "+ids[2]+" QID: 0 OFFSET: 1 KEYS: [kagain] TAGS: [TagA] BODY: again\n")
	require.Contains(t, out, "MSGID: "+ids[1]+" QID: 1 OFFSET: 0 KEYS: [kworld] TAGS: [TagB] BODY: world\n")

	out = ok(t, c, "printMsg", "-t", topic, "-s", "TagB", "-d", "false")
	require.Equal(t, 1, strings.Count(out, "MSGID: "))
	require.Contains(t, out, "MSGID: "+ids[1]+" QID: 1 OFFSET: 0 KEYS: [kworld] TAGS: [TagB] BODY: NOT PRINT BODY\n")

	out = ok(t, c, "consumeMessage", "-t", topic, "-b", "broker-a", "-i", "0", "-o", "1")
	require.Equal(t, 1, strings.Count(out, "MSGID: "))
	require.Contains(t, out, "BODY: again\n")
	require.Contains(t, out, "Consume ok, 1 messages\n")
	out = ok(t, c, "consumeMessage", "-t", topic, "-c", "2")
	require.Equal(t, 2, strings.Count(out, "MSGID: "))

	r := mqadmin(t, c, "sendMessage", "-t", topic, "-p", "x", "-b", "broker-a")
	require.Equal(t, command.ExitUsage, r.code)
	require.Contains(t, r.errOut, "-b and -i go together")
}
