package consumer

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// pulledRecord builds one IPv4 message record as a PULL_MESSAGE body carries it
// (store-formats.md: TOTALSIZE 4 | MAGICCODE 4 | BODYCRC 4 | QUEUEID 4 | FLAG 4 | QUEUEOFFSET 8 |
// PHYSICALOFFSET 8 | SYSFLAG 4 | BORNTIMESTAMP 8 | BORNHOST 8 | STORETIMESTAMP 8 | STOREHOST 8 |
// RECONSUMETIMES 4 | PREPAREDTRANSACTIONOFFSET 8 | BODYLENGTH 4 | BODY | TOPICLENGTH 1 | TOPIC |
// PROPERTIESLENGTH 2 | PROPERTIES), big-endian.
func pulledRecord(queueOffset int64, sysFlag int32, body []byte, props string) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	topic := "T"
	total := int32(primitive.MinRecordSize + len(body) + len(topic) + len(props))
	w(total)
	w(primitive.MessageMagicCode)
	w(int32(0))    // BODYCRC
	w(int32(1))    // QUEUEID
	w(int32(0))    // FLAG
	w(queueOffset) // QUEUEOFFSET
	w(int64(1000)) // PHYSICALOFFSET
	w(sysFlag)     // SYSFLAG
	w(int64(1))    // BORNTIMESTAMP
	b.Write([]byte{127, 0, 0, 1, 0, 0, 0x1f, 0x90})
	w(int64(2)) // STORETIMESTAMP
	b.Write([]byte{127, 0, 0, 1, 0, 0, 0x27, 0x11})
	w(int32(0)) // RECONSUMETIMES
	w(int64(0)) // PREPAREDTRANSACTIONOFFSET
	w(int32(len(body)))
	b.Write(body)
	b.WriteByte(byte(len(topic)))
	b.WriteString(topic)
	w(int16(len(props)))
	b.WriteString(props)
	return b.Bytes()
}

func tagProps(tag string) string {
	return primitive.PropertyTags + "\x01" + tag + "\x02"
}

// TestProcessPullResult pins PullAPIWrapper#processPullResult: messages whose tag the
// subscription does not name are dropped on the client (the broker filters by hash code only),
// a body with the COMPRESSED sysFlag is zlib-inflated, every kept message gets MIN_OFFSET and
// MAX_OFFSET, the raw body is cleared and the suggested broker id becomes the queue's next
// pull target.
func TestProcessPullResult(t *testing.T) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write([]byte("inflated body"))
	require.NoError(t, zw.Close())

	var raw []byte
	raw = append(raw, pulledRecord(5, 0, []byte("a"), tagProps("TagA"))...)
	raw = append(raw, pulledRecord(6, 0, []byte("c"), tagProps("TagC"))...) // hash collision stand-in
	raw = append(raw, pulledRecord(7, primitive.CompressedFlag, z.Bytes(), tagProps("TagB"))...)

	inst := client.NewMQClientInstance(client.ClientConfig{ClientIP: "127.0.0.1"}, client.Options{DisableScheduledTasks: true}, 0, "x")
	w := NewPullAPIWrapper(inst, "g", false)
	mq := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}
	require.Equal(t, protocol.MasterID, w.recalculatePullFromWhichNode(mq))

	tests := []struct {
		name string
		sub  *protocol.SubscriptionData
		want []int64
	}{
		{"tags TagA || TagB", &protocol.SubscriptionData{Topic: "T", SubString: "TagA || TagB", TagsSet: []string{"TagA", "TagB"}}, []int64{5, 7}},
		{"* keeps all", &protocol.SubscriptionData{Topic: "T", SubString: "*"}, []int64{5, 6, 7}},
		{"class filter mode skips tag filtering", &protocol.SubscriptionData{Topic: "T", TagsSet: []string{"TagA"}, ClassFilterMode: true}, []int64{5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &client.PullResult{PullStatus: client.PullFound, MinOffset: 2, MaxOffset: 8, SuggestWhichBrokerID: 1,
				MessageBinary: append([]byte(nil), raw...)}
			got := w.ProcessPullResult(mq, res, tt.sub)
			require.Nil(t, got.MessageBinary)
			var offs []int64
			for _, m := range got.MsgFoundList {
				offs = append(offs, m.QueueOffset)
				require.Equal(t, "2", m.GetProperty(primitive.PropertyMinOffset))
				require.Equal(t, "8", m.GetProperty(primitive.PropertyMaxOffset))
				if m.QueueOffset == 7 {
					require.Equal(t, "inflated body", string(m.Body))
				}
			}
			require.Equal(t, tt.want, offs)
			require.Equal(t, int64(1), w.recalculatePullFromWhichNode(mq), "suggested broker id kept")
		})
	}
}

