package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/stretchr/testify/require"
)

// TestRecordConstants pins the disk constants of store-formats.md §2 and §3 as literal values.
func TestRecordConstants(t *testing.T) {
	require.Equal(t, uint32(0xDAA320A7), messageMagicCode)
	require.Equal(t, uint32(0xCBD43194), blankMagicCode)
	require.Equal(t, 127, maxTopicLength)
	require.Equal(t, 32767, maxPropertiesLength)
	require.Equal(t, 65536, recordReserve)
	require.Equal(t, 8, EndFileMinBlankLength)
	require.Equal(t, 20, ConsumeQueueUnitSize)
	require.Equal(t, 91, calMsgLength(0, 0, 0, 0))
	require.Equal(t, minRecordSize, calMsgLength(0, 0, 0, 0))
	require.Equal(t, 137, calMsgLength(0, 5, 9, 32))
	require.Equal(t, 91+24, calMsgLength(sysFlagBornHostV6|sysFlagStoreHostV6, 0, 0, 0))
	for off, name := range map[int64]string{
		0:          "00000000000000000000",
		1073741824: "00000000001073741824",
		6000000:    "00000000000006000000",
	} {
		require.Equal(t, name, offset2FileName(off))
	}
	cfg := DefaultMessageStoreConfig()
	require.Equal(t, 1073741824, cfg.MappedFileSizeCommitLog)
	require.Equal(t, 6000000, cfg.ConsumeQueueFileSize())
	require.Equal(t, 4194304, cfg.MaxMessageSize)
	cfg.MappedFileSizeConsumeQueue = 6000001
	require.Equal(t, 6000020, cfg.ConsumeQueueFileSize(), "rounded up to a multiple of 20")
}

// TestTagsCode pins Java String#hashCode over UTF-16 (remoting-protocol.md §6.5).
func TestTagsCode(t *testing.T) {
	for _, tc := range []struct {
		tags string
		want int64
	}{
		{"", 0},
		{"TagA", 2598919},
		{"中文", 646394},
		{"TopicTest#ORDER-1", -1111209712},
		{"😀", int64(int32(0xD83D)*31 + 0xDE00)},
	} {
		require.Equal(t, tc.want, tagsString2TagsCode([]byte(tc.tags)), tc.tags)
		require.Equal(t, primitive.TagsString2TagsCode(tc.tags), tagsString2TagsCode([]byte(tc.tags)), tc.tags)
	}
}

// workedExampleHex is the worked-example record of store-formats.md §2.2 in hex, grouped as
// its fields run: TopicTest, queue 1, body "Hello", properties TAGS=TagA and CLUSTER.
const workedExampleHex = `
	00000089 daa320a7 77d18982 00000001 00000000
	0000000000000000 0000000000000000 00000000
	0000018bcfe56800 c0a80114 0000ce4e
	0000018bcfe56807 c0a8010a 00002a9f
	00000000 0000000000000000
	00000005 48656c6c6f
	09 546f70696354657374
	0020 54414753 01 54616741 02 434c5553544552 01 44656661756c74436c7573746572`

// TestPutWorkedExample pins the record bytes of store-formats.md §2.2 (hand-built from the
// table, not produced by our encoder), its offsetMsgId, and the ConsumeQueue unit of §3.1.
// Java: MessageExtEncoder#encode, DefaultAppendMessageCallback#doAppend,
// ConsumeQueue#putMessagePositionInfo.
func TestPutWorkedExample(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, smallConfig(dir), nil, nil)
	m := newMsg("TopicTest", 1, "Hello", "")
	m.PropertiesString = exampleProps
	r := put(t, s, m)
	require.Equal(t, CommitLogOffset(0), r.WroteOffset)
	require.Equal(t, int32(137), r.WroteBytes)
	require.Equal(t, QueueOffset(0), r.LogicsOffset)
	require.Equal(t, exampleStore, r.StoreTimestamp)
	require.Equal(t, "C0A8010A00002A9F0000000000000000", r.MsgID)

	want := unhex(t, workedExampleHex)
	require.Len(t, want, 137)
	rec, ok := s.SelectOneMessageByOffset(0)
	require.True(t, ok)
	require.Equal(t, want, rec)
	// the file itself
	raw, err := os.ReadFile(filepath.Join(dir, "commitlog", "00000000000000000000"))
	require.NoError(t, err)
	require.Len(t, raw, 4096)
	require.Equal(t, want, raw[:137])

	s.DoReput()
	unit := unhex(t, "0000000000000000 00000089 000000000027a807")
	cqRaw, err := os.ReadFile(filepath.Join(dir, "consumequeue", "TopicTest", "1", "00000000000000000000"))
	require.NoError(t, err)
	require.Equal(t, unit, cqRaw[:20])
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("TopicTest", 1))

	// next record starts at 137
	r2 := put(t, s, newMsg("TopicTest", 1, "Hello", "TagA"))
	require.Equal(t, CommitLogOffset(137), r2.WroteOffset)
	require.Equal(t, QueueOffset(1), r2.LogicsOffset)
}

