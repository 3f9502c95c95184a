package interop

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

// CommitLog layout constants, from store-formats.md §2.1 and §2.3 (written out here on purpose:
// this test checks the files against the table, not against our store's code).
const (
	clMagicMessage = 0xDAA320A7
	clMagicBlank   = 0xCBD43194
	clFixedPart    = 91 // TOTALSIZE = 91 + bodyLen + topicLen + propertiesLen (IPv4 hosts)
	clBlankLen     = 8
	clSysCompress  = 0x1
)

// clRecord is one CommitLog message record, read field by field at the offsets of §2.1.
type clRecord struct {
	pos                      int64 // PHYSICALOFFSET expected: file start + position in the file
	totalSize                int32
	magic                    uint32
	bodyCRC                  int32
	queueID                  int32
	flag                     int32
	queueOffset              int64
	physicalOffset           int64
	sysFlag                  int32
	bornTimestamp            int64
	bornHost                 string
	storeTimestamp           int64
	storeHost                string
	reconsumeTimes           int32
	preparedTransactionOffet int64
	body                     []byte
	topic                    string
	properties               string
}

func hostAt(b []byte) string {
	return net.JoinHostPort(net.IP(b[:4]).String(), strconv.Itoa(int(int32(binary.BigEndian.Uint32(b[4:8])))))
}

// readRecord reads the record at b[0:] (b runs to the end of the file); it checks that the
// lengths are consistent with TOTALSIZE and the file.
func readRecord(t *testing.T, b []byte, pos int64) clRecord {
	t.Helper()
	be := binary.BigEndian
	require.GreaterOrEqual(t, len(b), clFixedPart, "record at %d: room for the fixed part", pos)
	r := clRecord{
		pos:                      pos,
		totalSize:                int32(be.Uint32(b[0:])),
		magic:                    be.Uint32(b[4:]),
		bodyCRC:                  int32(be.Uint32(b[8:])),
		queueID:                  int32(be.Uint32(b[12:])),
		flag:                     int32(be.Uint32(b[16:])),
		queueOffset:              int64(be.Uint64(b[20:])),
		physicalOffset:           int64(be.Uint64(b[28:])),
		sysFlag:                  int32(be.Uint32(b[36:])),
		bornTimestamp:            int64(be.Uint64(b[40:])),
		bornHost:                 hostAt(b[48:56]),
		storeTimestamp:           int64(be.Uint64(b[56:])),
		storeHost:                hostAt(b[64:72]),
		reconsumeTimes:           int32(be.Uint32(b[72:])),
		preparedTransactionOffet: int64(be.Uint64(b[76:])),
	}
	require.GreaterOrEqual(t, int(r.totalSize), clFixedPart, "record at %d: TOTALSIZE", pos)
	require.LessOrEqual(t, int(r.totalSize), len(b), "record at %d: TOTALSIZE within the file", pos)
	n := int(int32(be.Uint32(b[84:])))
	require.True(t, n >= 0 && 88+n+1 <= int(r.totalSize), "record at %d: BODYLENGTH %d", pos, n)
	r.body = b[88 : 88+n]
	tl := int(b[88+n])
	require.LessOrEqual(t, 89+n+tl+2, int(r.totalSize), "record at %d: TOPICLENGTH %d", pos, tl)
	r.topic = string(b[89+n : 89+n+tl])
	pl := int(be.Uint16(b[89+n+tl:]))
	r.properties = string(b[91+n+tl : 91+n+tl+pl])
	require.Equal(t, clFixedPart+n+tl+pl, int(r.totalSize), "record at %d: TOTALSIZE = 91 + n + t + p", pos)
	return r
}

// parseProps splits a stored properties string (name 0x01 value 0x02 ...).
func parseProps(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, "\x02") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "\x01")
		out[k] = v
	}
	return out
}

func allZero(b []byte) bool { return len(bytes.TrimLeft(b, "\x00")) == 0 }

