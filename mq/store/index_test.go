package store

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// indexConfig is smallConfig with tiny index files (8 slots, 6 entries: 5 usable) named in UTC.
func indexConfig(dir string) storeSetup {
	cfg := smallConfig(dir)
	cfg.MaxHashSlotNum = 8
	cfg.MaxIndexNum = 6
	cfg.Location = time.UTC
	return cfg
}

// keyedMsg is a message with KEYS and UNIQ_KEY properties.
func keyedMsg(topic, body, keys, uniq string) *msgT {
	m := newMsg(topic, 0, body, "")
	if keys != "" {
		m.Properties["KEYS"] = keys
		m.PropertiesString += "\x02KEYS\x01" + keys
	}
	if uniq != "" {
		m.Properties["UNIQ_KEY"] = uniq
		m.PropertiesString += "\x02UNIQ_KEY\x01" + uniq
	}
	return m
}

// TestIndexConstants pins the layout sizes of store-formats.md §4 and the key hash of its
// worked example: "TopicTest#ORDER-1" hashes to −1111209712 (Java String#hashCode), key hash
// 1111209712, slot 1,209,712 of 5,000,000, at byte 4,838,888.
func TestIndexConstants(t *testing.T) {
	require.Equal(t, 40, IndexHeaderSize)
	require.Equal(t, 4, IndexHashSlotSize)
	require.Equal(t, 20, IndexEntrySize)
	require.Equal(t, 420000040, indexFileSize(5000000, 20000000))
	require.Equal(t, int32(1111209712), IndexKeyHash("TopicTest#ORDER-1"))
	f := &IndexFile{hashSlotNum: 5000000}
	require.Equal(t, 4838888, f.slotPos(IndexKeyHash("TopicTest#ORDER-1")))
	require.Equal(t, IndexKeyHash("TopicTest#ORDER-1"), indexKeyHash("TopicTest", []byte("ORDER-1")))
	// Math.abs(Integer.MIN_VALUE) stays negative; Java then uses 0. "polygenelubricants" is a
	// string whose hashCode is Integer.MIN_VALUE.
	require.Equal(t, int32(0), IndexKeyHash("polygenelubricants"))
	// non-ASCII keys hash over UTF-16 code units, like Java
	require.Equal(t, int32(20013), IndexKeyHash("中"))
	require.Equal(t, positiveHash(javaHashRune(javaHashRune(0, 0xD83D), 0xDE00)), IndexKeyHash("😀"))
}

// TestIndexFileBytes writes three keys into a file of 4 slots and 4 entries and compares the
// whole file with a hand-built fixture: the header, the slots (slot 2 heads a chain of two
// entries), the entries (timeDiff in seconds since the first entry), and the fourth put
// refused because the file is full. Java: IndexFile#putKey, IndexHeader.
func TestIndexFileBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "20231114221320007")
	f, err := newIndexFile(path, 4, 4, 0, 0)
	require.NoError(t, err)
	defer f.mf.shutdown()
	const t0 = int64(1700000000000)
	// hashes (Java String#hashCode): T#a 81906 (slot 2), T#e 81910 (slot 2), T#b 81907 (slot 3)
	for _, k := range []struct {
		key string
		phy CommitLogOffset
		ts  int64
	}{{"T#a", 100, t0}, {"T#e", 200, t0 + 5000}, {"T#b", 300, t0 + 9999}} {
		ok, err := f.putKey(IndexKeyHash(k.key), k.phy, k.ts)
		require.NoError(t, err)
		require.True(t, ok, k.key)
	}
	ok, err := f.putKey(IndexKeyHash("T#c"), 400, t0+10000)
	require.NoError(t, err)
	require.False(t, ok, "indexCount reached maxIndexNum")
	require.True(t, f.IsWriteFull())

	want := unhex(t, `
		0000018bcfe56800 0000018bcfe58f0f 0000000000000064 000000000000012c 00000002 00000004
		00000000 00000000 00000002 00000003
		00000000 0000000000000000 00000000 00000000
		00013ff2 0000000000000064 00000000 00000000
		00013ff6 00000000000000c8 00000005 00000001
		00013ff3 000000000000012c 00000009 00000000`)
	require.Equal(t, want, f.mf.data)

	// lookups walk the slot's chain newest first and keep only the key's own hash
	require.Equal(t, []CommitLogOffset{100}, f.selectPhyOffset(nil, IndexKeyHash("T#a"), 10, 0, 1<<62, nil))
	require.Equal(t, []CommitLogOffset{200}, f.selectPhyOffset(nil, IndexKeyHash("T#e"), 10, 0, 1<<62, nil))
	require.Empty(t, f.selectPhyOffset(nil, IndexKeyHash("T#a"), 10, t0+1000, 1<<62, nil), "outside the time window")
	require.Empty(t, f.selectPhyOffset(nil, IndexKeyHash("T#c"), 10, 0, 1<<62, nil))

	// a reload reads the same header
	f.mf.shutdown()
	g, err := newIndexFile(path, 4, 4, 0, 0)
	require.NoError(t, err)
	defer g.mf.shutdown()
	g.load()
	require.Equal(t, int32(4), g.IndexCount())
	require.Equal(t, int32(2), g.HashSlotCount())
	require.Equal(t, t0, g.BeginTimestamp())
	require.Equal(t, CommitLogOffset(300), g.EndPhyOffset())
	require.Equal(t, []CommitLogOffset{300}, g.selectPhyOffset(nil, IndexKeyHash("T#b"), 10, 0, 1<<62, nil))

	// a size that does not match the counts is refused
	_, err = newIndexFile(path, 8, 4, 0, 0)
	require.ErrorIs(t, err, ErrFileSize)
}

