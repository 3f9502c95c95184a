package main

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// newTestEnv is the chapter's setup without its log: a name server and broker-a (4 KiB
// CommitLog files, 2-unit ConsumeQueue files, index files of 8 slots and 6 entries, a store
// clock at epoch), with TopicTest on 2 queues.
func newTestEnv(t *testing.T) (*env, *broker.BrokerController, string) {
	t.Helper()
	e := newEnv(io.Discard, nil, t.TempDir())
	e.Servers = mqtest.MustStartServers(t, e.dir)
	t.Cleanup(e.stuck.unblock) // before the servers shut down: cleanups run last first
	root := filepath.Join(e.dir, "broker-a")
	a, err := e.startBroker("broker-a", root, false)
	require.NoError(t, err)
	require.NoError(t, mqtest.CreateTopic(e.Client, a.BrokerAddr(), topicName, 2, protocol.PermRead|protocol.PermWrite))
	return e, a, root
}

// sendOK sends m and returns the CommitLog offset its offsetMsgId names.
func sendOK(t *testing.T, e *env, b *broker.BrokerController, m sample) int64 {
	t.Helper()
	resp, err := e.sendRaw(b, m)
	require.NoError(t, err)
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	_, off, err := primitive.DecodeOffsetMsgID(resp.ExtFields["msgId"])
	require.NoError(t, err)
	return off
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestExercise1_PhysicalOffsetIsTheSumOfTheSizesBefore asks: where in the CommitLog does
// message N start? It proves that, inside a file, a record starts where the previous one ends:
// message N's physical offset (from its offsetMsgId and its own PHYSICALOFFSET field) is the
// sum of the TOTALSIZE fields of the records before it — the CommitLog is one append-only log.
func TestExercise1_PhysicalOffsetIsTheSumOfTheSizesBefore(t *testing.T) {
	e, a, root := newTestEnv(t)
	var offsets []int64
	for i := 0; i < 6; i++ {
		offsets = append(offsets, sendOK(t, e, a, sample{int32(i % 2), "TagA", "K" + strconv.Itoa(i), "", strings.Repeat("x", 100*i+1)}))
	}
	data := readFile(t, filepath.Join(root, "commitlog", "00000000000000000000"))
	sum := int64(0)
	for i, off := range offsets {
		require.Equal(t, sum, off, "message %d", i+1)
		require.Equal(t, uint64(off), binary.BigEndian.Uint64(data[off+28:]), "PHYSICALOFFSET field of message %d", i+1)
		sum += int64(binary.BigEndian.Uint32(data[off:])) // TOTALSIZE
	}
	require.Equal(t, store.CommitLogOffset(sum), a.MessageStore().GetMaxPhyOffset())
}

// TestExercise2_ARecordThatDoesNotFitLeavesABlank asks: what happens when a record does not fit
// in what is left of a CommitLog file? It proves that the appender writes an 8-byte blank
// record — TOTALSIZE = every byte left, MAGIC 0xCBD43194 — leaves the rest of the file zero,
// and writes the record at the start of the next file, whose name is that start offset.
func TestExercise2_ARecordThatDoesNotFitLeavesABlank(t *testing.T) {
	e, a, root := newTestEnv(t)
	var offs []int64
	for i := 0; i < 3; i++ {
		offs = append(offs, sendOK(t, e, a, samples[i]))
	}
	file0 := readFile(t, filepath.Join(root, "commitlog", "00000000000000000000"))
	end := int(offs[1]) + int(binary.BigEndian.Uint32(file0[offs[1]:]))
	require.Equal(t, uint32(4096-end), binary.BigEndian.Uint32(file0[end:]), "TOTALSIZE of the blank: the bytes left")
	require.Equal(t, primitive.BlankMagicCode, binary.BigEndian.Uint32(file0[end+4:]))
	require.Equal(t, make([]byte, 4096-end-8), file0[end+8:], "the rest of the file stays zero")
	require.Equal(t, int64(4096), offs[2], "the record starts the next file")
	file1 := readFile(t, filepath.Join(root, "commitlog", "00000000000000004096"))
	m, _, err := primitive.DecodeMessage(file1)
	require.NoError(t, err)
	require.Equal(t, int64(4096), m.CommitLogOffset)
	require.Equal(t, samples[2].body, string(m.Body))
}

// TestExercise3_AConsumeQueueUnitPointsAtItsRecord asks: what does a ConsumeQueue unit hold,
// and where does it come from? It proves that after a reput pass, unit k of a queue (bytes
// k·20 of the queue's log) holds the physical offset and TOTALSIZE of the record with queue
// offset k, and the Java String#hashCode of its TAGS as tagsCode; before the pass there is none.
func TestExercise3_AConsumeQueueUnitPointsAtItsRecord(t *testing.T) {
	e, a, root := newTestEnv(t)
	for i := 0; i < 3; i++ {
		sendOK(t, e, a, samples[i])
	}
	ms := a.MessageStore()
	require.Equal(t, store.QueueOffset(0), ms.GetMaxOffsetInQueue(topicName, 0), "units are written by the reput service, not the appender")
	ms.ReputMessageService().RunOnce()
	for q := int32(0); q < 2; q++ {
		for k := int64(0); k < int64(ms.GetMaxOffsetInQueue(topicName, q)); k++ {
			pos := k * store.ConsumeQueueUnitSize
			fileStart := pos - pos%(2*store.ConsumeQueueUnitSize)
			cq := readFile(t, filepath.Join(root, "consumequeue", topicName, strconv.Itoa(int(q)), mqtest.FileName(fileStart)))
			u := cq[pos-fileStart:]
			phy, size, tags := int64(binary.BigEndian.Uint64(u)), int32(binary.BigEndian.Uint32(u[8:])), int64(binary.BigEndian.Uint64(u[12:]))
			rec, ok := ms.SelectOneMessageByOffset(store.CommitLogOffset(phy))
			require.True(t, ok)
			m, _, err := primitive.DecodeMessage(rec)
			require.NoError(t, err)
			require.Equal(t, size, m.StoreSize)
			require.Equal(t, q, m.QueueID)
			require.Equal(t, k, m.QueueOffset)
			require.Equal(t, primitive.TagsString2TagsCode(m.Properties[primitive.PropertyTags]), tags)
		}
	}
	require.Equal(t, store.QueueOffset(2), ms.GetMaxOffsetInQueue(topicName, 0))
	require.Equal(t, store.QueueOffset(1), ms.GetMaxOffsetInQueue(topicName, 1))
}

// TestExercise4_AKeyLookupFindsEveryMessageWithTheKey asks: how does QUERY_MESSAGE find the
// messages of a business key? It proves that every word of KEYS and the UNIQ_KEY is indexed as
// "topic#key", that the slot chains and the rolled-over index files together find every
// message with a key — and only those — and that the slot of a key is its hash mod 8.
func TestExercise4_AKeyLookupFindsEveryMessageWithTheKey(t *testing.T) {
	e, a, root := newTestEnv(t)
	want := map[string][]int64{}
	for i := 0; i < 12; i++ { // 2 or 3 keys each, 5 entries per index file: several files
		keys := "ORDER-" + strconv.Itoa(i%3)
		if i%4 == 0 {
			keys += " VIP"
		}
		uniq := "UNIQ" + strconv.Itoa(i)
		off := sendOK(t, e, a, sample{int32(i % 2), "TagA", keys, uniq, "m" + strconv.Itoa(i)})
		for _, k := range append(strings.Fields(keys), uniq) {
			want[k] = append(want[k], off)
		}
	}
	ms := a.MessageStore()
	ms.ReputMessageService().RunOnce()
	require.Greater(t, len(ms.IndexService().IndexFiles()), 3)
	for key, offs := range want {
		h := protocol.QueryMessageRequestHeader{Topic: topicName, Key: key, MaxNum: 32, EndTimestamp: 1 << 62}
		resp, err := mqtest.Invoke(e.Client, a.BrokerAddr(), remoting.NewRequest(protocol.QueryMessage, protocol.EncodeHeader(&h), nil))
		require.NoError(t, err)
		require.Equal(t, int32(protocol.Success), resp.Code, key)
		msgs, err := primitive.DecodeMessages(resp.Body)
		require.NoError(t, err)
		var got []int64
		for _, m := range msgs {
			got = append(got, m.CommitLogOffset)
			require.Contains(t, append(strings.Fields(m.Properties[primitive.PropertyKeys]), m.Properties[primitive.PropertyUniqClientMessageIDKeyIdx]), key)
		}
		require.Equal(t, offs, got, key)
	}
	// the slot of "TopicTest#ORDER-1" in the first index file holds an entry with its hash
	first := ms.IndexService().IndexFiles()[0]
	data := readFile(t, filepath.Join(root, "index", first.FileName()))
	hash := store.IndexKeyHash(topicName + "#ORDER-1")
	entry := binary.BigEndian.Uint32(data[store.IndexHeaderSize+int(hash)%8*store.IndexHashSlotSize:])
	p := store.IndexHeaderSize + 8*store.IndexHashSlotSize + int(entry)*store.IndexEntrySize
	for int32(binary.BigEndian.Uint32(data[p:])) != hash { // walk the chain to ORDER-1's entry
		entry = binary.BigEndian.Uint32(data[p+16:])
		require.NotZero(t, entry, "ORDER-1 is in the chain of its slot")
		p = store.IndexHeaderSize + 8*store.IndexHashSlotSize + int(entry)*store.IndexEntrySize
	}
	require.Equal(t, uint64(want["ORDER-1"][0]), binary.BigEndian.Uint64(data[p+4:]))
}

// TestExercise5_ATornTailIsCutOnAbnormalRecovery asks: what does the store do with a record a
// crash cut in half? It proves that with the abort file present the store recovers abnormally:
// it checks every record from the checkpoint's file on, dispatches the valid ones again (the
// undispatched message gets its ConsumeQueue unit and index entries) and makes the end of the
// last whole record the end of the log, where the next message is written.
func TestExercise5_ATornTailIsCutOnAbnormalRecovery(t *testing.T) {
	e, a, root := newTestEnv(t)
	for i := 0; i < 4; i++ {
		sendOK(t, e, a, samples[i])
	}
	a.MessageStore().ReputMessageService().RunOnce()
	sendOK(t, e, a, samples[4])
	crash := filepath.Join(e.dir, "crashed")
	require.NoError(t, mqtest.CopyDir(root, crash))
	a.Shutdown()
	end, err := tearTail(crash)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(crash, "abort"))
	require.NoError(t, err, "a running store has its abort file: the copy looks crashed")

	b, err := e.startBroker("broker-a", crash, false)
	require.NoError(t, err)
	ms := b.MessageStore()
	require.Equal(t, store.CommitLogOffset(end), ms.GetMaxPhyOffset(), "the log ends at the last whole record")
	require.Equal(t, store.QueueOffset(2), ms.GetMaxOffsetInQueue(topicName, 1), "message 5 was dispatched by the recovery")
	require.Len(t, ms.QueryMessage(topicName, "ORDER-1", 32, 0, 1<<62).Messages, 3)
	require.Equal(t, end, sendOK(t, e, b, samples[0]), "the next record overwrites the torn bytes")
}