// readCommitLog reads every segment file of dir in order and returns its message records.
// It requires: 20-digit names that are the files' start offsets, all files of fileSize,
// contiguous; records back to back from each file's start; a file the log continues after ends
// with an 8-byte BLANK record (TOTALSIZE = bytes left, magic 0xCBD43194) followed by zeros;
// after the log's last record only zeros, in that file and any later (pre-allocated) ones.
func readCommitLog(t *testing.T, dir string, fileSize int) []clRecord {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	var recs []clRecord
	ended := false
	blankLeft := -1 // bytes the previous segment's BLANK record covered
	for i, name := range names {
		require.Len(t, name, 20, "segment name %q", name)
		start, err := strconv.ParseInt(name, 10, 64)
		require.NoError(t, err, "segment name %q", name)
		require.Equal(t, int64(i*fileSize), start, "segment %q starts where the previous one ends", name)
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Len(t, b, fileSize, "segment %q is created at full size", name)
		if ended {
			require.True(t, allZero(b), "segment %q after the log's end holds only zeros", name)
			continue
		}
		pos := 0
		if i > 0 {
			require.GreaterOrEqual(t, blankLeft, 0, "segment %q: the previous one ended with a BLANK record", name)
		}
		for {
			if pos+4 > len(b) || binary.BigEndian.Uint32(b[pos:]) == 0 {
				require.True(t, allZero(b[pos:]), "segment %q: only zeros after the last record (from %d)", name, pos)
				ended = true
				break
			}
			if magic := binary.BigEndian.Uint32(b[pos+4:]); magic == clMagicBlank {
				require.Equal(t, uint32(len(b)-pos), binary.BigEndian.Uint32(b[pos:]),
					"segment %q: the BLANK record's TOTALSIZE is the bytes left", name)
				require.GreaterOrEqual(t, len(b)-pos, clBlankLen)
				require.True(t, allZero(b[pos+clBlankLen:]), "segment %q: zeros after the BLANK record", name)
				require.Less(t, i, len(names)-1, "segment %q ends with BLANK: the log goes on in the next one", name)
				blankLeft = len(b) - pos
				break
			}
			r := readRecord(t, b[pos:], start+int64(pos))
			require.Equal(t, uint32(clMagicMessage), r.magic, "record at %d: MAGICCODE", r.pos)
			if pos == 0 && blankLeft >= 0 {
				require.Greater(t, int(r.totalSize)+clBlankLen, blankLeft,
					"record at %d: moved to a new segment only because it did not fit with the BLANK marker", r.pos)
			}
			recs = append(recs, r)
			pos += int(r.totalSize)
			require.LessOrEqual(t, clBlankLen, len(b)-pos, "segment %q: a record leaves room for the BLANK marker", name)
		}
	}
	return recs
}

// expectedRecord is what the test sent and the broker answered for one message.
type expectedRecord struct {
	body        []byte
	props       map[string]string
	batch       bool
	compressed  bool
	flag        int32
	queueID     int
	queueOffset int64
}