// TestIndexFileFollowsFullFile: a new file takes the previous file's end offset and end time
// as its begin and end, so timeDiff of its entries counts from there. Java: IndexFile#IndexFile.
func TestIndexFileFollowsFullFile(t *testing.T) {
	f, err := newIndexFile(filepath.Join(t.TempDir(), "20231114221320008"), 4, 4, 300, 1700000009999)
	require.NoError(t, err)
	defer f.mf.shutdown()
	require.Equal(t, unhex(t, "0000018bcfe58f0f 0000018bcfe58f0f 000000000000012c 000000000000012c 00000000 00000000"),
		f.mf.data[:IndexHeaderSize])
	ok, err := f.putKey(IndexKeyHash("T#a"), 400, 1700000012000)
	require.NoError(t, err)
	require.True(t, ok)
	// timeDiff was computed against the carried-over begin (2 s), then begin moved to the entry
	e := f.entryPos(1)
	require.Equal(t, uint32(2), be32(f.mf.data[e+12:]))
	require.Equal(t, int64(1700000012000), f.BeginTimestamp())
}

// TestBuildIndexAndQuery: every key of KEYS (split on spaces) and the UNIQ_KEY is indexed as
// "topic#key"; files roll when full; QueryMessage finds all messages with a key across files,
// in CommitLog order, returns their records and the newest file's end, and respects maxNum.
// Java: IndexService#buildIndex, #queryOffset, DefaultMessageStore#queryMessage.
func TestBuildIndexAndQuery(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, indexConfig(dir), nil, nil)
	var offsets []CommitLogOffset
	var last *AppendMessageResult
	for i := 0; i < 6; i++ {
		// 3 keys per message: "order-<i%2>", "all" and the UNIQ_KEY; a double space is skipped
		r := put(t, s, keyedMsg("T", "m"+strconv.Itoa(i), "order-"+strconv.Itoa(i%2)+"  all", "U"+strconv.Itoa(i)))
		offsets = append(offsets, r.WroteOffset)
	}
	last = put(t, s, keyedMsg("Other", "x", "all", ""))
	s.DoReput()

	files := s.IndexService().IndexFiles()
	// 19 entries, 5 per file
	require.Len(t, files, 4)
	require.Equal(t, "20231114221320007", files[0].FileName())
	require.Equal(t, "20231114221320008", files[1].FileName(), "a name taken in the same ms moves on by one")
	for _, f := range files[:3] {
		require.True(t, f.IsWriteFull())
	}
	require.Equal(t, int32(5), files[3].IndexCount())

	q := s.QueryMessage("T", "all", 32, 0, 1<<62)
	require.Len(t, q.Messages, 6)
	for i, rec := range q.Messages {
		m, err := decodeRecord(rec)
		require.NoError(t, err)
		require.Equal(t, "m"+strconv.Itoa(i), string(m.Body))
		require.Equal(t, int64(offsets[i]), m.CommitLogOffset)
	}
	require.Equal(t, last.WroteOffset, q.IndexLastUpdatePhyoffset, "end offset of the newest file: the last record indexed")
	require.Equal(t, exampleStore, q.IndexLastUpdateTimestamp)

	q = s.QueryMessage("T", "order-1", 32, 0, 1<<62)
	require.Len(t, q.Messages, 3)
	q = s.QueryMessage("T", "U4", 32, 0, 1<<62)
	require.Len(t, q.Messages, 1)
	m, err := decodeRecord(q.Messages[0])
	require.NoError(t, err)
	require.Equal(t, "m4", string(m.Body))
	require.Len(t, s.QueryMessage("T", "all", 2, 0, 1<<62).Messages, 2, "maxNum")
	require.Len(t, s.QueryMessage("Other", "all", 32, 0, 1<<62).Messages, 1, "the topic is part of the key")
	require.Empty(t, s.QueryMessage("T", "none", 32, 0, 1<<62).Messages)
	require.Empty(t, s.QueryMessage("T", "all", 32, 0, exampleStore-1).Messages, "time window")
}