// TestRollToNextFile: a record that does not fit (record + 8 > bytes left) leaves the 8-byte
// blank record (TOTALSIZE = bytes left, MAGIC 0xCBD43194) and goes to the next file, named by
// its start offset; the physical offset of message N is the sum of the sizes before it,
// except across a roll. Java: DefaultAppendMessageCallback#doAppend END_OF_FILE, CommitLog#asyncPutMessage.
func TestRollToNextFile(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, smallConfig(dir), nil, nil)
	body := strings.Repeat("x", 1000) // record = 91 + 1000 + 1 + 22 = 1114 bytes
	var offsets []CommitLogOffset
	for i := 0; i < 4; i++ {
		r := put(t, s, newMsg("T", 0, body, ""))
		offsets = append(offsets, r.WroteOffset)
		require.Equal(t, QueueOffset(i), r.LogicsOffset)
	}
	size := int64(calMsgLength(0, 1000, 1, len("CLUSTER\x01DefaultCluster")))
	require.Equal(t, int64(1114), size)
	// 3 records = 3342 bytes; 3342 + 1114 + 8 > 4096: the 4th goes to the next file
	require.Equal(t, []CommitLogOffset{0, CommitLogOffset(size), CommitLogOffset(2 * size), 4096}, offsets)

	raw, err := os.ReadFile(filepath.Join(dir, "commitlog", "00000000000000000000"))
	require.NoError(t, err)
	blank := raw[3*size : 3*size+8]
	require.Equal(t, uint32(4096-3*size), binary.BigEndian.Uint32(blank))
	require.Equal(t, unhex(t, "cbd43194"), blank[4:])
	_, err = os.Stat(filepath.Join(dir, "commitlog", "00000000000000004096"))
	require.NoError(t, err)

	// the reput skips the blank and dispatches all four
	s.DoReput()
	require.Equal(t, QueueOffset(4), s.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, CommitLogOffset(4096+size), s.GetMaxPhyOffset())
	require.Zero(t, s.DispatchBehindBytes())
	g := s.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, Found, g.Status)
	require.Equal(t, 4, g.MessageCount)
	for i, m := range g.Messages {
		require.Equal(t, uint32(size), binary.BigEndian.Uint32(m))
		require.Equal(t, messageMagicCode, binary.BigEndian.Uint32(m[4:]), "never a blank record")
		require.Equal(t, uint64(offsets[i]), binary.BigEndian.Uint64(m[posPhysicalOffset:]))
	}
	require.Equal(t, []QueueOffset{0, 1, 2, 3}, g.MessageQueueOffsets)
	require.Len(t, g.Body(), 4*int(size))
}

// TestPutLimits: Java's checkMessage (UTF-16 lengths) and MessageExtEncoder limits.
func TestPutLimits(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.MappedFileSizeCommitLog = 64 * 1024
	cfg.MaxMessageSize = 1024
	s := openStore(t, cfg, nil, nil)
	multi := strings.Repeat("中", 11000) // 11000 UTF-16 chars, 33000 UTF-8 bytes
	for _, tc := range []struct {
		name string
		mod  func(m *msgT)
		want PutMessageStatus
	}{
		{"ok", func(m *msgT) {}, PutOK},
		{"body at the limit", func(m *msgT) { m.Body = make([]byte, 1024) }, PutOK},
		{"body over the limit", func(m *msgT) { m.Body = make([]byte, 1025) }, MessageIllegal},
		{"topic of 127", func(m *msgT) { m.Topic = strings.Repeat("t", 127) }, PutOK},
		{"topic of 128", func(m *msgT) { m.Topic = strings.Repeat("t", 128) }, MessageIllegal},
		{"properties over 32767 chars", func(m *msgT) { m.PropertiesString = "A\x01" + strings.Repeat("v", 32766) }, MessageIllegal},
		{"properties over 32767 bytes", func(m *msgT) { m.PropertiesString = "A\x01" + multi }, PropertiesSizeExceeded},
		{"bad host field", func(m *msgT) { m.BornHostBytes = []byte{1, 2, 3} }, MessageIllegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMsg("T", 0, "b", "")
			tc.mod(m)
			require.Equal(t, tc.want, s.PutMessage(m).PutMessageStatus)
		})
	}
}

