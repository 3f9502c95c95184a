package command_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// dump runs dumpStore (no name server) and requires exit code 0.
func dump(t testing.TB, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := command.Main(append([]string{"dumpStore"}, args...), command.Env{Stdout: &out, Stderr: &errOut})
	require.Equal(t, command.ExitOK, code, errOut.String())
	return out.String()
}

// snapshot is every file under root: its size and modification time, and the hash of its
// bytes when it is under 8 MiB (the 420 MB sparse index file is compared by size and time).
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		sum := [32]byte{}
		if st.Size() < 8<<20 {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = sha256.Sum256(b)
		}
		out[p] = fmt.Sprintf("%d %s %x", st.Size(), st.ModTime(), sum)
		return nil
	}))
	return out
}

// field returns the #Value of the named field in the record table that follows "record n at".
func field(t testing.TB, out string, n int, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "record "+strconv.Itoa(n)+" at ")
	require.True(t, ok, "record %d", n)
	for _, r := range rows(after) {
		if len(r) == 4 && r[2] == name {
			return r[3]
		}
	}
	t.Fatalf("no field %s in record %d", name, n)
	return ""
}

// TestDumpStore: dumpStore reads a broker's files while it runs and after it stopped, and
// prints what the store wrote: each CommitLog record field by field at its CommitLog offset
// (topic, body, queue offset, keys), the ConsumeQueue units pointing at those records, the
// index entries of the keys, and the checkpoint; it writes nothing (every file's bytes are the
// same after it ran). docs/reference/store-formats.md §2–§5.
func TestDumpStore(t *testing.T) {
	c := startCluster(t, 1)
	b := c.Brokers[0]
	root := b.MessageStoreConfig().StorePathRootDir
	topic := "D_" + name(t, "")
	createTopic(t, c, topic, 1)
	res := sendTo(t, startProducer(t, c, name(t, "pg_")), primitive.MessageQueue{Topic: topic, BrokerName: "broker-a"}, "body", "key-1", "TagA", 3)
	require.Eventually(t, func() bool { // the reput service built the ConsumeQueue and the index
		return b.MessageStore().GetMaxOffsetInQueue(topic, 0) == 3 && len(b.MessageStore().QueryMessage(topic, "key-1", 32, 0, 1<<62).Messages) == 3
	}, 5*time.Second, 10*time.Millisecond)

	out := dump(t, "-d", root, "-p", "commitlog")
	require.Contains(t, out, "== CommitLog commitlog/00000000000000000000 (")
	for i, r := range res {
		_, offset, err := primitive.DecodeOffsetMsgID(r.OffsetMsgID)
		require.NoError(t, err)
		require.Contains(t, out, "record "+strconv.Itoa(i)+" at file position "+strconv.FormatInt(offset, 10)+" (CommitLog offset "+strconv.FormatInt(offset, 10)+")")
		require.Equal(t, topic, field(t, out, i, "TOPIC"))
		require.Equal(t, "body-"+strconv.Itoa(i), field(t, out, i, "BODY"))
		require.Equal(t, strconv.Itoa(i), field(t, out, i, "QUEUEOFFSET"))
		require.Equal(t, strconv.FormatInt(offset, 10), field(t, out, i, "PHYSICALOFFSET"))
		require.Equal(t, "0xDAA320A7 (MESSAGE)", field(t, out, i, "MAGICCODE"))
		require.Contains(t, field(t, out, i, "PROPERTIES"), "KEYS=key-1")
	}
	require.Contains(t, out, "end of data at file position")

	out = dump(t, "-d", root, "-p", "consumequeue", "-t", topic)
	require.Contains(t, out, "== ConsumeQueue consumequeue/"+topic+"/0/00000000000000000000 (")
	tbl := rows(out)
	require.Equal(t, []string{"#Unit", "#Pos", "#CommitLog Offset", "#Size", "#Tags Code"}, tbl[0])
	require.Len(t, tbl, 4)
	for i, r := range res {
		_, offset, _ := primitive.DecodeOffsetMsgID(r.OffsetMsgID)
		require.Equal(t, []string{strconv.Itoa(i), strconv.Itoa(i * 20), strconv.FormatInt(offset, 10)}, tbl[i+1][:3])
		require.Equal(t, strconv.FormatInt(primitive.TagsString2TagsCode("TagA"), 10), tbl[i+1][4])
	}

	out = dump(t, "-d", root, "-p", "index")
	require.Contains(t, out, "== IndexFile index/")
	require.Contains(t, out, "5000000 slots, 20000000 entries", "RocketMQ's index geometry, detected from the file size")
	hash := strconv.Itoa(int(store.IndexKeyHash(topic + "#key-1")))
	require.Equal(t, 3, strings.Count(out, "│ "+hash+" "), "three entries under topic#key-1 (and three under the UNIQ_KEYs)")

	out = dump(t, "-d", root, "-p", "checkpoint")
	require.Contains(t, out, "physicMsgTimestamp")

	require.Contains(t, dump(t, "-d", root, "-c", "1"), "... more records", "-c limits the records per file")

	c.Shutdown()
	before := snapshot(t, root)
	out = dump(t, "-d", root)
	require.Contains(t, out, "record 2 at")
	require.Equal(t, before, snapshot(t, root), "dumpStore writes nothing")
}

// TestDumpStoreErrors: a directory that is no store and an unknown part fail; an index file
// whose size fits no known geometry asks for -S and -I.
func TestDumpStoreErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	env := command.Env{Stdout: &out, Stderr: &errOut}
	require.Equal(t, command.ExitFailed, command.Main([]string{"dumpStore", "-d", filepath.Join(t.TempDir(), "none")}, env))
	require.Contains(t, errOut.String(), "no store directory")
	require.Equal(t, command.ExitUsage, command.Main([]string{"dumpStore", "-d", t.TempDir(), "-p", "bytes"}, env))

	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "index"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "index", "20240101000000000"), make([]byte, 1000), 0o644))
	errOut.Reset()
	require.Equal(t, command.ExitFailed, command.Main([]string{"dumpStore", "-d", root, "-p", "index"}, env))
	require.Contains(t, errOut.String(), "-S and -I")
	var ok bytes.Buffer
	require.Equal(t, command.ExitOK, command.Main([]string{"dumpStore", "-d", root, "-p", "index", "-S", "5", "-I", "47"},
		command.Env{Stdout: &ok, Stderr: &errOut}), errOut.String())
	require.Contains(t, ok.String(), "5 slots, 47 entries")

	require.NoError(t, os.WriteFile(filepath.Join(root, "index", "20240101000000000"), make([]byte, 40+64*4+200*20), 0o644))
	ok.Reset()
	require.Equal(t, command.ExitOK, command.Main([]string{"dumpStore", "-d", root, "-p", "index"},
		command.Env{Stdout: &ok, Stderr: &errOut}), errOut.String())
	require.Contains(t, ok.String(), "64 slots, 200 entries", "the chapters' small index files (embedded.SmallFiles)")
}