// TestIndexSkipsRollbackAndReplay: ROLLBACK records are not indexed; a record below the
// newest file's end offset is not indexed again, the one at it is (a replay adds its keys
// again), and a query returns it once. Java: IndexService#buildIndex.
func TestIndexSkipsRollbackAndReplay(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	m := keyedMsg("T", "rb", "k", "")
	m.SysFlag |= tranRollbackType
	put(t, s, m)
	put(t, s, keyedMsg("T", "ok", "k", ""))
	s.DoReput()
	require.Len(t, s.QueryMessage("T", "k", 32, 0, 1<<62).Messages, 1)
	count := s.IndexService().IndexFiles()[0].IndexCount()
	s.reput.setReputFromOffset(0)
	s.DoReput()
	require.Equal(t, count+1, s.IndexService().IndexFiles()[0].IndexCount(), "replay: only the record at endPhyOffset again")
	require.Len(t, s.QueryMessage("T", "k", 32, 0, 1<<62).Messages, 1)
}

// hasIndexDispatcher reports whether s's dispatchers include the index one.
func hasIndexDispatcher(s *DefaultMessageStore) bool {
	for _, d := range s.dispatchers.list {
		if _, ok := d.(commitLogDispatcherBuildIndex); ok {
			return true
		}
	}
	return false
}