// TestProcessPullResultNotFound pins that a non-FOUND answer carries no messages but still
// records the suggested broker id.
func TestProcessPullResultNotFound(t *testing.T) {
	inst := client.NewMQClientInstance(client.ClientConfig{ClientIP: "127.0.0.1"}, client.Options{DisableScheduledTasks: true}, 0, "x")
	w := NewPullAPIWrapper(inst, "g", false)
	mq := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a"}
	res := w.ProcessPullResult(mq, &client.PullResult{PullStatus: client.PullNoNewMsg, SuggestWhichBrokerID: 2}, nil)
	require.Empty(t, res.MsgFoundList)
	require.Equal(t, int64(2), w.recalculatePullFromWhichNode(mq))
}

// TestPullKernelImplSync pins the synchronous pull a lite pull consumer will use
// (PullAPIWrapper#pullKernelImpl, SYNC): the same broker choice and header as the push
// consumer's asynchronous pull, against a real broker; the answer goes through
// processPullResult's client-side tag filter, and an offset past the last message answers
// NO_NEW_MSG at once when the suspend flag is off.
func TestPullKernelImplSync(t *testing.T) {
	c, topic, p := startTopicProducer(t, "Sync_", 1)
	send(t, p, topic, "TagA", 2)
	send(t, p, topic, "TagB", 1)

	cfg := client.ClientConfig{NamesrvAddr: c.NamesrvAddr(), ClientIP: "127.0.0.1", InstanceName: "sync-" + clienttest.Name(t)}
	inst := client.NewMQClientInstance(cfg.WithDefaults(), client.Options{DisableScheduledTasks: true}, 0, cfg.BuildMQClientID())
	require.NoError(t, inst.Start())
	t.Cleanup(inst.Shutdown)
	require.True(t, inst.UpdateTopicRouteInfoFromNameServer(topic))

	w := NewPullAPIWrapper(inst, "g_"+clienttest.Name(t), false)
	mq := primitive.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	sub, err := protocol.BuildSubscriptionData(topic, "TagA")
	require.NoError(t, err)
	req := PullKernelRequest{MQ: mq, SubExpression: sub.SubString, ExpressionType: sub.ExpressionType, MaxNums: 32,
		SysFlag: protocol.BuildPullSysFlag(false, false, true, false), Timeout: 5 * time.Second}

	var res *client.PullResult
	require.Eventually(t, func() bool { // the broker's reput builds the ConsumeQueue behind the sends
		res, err = w.PullKernelImplSync(context.Background(), req)
		require.NoError(t, err)
		return res.PullStatus == client.PullFound && res.NextBeginOffset == 3
	}, 10*time.Second, 20*time.Millisecond)
	res = w.ProcessPullResult(mq, res, sub)
	var offs []int64
	for _, m := range res.MsgFoundList {
		offs = append(offs, m.QueueOffset)
		require.Equal(t, "TagA", m.Tags())
	}
	require.Equal(t, []int64{0, 1}, offs)

	req.Offset = 3
	res, err = w.PullKernelImplSync(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, client.PullNoNewMsg, res.PullStatus)
}

// TestRecalculatePullFromWhichNodeLogsMoves: the broker id an answer suggests is where the
// queue's next pull goes, and the step is logged only when it moves (to the slave the master
// suggested when the consumer lags, back to the master when caught up), not on every pull.
// Java: PullAPIWrapper#updatePullFromWhichNode, #recalculatePullFromWhichNode.
func TestRecalculatePullFromWhichNodeLogsMoves(t *testing.T) {
	rec := trace.NewRecorder()
	inst := client.NewMQClientInstance(client.ClientConfig{ClientIP: "127.0.0.1"},
		client.Options{DisableScheduledTasks: true, Logger: slog.New(rec)}, 0, "x")
	w := NewPullAPIWrapper(inst, "g", false)
	mq := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 3}
	pull := func(suggested int64) int64 {
		id := w.recalculatePullFromWhichNode(mq)
		w.ProcessPullResult(mq, &client.PullResult{PullStatus: client.PullNoNewMsg, SuggestWhichBrokerID: suggested}, nil)
		return id
	}
	require.Equal(t, int64(0), pull(0), "the master before any answer")
	require.Equal(t, int64(0), pull(1), "the master again: it answered 0")
	require.Equal(t, int64(1), pull(1), "the slave the master suggested")
	require.Equal(t, int64(1), pull(0), "the slave again")
	require.Equal(t, int64(0), pull(0), "back to the master")
	var moves []string
	for _, s := range rec.Steps() {
		if s.Label == "PullAPIWrapper#recalculatePullFromWhichNode" {
			require.Equal(t, "3", s.Attrs["queueId"])
			moves = append(moves, s.Attrs["previousBrokerId"]+"->"+s.Attrs["brokerId"])
		}
	}
	require.Equal(t, []string{"0->1", "1->0"}, moves)
}