// TestExercise6_ExpiredFilesAreDeletedAndTheMinOffsetMoves asks: what happens to old files
// and to a consumer still reading them? It proves that at the deleteWhen hour CommitLog files
// older than fileReservedTime are deleted (never the active one), the ConsumeQueue files that
// only pointed into them go too, each queue's min offset moves to its first unit still backed
// by the CommitLog, and a pull below it answers PULL_OFFSET_MOVED (21) with nextBeginOffset =
// the new min offset.
func TestExercise6_ExpiredFilesAreDeletedAndTheMinOffsetMoves(t *testing.T) {
	e, a, root := newTestEnv(t)
	for i := 0; i < 5; i++ {
		sendOK(t, e, a, samples[i])
	}
	ms := a.MessageStore()
	ms.ReputMessageService().RunOnce()
	require.NoError(t, stampFiles(root, epoch))

	e.clock.Advance(71 * time.Hour) // 02:00 on day 4: neither expired nor the hour
	ms.CleanFilesPeriodically()
	require.Equal(t, store.CommitLogOffset(0), ms.GetMinPhyOffset())
	e.clock.Advance(2 * time.Hour) // 04:00, 73 h after the files were written
	ms.CleanFilesPeriodically()
	require.Equal(t, store.CommitLogOffset(4096), ms.GetMinPhyOffset())
	_, err := os.Stat(filepath.Join(root, "commitlog", "00000000000000000000"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(filepath.Join(root, "consumequeue", topicName, "0", "00000000000000000000"))
	require.ErrorIs(t, err, os.ErrNotExist, "both units of queue 0's first file pointed into the deleted file")
	require.Equal(t, store.QueueOffset(2), ms.GetMinOffsetInQueue(topicName, 0))

	h := protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: topicName, QueueID: 0, QueueOffset: 1,
		MaxMsgNums: 32, SysFlag: protocol.PullFlagSubscription, Subscription: "*", ExpressionType: "TAG"}
	resp, err := mqtest.Invoke(e.Client, a.BrokerAddr(), remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(&h), nil))
	require.NoError(t, err)
	require.Equal(t, int32(protocol.PullOffsetMoved), resp.Code)
	require.Equal(t, "2", resp.ExtFields["nextBeginOffset"])
}