// The official client writes single messages (some with bodies over 4 KiB, which it
// compresses; some with the WAIT property) and batches; then the CommitLog files are read back
// with plain file reads and every field of every record is checked against store-formats.md
// §2.1: TOTALSIZE, MAGICCODE, BODYCRC (CRC-32 IEEE of the stored body & 0x7FFFFFFF), QUEUEID
// and QUEUEOFFSET as in the SendResult, PHYSICALOFFSET = the record's position = the offset in
// the OffsetMsgID, SYSFLAG (compressed bit), BORNTIMESTAMP in the test's window, BORNHOST = the
// producer's connection, STORETIMESTAMP >= born, STOREHOST = the broker's address,
// RECONSUMETIMES 0, PreparedTransactionOffset 0, BODY, TOPIC, PROPERTIES (the producer's plus
// CLUSTER, without WAIT, no trailing separator for single sends: Java 4.9.8
// SendMessageProcessor#asyncSendMessage and MessageDecoder#messageProperties2String; for
// batch members the member's string as sent followed by CLUSTER: MessageExtEncoder batch
// encode). Records are contiguous, and each segment ends per §2.3.
func TestCommitLogRecordsMatchLayout(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	b0 := c.Brokers[0]
	const topic, group, n, nBatches, batchSize = "LogTopic", "log-producer", 200, 3, 5
	p := newProducer(t, c.NamesrvAddr(), group)
	brokerAddr := b0.BrokerAddr()

	want := map[int64]expectedRecord{} // physical offset -> expected record
	bornMin := time.Now().UnixMilli()
	for i := 0; i < n; i++ {
		var body []byte
		if i%25 == 7 {
			body = bytes.Repeat([]byte(fmt.Sprintf("compressible-%d ", i)), 400) // > 4 KiB: compressed
		} else {
			body = make([]byte, 1+(i*37)%1200)
			for j := range body {
				body[j] = byte('a' + (i+j)%26)
			}
		}
		msg := primitive.NewMessage(topic, body)
		msg.WithTag(fmt.Sprintf("T%d", i%3))
		msg.WithKeys([]string{"k-" + strconv.Itoa(i), "k2-" + strconv.Itoa(i)})
		msg.WithProperty("seq", strconv.Itoa(i))
		if i%2 == 0 {
			msg.WithProperty(primitive.PropertyWaitStoreMsgOk, "true")
		}
		msg.Flag = int32(i)
		res := sendSync(t, p, msg)
		id, err := primitive.UnmarshalMsgID([]byte(res.OffsetMsgID))
		require.NoError(t, err)
		require.Equal(t, brokerAddr, fmt.Sprintf("%s:%d", id.Addr, id.Port), "OffsetMsgID's store host")
		props := msg.GetProperties()
		require.Equal(t, res.MsgID, props[primitive.PropertyUniqueClientMessageIdKeyIndex])
		delete(props, primitive.PropertyWaitStoreMsgOk)
		props[primitive.PropertyCluster] = "DefaultCluster"
		want[id.Offset] = expectedRecord{body: body, props: props, compressed: len(body) >= 4096, flag: int32(i),
			queueID: res.MessageQueue.QueueId, queueOffset: res.QueueOffset}
	}
	for bi := 0; bi < nBatches; bi++ {
		var msgs []*primitive.Message
		for k := 0; k < batchSize; k++ {
			msg := primitive.NewMessage(topic, []byte(fmt.Sprintf("batch-%d-%d", bi, k)))
			msg.WithTag("B" + strconv.Itoa(k))
			msg.WithKeys([]string{fmt.Sprintf("bk-%d-%d", bi, k)})
			msgs = append(msgs, msg)
		}
		res := sendSync(t, p, msgs...)
		ids := strings.Split(res.OffsetMsgID, ",")
		require.Len(t, ids, batchSize)
		for k, s := range ids {
			id, err := primitive.UnmarshalMsgID([]byte(s))
			require.NoError(t, err)
			props := msgs[k].GetProperties()
			props[primitive.PropertyCluster] = "DefaultCluster"
			want[id.Offset] = expectedRecord{body: msgs[k].Body, props: props, batch: true,
				queueID: res.MessageQueue.QueueId, queueOffset: res.QueueOffset + int64(k)}
		}
	}
	bornMax := time.Now().UnixMilli()

	// The producer's connection, as the broker sees it (registered by the client's heartbeat).
	var bornHost string
	require.Eventually(t, func() bool {
		if ch := b0.ProducerManager().GetAvailableChannel(group); ch != nil {
			bornHost = ch.RemoteAddr()
			return true
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "the producer's heartbeat registers its channel")
	require.True(t, strings.HasPrefix(bornHost, "127.0.0.1:"), bornHost)

	dir := b0.MessageStoreConfig().StorePathCommitLog
	fileSize := b0.MessageStoreConfig().MappedFileSizeCommitLog
	c.Shutdown() // everything flushed, nothing changes while the files are read

	recs := readCommitLog(t, dir, fileSize)
	require.Len(t, recs, len(want), "one record per message sent")
	require.Greater(t, recs[len(recs)-1].pos, int64(2*fileSize), "the test spans at least three segments")
	crcTable := crc32.IEEETable
	for _, r := range recs {
		w, ok := want[r.pos]
		require.True(t, ok, "record at %d is one the test sent (OffsetMsgID)", r.pos)
		where := fmt.Sprintf("record at %d", r.pos)
		require.Equal(t, r.pos, r.physicalOffset, "%s: PHYSICALOFFSET", where)
		require.Equal(t, int32(crc32.Checksum(r.body, crcTable)&0x7FFFFFFF), r.bodyCRC, "%s: BODYCRC", where)
		require.Equal(t, int32(w.queueID), r.queueID, "%s: QUEUEID", where)
		require.Equal(t, w.queueOffset, r.queueOffset, "%s: QUEUEOFFSET", where)
		require.Equal(t, w.flag, r.flag, "%s: FLAG", where)
		wantSys := int32(0)
		if w.compressed {
			wantSys = clSysCompress
		}
		require.Equal(t, wantSys, r.sysFlag, "%s: SYSFLAG", where)
		require.True(t, r.bornTimestamp >= bornMin && r.bornTimestamp <= bornMax,
			"%s: BORNTIMESTAMP %d within [%d, %d]", where, r.bornTimestamp, bornMin, bornMax)
		require.Equal(t, bornHost, r.bornHost, "%s: BORNHOST", where)
		require.True(t, r.storeTimestamp >= r.bornTimestamp && r.storeTimestamp <= bornMax,
			"%s: STORETIMESTAMP %d within [born %d, %d]", where, r.storeTimestamp, r.bornTimestamp, bornMax)
		require.Equal(t, brokerAddr, r.storeHost, "%s: STOREHOSTADDRESS", where)
		require.Zero(t, r.reconsumeTimes, "%s: RECONSUMETIMES", where)
		require.Zero(t, r.preparedTransactionOffet, "%s: PreparedTransactionOffset", where)
		body := r.body
		if w.compressed {
			zr, err := zlib.NewReader(bytes.NewReader(r.body))
			require.NoError(t, err, "%s: compressed BODY", where)
			body, err = io.ReadAll(zr)
			require.NoError(t, err, "%s: compressed BODY", where)
			require.Less(t, len(r.body), len(body), "%s: the stored body is the compressed one", where)
		}
		require.Equal(t, w.body, body, "%s: BODY", where)
		require.Equal(t, topic, r.topic, "%s: TOPIC", where)
		require.Equal(t, w.props, parseProps(r.properties), "%s: PROPERTIES %q", where, r.properties)
		require.NotContains(t, r.properties, "WAIT\x01", "%s: WAIT is not stored", where)
		for _, k := range []string{"TAGS", "KEYS", "CLUSTER"} {
			require.Contains(t, parseProps(r.properties), k, where)
		}
		if w.batch {
			require.True(t, strings.HasSuffix(r.properties, "\x02CLUSTER\x01DefaultCluster"),
				"%s: batch member: its properties as sent, then CLUSTER: %q", where, r.properties)
		} else {
			require.Contains(t, parseProps(r.properties), "UNIQ_KEY", where)
			require.False(t, strings.HasSuffix(r.properties, "\x02"), "%s: no trailing separator: %q", where, r.properties)
		}
	}
}