// TestIPv6Hosts: a 16-byte host sets the v6 sysFlag bits and widens the record by 12 each.
func TestIPv6Hosts(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	m := newMsg("T", 0, "b", "TagA")
	m.BornHost = "[::1]:1234"
	r := put(t, s, m)
	require.Equal(t, int32(calMsgLength(0, 1, 1, len(m.PropertiesString))+12), r.WroteBytes)
	require.Equal(t, int32(sysFlagBornHostV6), m.SysFlag)
	msg, err := s.LookMessageByOffset(0)
	require.NoError(t, err)
	require.Equal(t, "[::1]:1234", msg.BornHost)
	require.Equal(t, "192.168.1.10:10911", msg.StoreHost)
	s.DoReput()
	g := s.GetMessage("g", "T", 0, 0, 1, nil)
	require.Equal(t, Found, g.Status)
}

// TestPreparedGetsNoUnit: PREPARED/ROLLBACK records get queue offset 0, do not advance the
// queue and get no ConsumeQueue unit. Java: doAppend tranType switch, CommitLogDispatcherBuildConsumeQueue.
func TestPreparedGetsNoUnit(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	put(t, s, newMsg("T", 0, "a", ""))
	p := newMsg("T", 0, "half", "")
	p.SysFlag = tranPreparedType
	rp := put(t, s, p)
	require.Equal(t, QueueOffset(0), rp.LogicsOffset)
	c := newMsg("T", 0, "commit", "")
	c.SysFlag = tranCommitType
	require.Equal(t, QueueOffset(1), put(t, s, c).LogicsOffset)
	s.DoReput()
	require.Equal(t, QueueOffset(2), s.GetMaxOffsetInQueue("T", 0))
	require.Equal(t, rp.WroteOffset+CommitLogOffset(rp.WroteBytes), s.GetCommitLogOffsetInQueue("T", 0, 1))
}

// TestDelayedMessage: DELAY = L redirects to SCHEDULE_TOPIC_XXXX queue L-1 with REAL_TOPIC and
// REAL_QID, and the unit's tagsCode is the deliver time (store time + level delay).
// Java: CommitLog#asyncPutMessage, CommitLog#checkMessageAndReturnSize.
func TestDelayedMessage(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	m := newMsg("T", 3, "later", "TagA")
	m.Properties["DELAY"] = "3"
	m.PropertiesString += "\x02DELAY\x013"
	put(t, s, m)
	s.DoReput()
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue(scheduleTopic, 2))
	u, ok := s.ReadConsumeQueueUnit(scheduleTopic, 2, 0)
	require.True(t, ok)
	require.Equal(t, exampleStore+10000, u.TagsCode)
	msg, err := s.LookMessageByOffset(0)
	require.NoError(t, err)
	require.Equal(t, "T", msg.Properties["REAL_TOPIC"])
	require.Equal(t, "3", msg.Properties["REAL_QID"])
	require.Equal(t, scheduleTopic, msg.Topic)
}

