package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// crashChildEnv names the store directory when the test binary runs as the crash test's
// broker process.
const crashChildEnv = "ROCKETMQ_GO_CH03_CRASH_BROKER"

func TestMain(m *testing.M) { mqtest.ChildMain(m, crashChildEnv, crashBroker) }

// crashBrokerConfig: 64 KiB CommitLog files, 100-unit ConsumeQueue files, index files of 64
// slots and 200 entries, all services running on the wall clock, and a safe index (recovery
// after a crash starts early enough to rebuild every index entry).
func crashBrokerConfig(dir string) (broker.BrokerConfig, store.MessageStoreConfig) {
	bc := embedded.BrokerConfig("broker-crash", "")
	sc := embedded.SmallStoreConfig(dir)
	sc.MessageIndexSafe = true
	return bc, sc
}

// crashBroker is the child: a broker over dir that reports its address and serves until killed.
func crashBroker(dir string) int {
	bc, sc := crashBrokerConfig(dir)
	return mqtest.ServeBroker(bc, sc)
}

// TestBrokerCrashRecovery runs a broker as a child process, sends to it from several
// goroutines, kills it with SIGKILL while sends are in flight, and restarts a broker on its
// store. Then every acknowledged message is readable at the queue offset its answer gave, the
// CommitLog ends at a whole record (every record up to the end checks out: position, CRC;
// blanks only at file ends), every ConsumeQueue unit points at the record with its topic,
// queue and queue offset and every record has its unit, and every acknowledged key is found
// through the index. Java: DefaultMessageStore#load → CommitLog#recoverAbnormally.
func TestBrokerCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	child := mqtest.MustStartChild(t, crashChildEnv+"="+dir)
	senders := mqtest.StartSenders(mqtest.SendLoad{Addr: child.Addr, Topic: "Crash", Goroutines: 4,
		Key: func(g, i int) string { return fmt.Sprintf("K%d-%d", g, i) },
		Properties: func(key string) map[string]string {
			return map[string]string{primitive.PropertyKeys: key, primitive.PropertyUniqClientMessageIDKeyIdx: "U" + key}
		}})
	require.Eventually(t, func() bool { return senders.Acked() >= 1500 }, 60*time.Second, time.Millisecond)
	child.Kill() // sends are in flight
	acked := senders.Stop()
	_, err := os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a killed broker leaves its abort file")

	bc, scfg := crashBrokerConfig(dir)
	b, err := embedded.StartBroker(bc, embedded.LoopbackServer(), scfg, nil)
	require.NoError(t, err)
	defer b.Shutdown()
	ms := b.MessageStore()

	// every acknowledged message is where its answer said
	for key, a := range acked {
		g := ms.GetMessage("g", "Crash", a.QueueID, a.QueueOffset, 1, nil)
		require.Equal(t, store.Found, g.Status, key)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, int64(a.CommitLogOffset), m.CommitLogOffset)
	}

	// the CommitLog ends at a whole record
	records := walkCommitLog(t, dir, scfg.MappedFileSizeCommitLog, int64(ms.GetMinPhyOffset()), int64(ms.GetMaxPhyOffset()))
	require.GreaterOrEqual(t, len(records), len(acked))

	// ConsumeQueues and CommitLog agree, unit for record
	perQueue := map[int32][]*primitive.MessageExt{}
	for _, m := range records {
		perQueue[m.QueueID] = append(perQueue[m.QueueID], m)
	}
	for q, msgs := range perQueue {
		require.Equal(t, store.QueueOffset(len(msgs)), ms.GetMaxOffsetInQueue("Crash", q), "queue %d", q)
		for k, m := range msgs {
			require.Equal(t, int64(k), m.QueueOffset)
			require.Equal(t, store.CommitLogOffset(m.CommitLogOffset), ms.GetCommitLogOffsetInQueue("Crash", q, store.QueueOffset(k)), "queue %d unit %d", q, k)
		}
	}

	// and the index finds every acknowledged key, by KEYS and by UNIQ_KEY
	for key, a := range acked {
		for _, k := range []string{key, "U" + key} {
			r := ms.QueryMessage("Crash", k, 32, 0, 1<<62)
			require.Len(t, r.Messages, 1, k)
			m, _, err := primitive.DecodeMessage(r.Messages[0])
			require.NoError(t, err)
			require.Equal(t, int64(a.CommitLogOffset), m.CommitLogOffset, k)
		}
	}
}

// walkCommitLog reads the CommitLog files under dir from min to max (bytes) and returns every
// message; it fails the test unless each record sits at its own PHYSICALOFFSET with a good body
// CRC, blanks fill file ends only, and the walk ends exactly at max.
func walkCommitLog(t *testing.T, dir string, fileSize int, min, max int64) []*primitive.MessageExt {
	t.Helper()
	var out []*primitive.MessageExt
	for off := min; off < max; {
		from := off - off%int64(fileSize)
		data, err := os.ReadFile(filepath.Join(dir, "commitlog", mqtest.FileName(from)))
		require.NoError(t, err)
		pos := int(off - from)
		size := int(binary.BigEndian.Uint32(data[pos:]))
		if binary.BigEndian.Uint32(data[pos+4:]) == primitive.BlankMagicCode {
			require.Equal(t, fileSize-pos, size, "a blank fills the rest of its file")
			off = from + int64(fileSize)
			continue
		}
		m, n, err := primitive.DecodeMessage(data[pos:])
		require.NoError(t, err, "record at %d", off)
		require.Equal(t, off, m.CommitLogOffset)
		require.Equal(t, int32(crc32.ChecksumIEEE(m.Body)&0x7FFFFFFF), m.BodyCRC, "body CRC at %d", off)
		out = append(out, m)
		off += int64(n)
	}
	return out
}