// TestIndexDisabled: with messageIndexEnable=false the index dispatcher is not registered (the
// reput does no index work per record), no index file is created and the dispatch step is not
// logged; with the default (true) it is registered after the ConsumeQueue one.
// Java: CommitLogDispatcherBuildIndex#dispatch (which checks the flag per record instead).
func TestIndexDisabled(t *testing.T) {
	dir := t.TempDir()
	enabled, err := newStore(smallConfig(t.TempDir()), nil, nil)
	require.NoError(t, err)
	require.Len(t, enabled.dispatchers.list, 2)
	require.True(t, hasIndexDispatcher(enabled), "messageIndexEnable=true registers the index dispatcher")

	cfg := smallConfig(dir)
	cfg.MessageIndexEnable = false
	rec := trace.NewRecorder()
	s := openStore(t, cfg, nil, rec.Tracer("b"))
	require.Len(t, s.dispatchers.list, 1, "only the ConsumeQueue dispatcher")
	require.False(t, hasIndexDispatcher(s), "messageIndexEnable=false registers no index dispatcher")
	put(t, s, keyedMsg("T", "x", "k", ""))
	s.DoReput()
	require.Empty(t, s.IndexService().IndexFiles())
	require.NotContains(t, rec.Labels(), "CommitLogDispatcherBuildIndex#dispatch")
	_, err = os.Stat(filepath.Join(dir, "index"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestIndexLoad: after a clean shutdown the index files are kept and found again; after an
// unclean exit a file whose end time is past the checkpoint's indexMsgTimestamp is deleted and
// abnormal recovery indexes its records again; a full file that was flushed (its end time is
// the checkpoint's indexMsgTimestamp) is kept. Java: IndexService#load, #flush.
func TestIndexLoad(t *testing.T) {
	dir := t.TempDir()
	cfg := indexConfig(dir)
	clk := clock.NewManualMillis(exampleStore)
	cfg.Clock = clk
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 4; i++ { // 2 entries each: 8 entries, a full file and a partial one
		clk.Advance(time.Second)
		put(t, s, keyedMsg("T", "m", "k"+strconv.Itoa(i), "U"+strconv.Itoa(i)))
	}
	s.DoReput()
	files := s.IndexService().IndexFiles()
	require.Len(t, files, 2)
	full, partial := files[0].FileName(), files[1].FileName()
	require.Equal(t, files[0].EndTimestamp(), s.Checkpoint().IndexMsgTimestamp(), "a full file is flushed and checkpointed")
	s.Shutdown()

	s = openStore(t, cfg, nil, nil)
	require.Len(t, s.IndexService().IndexFiles(), 2, "clean shutdown keeps both")
	require.Len(t, s.QueryMessage("T", "k3", 32, 0, 1<<62).Messages, 1)
	crashStore(s) // keeps the abort file

	clk.Advance(time.Second) // the rebuilt file gets a new name
	rec := trace.NewRecorder()
	s = openStore(t, cfg, nil, rec.Tracer("b"))
	names := []string{}
	for _, f := range s.IndexService().IndexFiles() {
		names = append(names, f.FileName())
	}
	require.Contains(t, names, full)
	require.NotContains(t, names, partial, "the unflushed file was deleted and rebuilt under a new name")
	for i := 0; i < 4; i++ {
		require.Len(t, s.QueryMessage("T", "k"+strconv.Itoa(i), 32, 0, 1<<62).Messages, 1, "k%d", i)
		require.Len(t, s.QueryMessage("T", "U"+strconv.Itoa(i), 32, 0, 1<<62).Messages, 1, "U%d", i)
	}
	require.Contains(t, rec.Labels(), "CommitLog#recoverAbnormally")
	total := int32(0)
	for _, f := range s.IndexService().IndexFiles() {
		total += f.IndexCount() - 1
	}
	// U2 went into the full file, k2 into the lost one: the replay of that record (at the full
	// file's end offset) indexes both again, so U2 has two entries — and one query answer
	require.Equal(t, int32(9), total)
}

// TestIndexIndependentOfKeysOrder: a key with a space at either end is still one key.
func TestIndexKeysSplit(t *testing.T) {
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	put(t, s, keyedMsg("T", "x", " a b ", ""))
	s.DoReput()
	require.Len(t, s.QueryMessage("T", "a", 32, 0, 1<<62).Messages, 1)
	require.Len(t, s.QueryMessage("T", "b", 32, 0, 1<<62).Messages, 1)
	require.Empty(t, s.QueryMessage("T", " a", 32, 0, 1<<62).Messages)
	require.Equal(t, int32(3), s.IndexService().IndexFiles()[0].IndexCount(), "two entries: empty words are skipped")
	require.True(t, strings.HasPrefix(s.IndexService().IndexFiles()[0].FileName(), "2023111"))
}

// FuzzIndexFile loads arbitrary bytes as an index file (8 slots, 6 entries) and looks keys up
// and adds one: damaged files must never make the store panic. Java: IndexFile#load,
// #selectPhyOffset, #putKey.
func FuzzIndexFile(f *testing.F) {
	valid := make([]byte, indexFileSize(8, 6))
	f.Add(valid)
	f.Add(unhex(f, `0000018bcfe56800 0000018bcfe58f0f 0000000000000064 000000000000012c 00000002 00000004
		00000000 00000000 00000002 00000003 00000000 00000000 00000000 00000000`))
	f.Add(append(unhex(f, "0000000000000000 0000000000000000 0000000000000000 0000000000000000 7fffffff 7fffffff"),
		make([]byte, 8*4+6*20)...))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		path := filepath.Join(dir, strconv.Itoa(n))
		buf := make([]byte, indexFileSize(8, 6))
		copy(buf, data)
		require.NoError(t, os.WriteFile(path, buf, 0o644))
		defer os.Remove(path)
		ix, err := newIndexFile(path, 8, 6, 0, 0)
		require.NoError(t, err)
		defer ix.mf.shutdown()
		ix.load()
		for _, k := range []string{"T#a", "T#b", "T#e", "x"} {
			_ = ix.selectPhyOffset(nil, IndexKeyHash(k), 64, math.MinInt64, math.MaxInt64, nil)
		}
		_, _ = ix.putKey(IndexKeyHash("T#a"), 1, 2)
		_ = ix.selectPhyOffset(nil, IndexKeyHash("T#a"), 64, math.MinInt64, math.MaxInt64, nil)
	})
}

// TestIndexDamagedChain: a chain whose links loop (only in a damaged file) ends the lookup.
func TestIndexDamagedChain(t *testing.T) {
	ix, err := newIndexFile(filepath.Join(t.TempDir(), "20240101000000000"), 4, 4, 0, 0)
	require.NoError(t, err)
	defer ix.mf.shutdown()
	for i := 0; i < 3; i++ {
		ok, err := ix.putKey(IndexKeyHash("T#a"), CommitLogOffset(i), 1700000000000)
		require.NoError(t, err)
		require.True(t, ok)
	}
	// entry 1 now points forward at entry 3: 3 → 2 → 1 → 3 → ...
	binary.BigEndian.PutUint32(ix.mf.data[ix.entryPos(1)+16:], 3)
	require.Equal(t, []CommitLogOffset{2, 1, 0}, ix.selectPhyOffset(nil, IndexKeyHash("T#a"), 64, 0, math.MaxInt64, nil))
}

// TestQueryMessageChecksHashCollisions: "Aa" and "BB" have the same Java hash code, so
// T#Aa and T#BB share index slots and chains, and so do Aa#k and BB#k. A query returns only
// the records of the topic and key asked, and the colliding records newer than them do not
// use up maxNum: the 3 oldest matches are still found under maxNum 3. Java: the index keeps
// only the hash (IndexFile#putKey); the check is QueryMessage's.
func TestQueryMessageChecksHashCollisions(t *testing.T) {
	require.Equal(t, IndexKeyHash("T#Aa"), IndexKeyHash("T#BB"))
	require.Equal(t, IndexKeyHash("Aa#k"), IndexKeyHash("BB#k"))
	s := openStore(t, smallConfig(t.TempDir()), nil, nil)
	for i := range 3 {
		put(t, s, keyedMsg("T", "aa"+strconv.Itoa(i), "x Aa", ""))
	}
	for i := range 4 {
		put(t, s, keyedMsg("T", "bb"+strconv.Itoa(i), "BB", ""))
		put(t, s, keyedMsg("BB", "other"+strconv.Itoa(i), "k", ""))
	}
	put(t, s, keyedMsg("Aa", "mine", "k", ""))
	put(t, s, keyedMsg("T", "uniq", "", "Aa"))
	s.DoReput()

	bodies := func(q *QueryMessageResult) []string {
		var out []string
		for _, rec := range q.Messages {
			m, err := decodeRecord(rec)
			require.NoError(t, err)
			out = append(out, string(m.Body))
		}
		return out
	}
	require.Equal(t, []string{"aa0", "aa1", "aa2", "uniq"}, bodies(s.QueryMessage("T", "Aa", 32, 0, 1<<62)))
	require.Equal(t, []string{"aa1", "aa2", "uniq"}, bodies(s.QueryMessage("T", "Aa", 3, 0, 1<<62)),
		"the newest 3 matches, past the newer BB entries of the same chain")
	require.Len(t, s.QueryMessage("T", "BB", 32, 0, 1<<62).Messages, 4)
	require.Equal(t, []string{"mine"}, bodies(s.QueryMessage("Aa", "k", 32, 0, 1<<62)))
	require.Empty(t, s.QueryMessage("T", "A", 32, 0, 1<<62).Messages, "a prefix of a key is no key")
	require.Empty(t, s.QueryMessage("T", "", 32, 0, 1<<62).Messages, "no KEYS is no empty key")
}