// TestDelayedMessageReplacesRealTopic: a message that was delayed before (a consumer's retry
// going back through SCHEDULE_TOPIC_XXXX) carries an old REAL_TOPIC / REAL_QID pair; the
// redirect replaces it, so the stored properties hold one pair, the new destination.
// Java: CommitLog#asyncPutMessage (putProperty on the map, then messageProperties2String).
func TestDelayedMessageReplacesRealTopic(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for _, withMap := range []bool{true, false} {
		m := newMsg("%RETRY%g", 1, "again", "")
		m.PropertiesString = "REAL_TOPIC\x01Old\x02DELAY\x013\x02REAL_QID\x017\x02KEYS\x01k"
		m.Properties = map[string]string{"REAL_TOPIC": "Old", "DELAY": "3", "REAL_QID": "7", "KEYS": "k"}
		if !withMap {
			m.Properties = nil
		}
		r := put(t, s, m)
		rec, ok := s.SelectOneMessageByOffset(r.WroteOffset)
		require.True(t, ok)
		var rr recordReader
		d := rr.checkMessageAndReturnSize(rec, true, r.WroteOffset)
		require.True(t, d.Success)
		props := string(d.Properties)
		require.Equal(t, "DELAY\x013\x02KEYS\x01k\x02REAL_TOPIC\x01%RETRY%g\x02REAL_QID\x011", props)
		require.Equal(t, 1, strings.Count(props, "REAL_TOPIC\x01"), "withMap=%v", withMap)
	}
	require.Equal(t, "a\x011\x02b\x012", putProperty("a\x011", "b", "2"))
	require.Equal(t, "b\x012", putProperty("", "b", "2"))
	require.Equal(t, "a\x011\x02b\x013", putProperty("b\x012\x02a\x011\x02", "b", "3"))
}

// TestBatchPut: members get consecutive queue offsets and envelope properties; the batch moves
// whole to the next file. Java: CommitLog#asyncPutMessages, MessageExtEncoder#encode(batch).
func TestBatchPut(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	put(t, s, newMsg("T", 0, "single", ""))
	// client-go batch body for {xy, tag A} twice (remoting-protocol.md §6.2 PROBE)
	member := unhex(t, "0000001f 00000000 00000000 00000000 00000002 7879 0007 54414753 01 41 02")
	b := newMsg("T", 0, "", "")
	b.Body = append(append([]byte(nil), member...), member...)
	r := s.PutMessages(b)
	require.Equal(t, PutOK, r.PutMessageStatus)
	require.Equal(t, int32(2), r.AppendMessageResult.MsgNum)
	require.Equal(t, QueueOffset(1), r.AppendMessageResult.LogicsOffset)
	ids := strings.Split(r.AppendMessageResult.MsgID, ",")
	require.Len(t, ids, 2)
	s.DoReput()
	require.Equal(t, QueueOffset(3), s.GetMaxOffsetInQueue("T", 0))
	msg, err := s.LookMessageByOffset(s.GetCommitLogOffsetInQueue("T", 0, 2))
	require.NoError(t, err)
	require.Equal(t, []byte("xy"), msg.Body)
	require.Equal(t, int64(2), msg.QueueOffset)
	require.Equal(t, ids[1], msg.OffsetMsgID)
	require.Equal(t, map[string]string{"TAGS": "A", "CLUSTER": "DefaultCluster"}, msg.Properties)
	rec, _ := s.SelectOneMessageByOffset(CommitLogOffset(msg.CommitLogOffset))
	require.True(t, strings.HasSuffix(string(rec), "TAGS\x01A\x02CLUSTER\x01DefaultCluster"), "one separator between member and envelope")

	// an illegal member
	bad := newMsg("T", 0, "", "")
	bad.Body = member[:10]
	require.Equal(t, MessageIllegal, s.PutMessages(bad).PutMessageStatus)
}

// replicaRecorder records what CommitLog hands its ReplicaService and completes each
// request at once with PUT_OK (a slave that is always there and always up to date).
type replicaRecorder struct {
	asked []CommitLogOffset // IsSlaveOK's masterPutWhere
	calls []replicaCall
}

type replicaCall struct {
	wroteOffset CommitLogOffset
	wroteBytes  int32
	msgNum      int32
	topic       string
	nextOffset  CommitLogOffset
}

func (r *replicaRecorder) IsSlaveOK(masterPutWhere CommitLogOffset) bool {
	r.asked = append(r.asked, masterPutWhere)
	return true
}

func (r *replicaRecorder) PutRequest(req *GroupCommitRequest) {
	a := req.result.AppendMessageResult
	r.calls = append(r.calls, replicaCall{a.WroteOffset, a.WroteBytes, a.MsgNum, "T", req.NextOffset()})
	req.WakeupCustomer(PutOK)
}

