package command_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestConsumerProgress: a group that consumed the first 10 messages of a 2-queue topic (5 per
// queue) and then saw 6 more arrive while it was gone shows, per queue, broker offsets 8 and
// consumer offsets 5, a #Diff of 3 each and a total lag of 6 — the lag the group really has.
// Without -g the group is listed with its total lag. Java: ConsumerProgressSubCommand.
func TestConsumerProgress(t *testing.T) {
	c := startCluster(t, 1)
	topic, group := name(t, "CP_"), name(t, "cg_")
	createTopic(t, c, topic, 2)
	p := startProducer(t, c, name(t, "pg_"))
	for q := range int32(2) {
		sendTo(t, p, primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: q}, fmt.Sprint("first", q), "", "", 5)
	}
	cons, rec := startConsumer(t, c, group, topic)
	require.Len(t, rec.take(t, 10), 10)
	require.Eventually(t, func() bool { // the consume service moves the offsets; persist them now
		cons.PersistConsumerOffset()
		off := c.Brokers[0].ConsumerOffsetManager().QueryOffsets(group, topic)
		return off[0] == 5 && off[1] == 5
	}, 10*time.Second, 20*time.Millisecond)
	cons.Shutdown()
	for q := range int32(2) {
		sendTo(t, p, primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: q}, fmt.Sprint("later", q), "", "", 3)
	}

	var out string
	require.Eventually(t, func() bool { // the ConsumeQueue follows the CommitLog
		out = ok(t, c, "consumerProgress", "-g", group)
		return strings.Contains(out, "Diff Total: 6\n")
	}, 5*time.Second, 20*time.Millisecond, out)
	tbl := rows(out)
	require.Equal(t, []string{"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Client IP", "#Diff", "#LastTime"}, tbl[0])
	if len(tbl) == 4 { // the retry queue's offset, once the consumer committed one for it
		require.Equal(t, []string{"%RETRY%" + group, "broker-a", "0", "0", "0", "N/A", "0", "N/A"}, tbl[1])
		tbl = slices.Delete(tbl, 1, 2)
	}
	require.Len(t, tbl, 3, "the topic's two queues")
	for q, r := range tbl[1:] {
		require.Equal(t, []string{topic, "broker-a", fmt.Sprint(q), "8", "5", "N/A", "3"}, r[:7])
		require.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`, r[7], "the store time of the last consumed message")
	}
	require.Contains(t, out, "Consume TPS: 0.00\n")

	out = ok(t, c, "consumerProgress", "-g", group, "-t", topic)
	require.Contains(t, out, "Diff Total: 6\n")

	all := rows(ok(t, c, "consumerProgress"))
	require.Equal(t, []string{"#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total"}, all[0])
	i := slices.IndexFunc(all, func(r []string) bool { return r[0] == group })
	require.GreaterOrEqual(t, i, 1, "%v", all)
	require.Equal(t, "6", all[i][6])
	require.Equal(t, "0", all[i][1], "no consumer online")

	r := mqadmin(t, c, "consumerProgress", "-g", name(t, "nobody_"))
	require.Equal(t, command.ExitFailed, r.code, "a group without a retry topic has no route")
}

// TestConsumerAndProducerConnection: a running consumer shows with its client id, address,
// language and version, its subscriptions and its consume settings; a producer group's
// client shows under producerConnection; a group nobody runs fails with the broker's
// CONSUMER_NOT_ONLINE (206). Java: ConsumerConnectionSubCommand, ProducerConnectionSubCommand.
func TestConsumerAndProducerConnection(t *testing.T) {
	c := startCluster(t, 1)
	topic, group, pgroup := name(t, "CC_"), name(t, "cg_"), name(t, "pg_")
	createTopic(t, c, topic, 1)
	cons, _ := startConsumer(t, c, group, topic)
	clientID := cons.Instance().ClientID()

	var out string
	require.Eventually(t, func() bool {
		r := mqadmin(t, c, "consumerConnection", "-g", group)
		out = r.out
		return r.code == command.ExitOK
	}, 10*time.Second, 50*time.Millisecond)
	tbl := rows(out)
	require.Equal(t, []string{"#ClientId", "#ClientAddr", "#Language", "#Version"}, tbl[0])
	require.Equal(t, clientID, tbl[1][0])
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, tbl[1][1])
	require.Equal(t, []string{"JAVA", "V4_9_8"}, tbl[1][2:], "our client speaks as Java 4.9.8")
	require.Equal(t, []string{"#Topic", "#SubExpression"}, tbl[2])
	require.Contains(t, tbl[3:], []string{topic, "*"})
	require.Contains(t, tbl[3:], []string{"%RETRY%" + group, "*"})
	require.Contains(t, out, "ConsumeType: CONSUME_PASSIVELY\nMessageModel: CLUSTERING\nConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET\n")

	p := startProducer(t, c, pgroup)
	sendTo(t, p, primitive.MessageQueue{Topic: topic, BrokerName: "broker-a"}, "m", "", "", 1) // the producer learns the broker
	p.MQClientInstance().SendHeartbeatToAllBrokerWithLock()
	tbl = rows(ok(t, c, "producerConnection", "-g", pgroup, "-t", topic))
	require.Equal(t, []string{"#ClientId", "#ClientAddr", "#Language", "#Version"}, tbl[0])
	require.Len(t, tbl, 2)
	require.Equal(t, p.MQClientInstance().ClientID(), tbl[1][0])

	r := mqadmin(t, c, "producerConnection", "-g", "nobody", "-t", topic)
	require.Equal(t, command.ExitFailed, r.code)
	require.Contains(t, r.errOut, "the producer group[nobody] not exist")

	cons.Shutdown()
	require.Eventually(t, func() bool {
		r = mqadmin(t, c, "consumerConnection", "-g", group)
		return r.code == command.ExitFailed
	}, 10*time.Second, 50*time.Millisecond)
	require.Contains(t, r.errOut, "CODE: 206 DESC: the consumer group["+group+"] not online")
}

// TestSubscriptionGroup: updateSubGroup creates the group's config on the cluster's masters
// with the values given (the others Java's defaults); deleteSubGroup removes it, and with
// -r true the group's offsets too. Java: UpdateSubGroupSubCommand, DeleteSubscriptionGroupCommand.
func TestSubscriptionGroup(t *testing.T) {
	c := startCluster(t, 2)
	group := "sg_" + name(t, "")
	out := ok(t, c, "updateSubGroup", "-c", "DefaultCluster", "-g", group, "-r", "3", "-q", "2", "-s", "false")
	for _, b := range c.Brokers {
		require.Contains(t, out, "create subscription group to "+b.BrokerAddr()+" success.\n")
		sg, ok := b.SubscriptionGroupManager().SubscriptionGroupTable()[group]
		require.True(t, ok)
		require.Equal(t, int32(3), sg.RetryMaxTimes)
		require.Equal(t, int32(2), sg.RetryQueueNums)
		require.False(t, sg.ConsumeEnable)
		require.True(t, sg.ConsumeBroadcastEnable, "Java's default")
		require.Equal(t, int64(1), sg.WhichBrokerWhenConsumeSlowly)
	}
	require.Contains(t, out, "SubscriptionGroupConfig [groupName="+group+", consumeEnable=false")

	a := c.Brokers[0]
	a.ConsumerOffsetManager().CommitOffset("test", group, "SomeTopic", 0, 7)
	out = ok(t, c, "deleteSubGroup", "-b", a.BrokerAddr(), "-g", group, "-r", "true")
	require.Equal(t, "delete subscription group ["+group+"] from broker ["+a.BrokerAddr()+"] in cluster [] success.\n", out)
	_, still := a.SubscriptionGroupManager().SubscriptionGroupTable()[group]
	require.False(t, still)
	require.Nil(t, a.ConsumerOffsetManager().QueryOffsets(group, "SomeTopic"), "removeOffset")
	_, onB := c.Brokers[1].SubscriptionGroupManager().SubscriptionGroupTable()[group]
	require.True(t, onB, "-b deletes on that broker only")
}

// TestResetOffsetByTime: a running consumer that consumed every message re-consumes, after
// resetOffsetByTime to a time between two batches, exactly the second batch: the broker
// computed the offsets at that time and pushed them to the consumer
// (RESET_CONSUMER_CLIENT_OFFSET). The command prints the offsets set. With nobody online the
// offsets are committed on the broker (the old way). Java: ResetOffsetByTimeCommand.
func TestResetOffsetByTime(t *testing.T) {
	c := startCluster(t, 1)
	topic, group := name(t, "RO_"), name(t, "cg_")
	createTopic(t, c, topic, 2)
	p := startProducer(t, c, name(t, "pg_"))
	mq0 := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	mq1 := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 1}
	first := sendTo(t, p, mq0, "old", "", "", 3)
	_, lastOffset, err := primitive.DecodeOffsetMsgID(first[2].OffsetMsgID)
	require.NoError(t, err)
	last, err := c.Brokers[0].MessageStore().LookMessageByOffset(store.CommitLogOffset(lastOffset))
	require.NoError(t, err)
	oldEnd := last.StoreTimestamp
	// The second batch is stored at least 2 ms after the first one ends.
	require.Eventually(t, func() bool { return time.Now().UnixMilli() > oldEnd+2 }, time.Second, time.Millisecond)
	second := sendTo(t, p, mq0, "new0", "", "", 2)
	sendTo(t, p, mq1, "new1", "", "", 2)
	_, newOffset, err := primitive.DecodeOffsetMsgID(second[0].OffsetMsgID)
	require.NoError(t, err)
	newFirst, err := c.Brokers[0].MessageStore().LookMessageByOffset(store.CommitLogOffset(newOffset))
	require.NoError(t, err)
	cons, rec := startConsumer(t, c, group, topic)
	require.Len(t, rec.take(t, 7), 7)
	require.Eventually(t, func() bool {
		cons.PersistConsumerOffset()
		off := c.Brokers[0].ConsumerOffsetManager().QueryOffsets(group, topic)
		return off[0] == 5 && off[1] == 2
	}, 10*time.Second, 20*time.Millisecond)

	// The store time of the second batch's first message: the broker picks the message stored
	// nearest the time (ConsumeQueue#getOffsetInQueueByTime), here exactly that one.
	ts := fmt.Sprint(newFirst.StoreTimestamp)
	out := ok(t, c, "resetOffsetByTime", "-g", group, "-t", topic, "-s", ts)
	require.Contains(t, out, "rollback consumer offset by specified group["+group+"], topic["+topic+"], force[true], timestamp(string)["+ts+"]")
	tbl := rows(out)
	require.Equal(t, [][]string{{"#brokerName", "#queueId", "#offset"}, {"broker-a", "0", "3"}, {"broker-a", "1", "0"}}, tbl)
	again := rec.take(t, 4)
	slices.Sort(again)
	require.Equal(t, []string{"new0-0", "new0-1", "new1-0", "new1-1"}, again, "the messages stored after the time, and only those")
	select {
	case b := <-rec.ch:
		t.Fatalf("consumed %q once more", b)
	case <-time.After(500 * time.Millisecond):
	}

	cons.Shutdown()
	require.Eventually(t, func() bool {
		return c.Brokers[0].ConsumerManager().GetConsumerGroupInfo(group) == nil
	}, 10*time.Second, 20*time.Millisecond)
	out = ok(t, c, "resetOffsetByTime", "-g", group, "-t", topic, "-s", "0")
	tbl = rows(out)
	require.Equal(t, []string{"#brokerName", "#queueId", "#brokerOffset", "#consumerOffset", "#timestampOffset", "#resetOffset"}, tbl[0])
	require.Equal(t, []string{"broker-a", "0", "5", "5", "0", "0"}, tbl[1])
	require.Equal(t, map[int32]int64{0: 0, 1: 0}, toInt64(c.Brokers[0].ConsumerOffsetManager().QueryOffsets(group, topic)))

	r := mqadmin(t, c, "resetOffsetByTime", "-g", group, "-t", topic, "-s", "yesterday")
	require.Equal(t, command.ExitUsage, r.code)
}

func toInt64[K comparable, V ~int64](m map[K]V) map[K]int64 {
	out := map[K]int64{}
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}
