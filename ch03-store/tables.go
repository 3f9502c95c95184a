package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// The tables read the store's files from disk (through the page cache, so they see what the
// store wrote to its mappings) and lay their bytes out as store-formats.md describes them.

var be = binary.BigEndian

// logFile is one file of a log: its path and the offset of its first byte (its name).
type logFile struct {
	path string
	name string
	from int64
}

func listLog(dir string) ([]logFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []logFile
	for _, e := range entries {
		from, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || e.IsDir() {
			continue
		}
		out = append(out, logFile{path: filepath.Join(dir, e.Name()), name: e.Name(), from: from})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out, nil
}

func commitLogFiles(root string) ([]logFile, error) { return listLog(filepath.Join(root, "commitlog")) }

// record is one record found walking a CommitLog file.
type record struct {
	pos, size int
	blank     bool
	msg       *primitive.MessageExt
}

// walkRecords reads the records of one CommitLog file up to the first zero length, a blank
// record (which ends the file) or bytes that are not a record.
func walkRecords(data []byte) []record {
	var out []record
	for pos := 0; pos+8 <= len(data); {
		size := int(int32(be.Uint32(data[pos:])))
		magic := be.Uint32(data[pos+4:])
		switch {
		case magic == primitive.BlankMagicCode:
			return append(out, record{pos: pos, size: size, blank: true})
		case magic != primitive.MessageMagicCode || size < primitive.MinRecordSize || pos+size > len(data):
			return out
		}
		m, _, err := primitive.DecodeMessage(data[pos : pos+size])
		if err != nil {
			return out
		}
		out = append(out, record{pos: pos, size: size, msg: m})
		pos += size
	}
	return out
}

// printRecord lays out the record at CommitLog offset off field by field (store-formats.md
// §2.1). Ports are ephemeral, so they are shown as "port".
func printRecord(w io.Writer, root string, off int64) {
	files, _ := commitLogFiles(root)
	var data []byte
	for _, f := range files {
		if b, err := os.ReadFile(f.path); err == nil && off >= f.from && off < f.from+int64(len(b)) {
			data = b[off-f.from:]
		}
	}
	if len(data) < 8 {
		return
	}
	rec := data[:be.Uint32(data)]
	mqtest.Say(w, "CommitLog record at offset %d (%d bytes):", off, len(rec))
	t := mqtest.NewTable(w, "offset", "size", "field", "hex", "value")
	hexOf := func(b []byte) string { return hex.EncodeToString(b) }
	host := func(b []byte) (string, string) {
		ip := fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
		return hexOf(b[:4]) + " (port)", ip + ":port"
	}
	p := 0
	field := func(name string, n int, value string, shown string) {
		if shown == "" {
			shown = hexOf(rec[p : p+n])
		}
		t.Row(strconv.Itoa(p), strconv.Itoa(n), name, shown, value)
		p += n
	}
	i32 := func(at int) int32 { return int32(be.Uint32(rec[at:])) }
	i64 := func(at int) int64 { return int64(be.Uint64(rec[at:])) }
	ms := func(at int) string { return time.UnixMilli(i64(at)).UTC().Format("2006-01-02 15:04:05.000") }
	field("TOTALSIZE", 4, strconv.Itoa(int(i32(0))), "")
	field("MAGICCODE", 4, "message", "")
	field("BODYCRC", 4, strconv.Itoa(int(i32(8))), "")
	field("QUEUEID", 4, strconv.Itoa(int(i32(12))), "")
	field("FLAG", 4, strconv.Itoa(int(i32(16))), "")
	field("QUEUEOFFSET", 8, strconv.FormatInt(i64(20), 10)+" (ConsumeQueue units)", "")
	field("PHYSICALOFFSET", 8, strconv.FormatInt(i64(28), 10)+" (bytes)", "")
	field("SYSFLAG", 4, strconv.Itoa(int(i32(36))), "")
	field("BORNTIMESTAMP", 8, ms(40), "")
	hx, v := host(rec[48:])
	field("BORNHOST", 8, v, hx)
	field("STORETIMESTAMP", 8, ms(56), "")
	hx, v = host(rec[64:])
	field("STOREHOSTADDRESS", 8, v, hx)
	field("RECONSUMETIMES", 4, strconv.Itoa(int(i32(72))), "")
	field("PREPAREDTRANSACTIONOFFSET", 8, strconv.FormatInt(i64(76), 10), "")
	bodyLen := int(i32(84))
	field("BODYLENGTH", 4, strconv.Itoa(bodyLen), "")
	field("BODY", bodyLen, strconv.Quote(string(rec[p:p+bodyLen])), "")
	topicLen := int(rec[p])
	field("TOPICLENGTH", 1, strconv.Itoa(topicLen), "")
	field("TOPIC", topicLen, strconv.Quote(string(rec[p:p+topicLen])), "")
	propLen := int(be.Uint16(rec[p:]))
	field("PROPERTIESLENGTH", 2, strconv.Itoa(propLen), "")
	props := strings.NewReplacer("\x01", "␁", "\x02", "␂").Replace(string(rec[p : p+propLen]))
	field("PROPERTIES", propLen, props, "(the text)")
	t.Render()
}

// printCommitLog lists every CommitLog file's records and blank.
func printCommitLog(w io.Writer, root string) {
	files, err := commitLogFiles(root)
	if err != nil {
		return
	}
	mqtest.Say(w, "CommitLog files:")
	t := mqtest.NewTable(w, "file", "offset", "size", "record", "queue", "queue offset", "keys", "body")
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			continue
		}
		recs := walkRecords(data) // an empty file, created ahead by the allocation service, has none
		for _, r := range recs {
			off := strconv.FormatInt(f.from+int64(r.pos), 10)
			if r.blank {
				t.Row(f.name, off, strconv.Itoa(r.size), "BLANK (END_OF_FILE)", "", "", "", "")
				continue
			}
			m := r.msg
			t.Row(f.name, off, strconv.Itoa(r.size), "message", fmt.Sprintf("%s/%d", m.Topic, m.QueueID),
				strconv.FormatInt(m.QueueOffset, 10), m.Properties[primitive.PropertyKeys], shortBody(m.Body))
		}
	}
	t.Render()
}