// TestCommitLogReplicaService: a CommitLog built from its collaborators alone (config, clock,
// running flags, checkpoint; no DefaultMessageStore) of a SYNC_MASTER hands its ReplicaService
// a request after every put it appended — single or batch — whose nextOffset is the end of the
// put's record(s): the CommitLog bytes a slave must hold; a refused put does not call it.
// Java: CommitLog#asyncPutMessage → submitReplicaRequest.
func TestCommitLogReplicaService(t *testing.T) {
	dir := t.TempDir()
	st := smallConfig(dir)
	st.MessageStoreConfig.BrokerRole = SyncMaster
	opts := st.Options.withDefaults()
	env := newStoreEnv(&st.MessageStoreConfig, &opts, nil, dir)
	var flags runningFlags
	cp := newStoreCheckpoint(filepath.Join(dir, "checkpoint"), env.events())
	require.NoError(t, cp.open())
	defer cp.shutdown()
	c := newCommitLog(&env, &flags, cp, nil, nil)
	require.NoError(t, c.load())
	defer c.mfq.shutdown()
	rec := &replicaRecorder{}
	c.SetReplicaService(rec)

	r1 := waitPut(c.asyncPutMessage(newMsg("T", 0, "first", "")))
	require.Equal(t, PutOK, r1.PutMessageStatus)
	r2 := waitPut(c.asyncPutMessage(newMsg("T", 1, "second", "TagA")))
	require.Equal(t, PutOK, r2.PutMessageStatus)
	bad := newMsg("T", 0, "x", "")
	bad.BornHost = "not-a-host"
	r3, _ := c.asyncPutMessage(bad)
	require.Equal(t, MessageIllegal, r3.PutMessageStatus)

	member := unhex(t, "0000001f 00000000 00000000 00000000 00000002 7879 0007 54414753 01 41 02")
	b := newMsg("T", 0, "", "")
	b.Body = append(append([]byte(nil), member...), member...)
	r4 := waitPut(c.asyncPutMessages(b, false))
	require.Equal(t, PutOK, r4.PutMessageStatus)

	a1, a2, a4 := r1.AppendMessageResult, r2.AppendMessageResult, r4.AppendMessageResult
	require.Equal(t, a1.WroteOffset+CommitLogOffset(a1.WroteBytes), a2.WroteOffset)
	require.Equal(t, a2.WroteOffset+CommitLogOffset(a2.WroteBytes), a4.WroteOffset)
	require.Equal(t, []replicaCall{
		{wroteOffset: 0, wroteBytes: a1.WroteBytes, msgNum: 1, topic: "T", nextOffset: a2.WroteOffset},
		{wroteOffset: a2.WroteOffset, wroteBytes: a2.WroteBytes, msgNum: 1, topic: "T", nextOffset: a4.WroteOffset},
		{wroteOffset: a4.WroteOffset, wroteBytes: a4.WroteBytes, msgNum: 2, topic: "T", nextOffset: c.getMaxOffset()},
	}, rec.calls, "one call per appended put (a batch once, for all its members), none for the refused one")
	require.Equal(t, []CommitLogOffset{a2.WroteOffset, a4.WroteOffset, c.getMaxOffset()}, rec.asked)
	require.Equal(t, a4.WroteOffset+CommitLogOffset(a4.WroteBytes), c.getMaxOffset(), "the calls cover the log")
}

// TestConsumeQueueIterator: the get path's iterator reads a queue's units from a queue offset
// to the end of what is written (queue offset, commitLogOffset, size, tagsCode of each), and
// refuses an offset below the queue's min offset. Java: ConsumeQueue#getIndexBuffer.
func TestConsumeQueueIterator(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	var puts []*AppendMessageResult
	for i := 0; i < 3; i++ {
		puts = append(puts, put(t, s, newMsg("T", 0, fmt.Sprint("m", i), "TagA")))
	}
	s.DoReput()
	it, ok := s.ConsumeQueue("T", 0).IterateFrom(1)
	require.True(t, ok)
	defer it.Release()
	for k := 1; k < 3; k++ {
		u, ok := it.Next()
		require.True(t, ok, "unit %d", k)
		require.Equal(t, CqUnit{QueueOffset: QueueOffset(k), CommitLogOffset: puts[k].WroteOffset, Size: puts[k].WroteBytes,
			TagsCode: tagsString2TagsCode([]byte("TagA"))}, u)
	}
	_, ok = it.Next()
	require.False(t, ok, "nothing past the written end")
	s.ConsumeQueue("T", 0).minLogicOffset.Store(2 * ConsumeQueueUnitSize)
	_, ok = s.ConsumeQueue("T", 0).IterateFrom(1)
	require.False(t, ok, "below the min offset")
}