// TestExercise7_AFastFailedSendIsStoredOnceElsewhere asks: what does BrokerFastFailure do for
// a producer whose broker is stuck? It proves that a send queued behind a put holding the put
// lock longer than osPageCacheBusyTimeOutMills is answered SYSTEM_BUSY without ever reaching
// the store, so a producer that retries SYSTEM_BUSY stores the message on the other broker —
// exactly once across both.
func TestExercise7_AFastFailedSendIsStoredOnceElsewhere(t *testing.T) {
	e, a, _ := newTestEnv(t)
	var out strings.Builder
	e.out = &out
	require.NoError(t, e.fastFailure(a))
	require.Contains(t, out.String(), "SEND_OK on broker-b")
	require.Contains(t, out.String(), "│ broker-a │ 0")
	require.Contains(t, out.String(), "│ total    │ 1")
}

// TestExercise8_SystemBusyIsNotRetriedByDefault asks: why did the chapter's producer add
// SYSTEM_BUSY to its retry codes? It proves that with Java's default retryResponseCodes a send
// fast-failed with SYSTEM_BUSY is not retried: the producer reports the broker's error, and the
// message is stored nowhere.
func TestExercise8_SystemBusyIsNotRetriedByDefault(t *testing.T) {
	e, a, _ := newTestEnv(t)
	pc := producer.DefaultConfig("ch03_default_producer")
	pc.NamesrvAddr = e.Namesrv.Addr()
	pc.InstanceName = "ch03-ex8-" + strconv.Itoa(os.Getpid())
	pc.Options.DisableScheduledTasks = true
	p := producer.NewDefaultMQProducer(pc)
	require.NoError(t, p.Start())
	defer p.Shutdown()
	_, err := p.Send(context.Background(), &primitive.Message{Topic: topicName, Body: []byte("warm-up")})
	require.NoError(t, err)

	e.stuck.arm()
	go func() { _, _ = e.sendRaw(a, samples[0]) }()
	<-e.stuck.entered
	errc := make(chan error, 1)
	go func() {
		_, err := p.Send(context.Background(), &primitive.Message{Topic: topicName, Body: []byte("busy"),
			Properties: map[string]string{primitive.PropertyKeys: "BUSY"}})
		errc <- err
	}()
	ff := a.BrokerFastFailure()
	require.Eventually(t, func() bool { return ff.QueuedSends() == 1 }, 10*time.Second, time.Millisecond)
	e.clock.Advance(1500 * time.Millisecond)
	require.Equal(t, 1, ff.CleanExpiredRequest())
	err = <-errc
	require.Error(t, err)
	require.Contains(t, err.Error(), "PCBUSY_CLEAN_QUEUE")
	e.stuck.unblock()
	a.MessageStore().ReputMessageService().RunOnce()
	require.Empty(t, a.MessageStore().QueryMessage(topicName, "BUSY", 32, 0, 1<<62).Messages)
}