func shortBody(b []byte) string {
	if len(b) > 12 {
		return fmt.Sprintf("%q… (%d bytes)", b[:6], len(b))
	}
	return strconv.Quote(string(b))
}

// printConsumeQueues lists every unit of every ConsumeQueue file of the topic (store-formats.md
// §3.1: commitLogOffset 8, size 4, tagsCode 8).
func printConsumeQueues(w io.Writer, root string) {
	mqtest.Say(w, "ConsumeQueue files (20-byte units):")
	t := mqtest.NewTable(w, "file", "unit", "commitLogOffset", "size", "tagsCode", "hex")
	for q := 0; q < 2; q++ {
		files, err := listLog(filepath.Join(root, "consumequeue", topicName, strconv.Itoa(q)))
		if err != nil {
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f.path)
			if err != nil {
				continue
			}
			name := fmt.Sprintf("%s/%d/%s", topicName, q, f.name)
			for i := 0; i+store.ConsumeQueueUnitSize <= len(data); i += store.ConsumeQueueUnitSize {
				u := data[i : i+store.ConsumeQueueUnitSize]
				size := int32(be.Uint32(u[8:]))
				if size <= 0 {
					break
				}
				unit := (f.from + int64(i)) / store.ConsumeQueueUnitSize
				tags := int64(be.Uint64(u[12:]))
				t.Row(name, strconv.FormatInt(unit, 10), strconv.FormatInt(int64(be.Uint64(u)), 10),
					strconv.Itoa(int(size)), fmt.Sprintf("%d (%s)", tags, tagOf(tags)),
					hex.EncodeToString(u[:8])+" "+hex.EncodeToString(u[8:12])+" "+hex.EncodeToString(u[12:]))
			}
		}
	}
	t.Render()
}

// tagOf names the tag a tagsCode is the hash of, among the chapter's tags.
func tagOf(code int64) string {
	for _, tag := range []string{"TagA", "TagB"} {
		if primitive.TagsString2TagsCode(tag) == code {
			return tag
		}
	}
	return "?"
}

// indexKeys is every index key the chapter's messages carry ("TopicTest#key"), so a table can
// name the key behind a hash.
func indexKeys() map[int32][]string {
	out := map[int32][]string{}
	add := func(k string) {
		key := topicName + "#" + k
		h := store.IndexKeyHash(key)
		for _, have := range out[h] {
			if have == key {
				return
			}
		}
		out[h] = append(out[h], key)
	}
	for _, s := range samples {
		add(s.uniq)
		for _, k := range strings.Fields(s.keys) {
			add(k)
		}
	}
	return out
}

// printIndexFiles prints each index file: its header, its non-empty slots and its entries
// (store-formats.md §4).
func printIndexFiles(w io.Writer, root string) {
	entries, err := os.ReadDir(filepath.Join(root, "index"))
	if err != nil {
		return
	}
	keys := indexKeys()
	const slots = 8
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, "index", e.Name()))
		if err != nil || len(data) < store.IndexHeaderSize {
			continue
		}
		begin := int64(be.Uint64(data[0:]))
		mqtest.Say(w, "index/%s: beginTimestamp=%s endTimestamp=%s beginPhyOffset=%d endPhyOffset=%d hashSlotCount=%d indexCount=%d",
			e.Name(), utc(begin), utc(int64(be.Uint64(data[8:]))), be.Uint64(data[16:]), be.Uint64(data[24:]),
			be.Uint32(data[32:]), be.Uint32(data[36:]))
		t := mqtest.NewTable(w, "slot", "newest entry")
		for s := 0; s < slots; s++ {
			if v := be.Uint32(data[store.IndexHeaderSize+s*store.IndexHashSlotSize:]); v != 0 {
				t.Row(strconv.Itoa(s), strconv.Itoa(int(v)))
			}
		}
		t.Render()
		t = mqtest.NewTable(w, "entry", "keyHash", "key", "slot", "phyOffset", "timeDiff s", "prevIndex")
		count := int(be.Uint32(data[36:]))
		for n := 1; n < count; n++ {
			p := store.IndexHeaderSize + slots*store.IndexHashSlotSize + n*store.IndexEntrySize
			h := int32(be.Uint32(data[p:]))
			t.Row(strconv.Itoa(n), strconv.Itoa(int(h)), strings.Join(keys[h], " | "), strconv.Itoa(int(h)%slots),
				strconv.FormatInt(int64(be.Uint64(data[p+4:])), 10), strconv.Itoa(int(be.Uint32(data[p+12:]))),
				strconv.Itoa(int(be.Uint32(data[p+16:]))))
		}
		t.Render()
	}
}

func utc(ms int64) string {
	if ms == 0 {
		return "0"
	}
	return time.UnixMilli(ms).UTC().Format("15:04:05.000")
}

// printQueueState prints the CommitLog's bounds and each queue's min and max offsets.
func printQueueState(w io.Writer, b *broker.BrokerController) {
	ms := b.MessageStore()
	t := mqtest.NewTable(w, "", "min offset", "max offset")
	t.Row("CommitLog (bytes)", strconv.FormatInt(int64(ms.GetMinPhyOffset()), 10), strconv.FormatInt(int64(ms.GetMaxPhyOffset()), 10))
	for q := int32(0); q < 2; q++ {
		t.Row(fmt.Sprintf("%s/%d (units)", topicName, q), strconv.FormatInt(int64(ms.GetMinOffsetInQueue(topicName, q)), 10),
			strconv.FormatInt(int64(ms.GetMaxOffsetInQueue(topicName, q)), 10))
	}
	files := ms.IndexService().IndexFiles()
	entries := 0
	for _, f := range files {
		entries += int(f.IndexCount()) - 1
	}
	t.Row(fmt.Sprintf("index (%d files)", len(files)), "", fmt.Sprintf("%d entries", entries))
	t.Render()
}

// printStoredOnce counts, on each broker, the messages the index finds for key.
func printStoredOnce(w io.Writer, bs []*broker.BrokerController, key string) {
	t := mqtest.NewTable(w, "broker", "messages with key "+key)
	total := 0
	for _, b := range bs {
		n := len(b.MessageStore().QueryMessage(topicName, key, 32, 0, 1<<62).Messages)
		total += n
		t.Row(b.BrokerConfig().BrokerName, strconv.Itoa(n))
	}
	t.Row("total", strconv.Itoa(total))
	t.Render()
}
