package command

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// dumpStore prints a store's files as they are on disk, field by field: a learner's command
// beyond RocketMQ's. It opens every file read-only and never writes, so it may run while the
// broker runs (it then sees what the page cache holds, the tail possibly mid-write).
// Layouts: docs/reference/store-formats.md §2 (CommitLog records), §3 (ConsumeQueue units),
// §4 (IndexFile header, slots and entries), §5 (checkpoint).
var dumpStoreCmd = &SubCommand{
	Name:      "dumpStore",
	Desc:      "Print a store's CommitLog records, ConsumeQueue units, index slots and entries and checkpoint, read-only",
	noNamesrv: true,
}

// dumpOpts are dumpStore's options.
type dumpOpts struct {
	root, part, topic string
	limit             int
	slots, entries    int64 // 0: detect
}

func init() {
	var d, p, t *string
	var c, s, i *int64
	dumpStoreCmd.options = func(o *Options) {
		d = o.Str("d", "storeDir", "the store root (storePathRootDir), e.g. ~/store", true, "")
		p = o.Str("p", "part", "what to print: all, commitlog, consumequeue, index or checkpoint", false, "all")
		t = o.Str("t", "topic", "print only this topic's ConsumeQueues", false, "")
		c = o.Num("c", "count", "at most this many records, units or entries per file (0: all)", false, 20)
		s = o.Num("S", "maxHashSlotNum", "hash slots of an index file (default: detected from its size)", false, 0)
		i = o.Num("I", "maxIndexNum", "entries of an index file (default: detected from its size)", false, 0)
	}
	dumpStoreCmd.run = func(r *Run) error {
		o := dumpOpts{root: strings.TrimSpace(*d), part: strings.TrimSpace(*p), topic: strings.TrimSpace(*t),
			limit: int(*c), slots: *s, entries: *i}
		if st, err := os.Stat(o.root); err != nil || !st.IsDir() {
			return fmt.Errorf("no store directory at %s", o.root)
		}
		parts := map[string]func(*Run, dumpOpts) error{"checkpoint": dumpCheckpoint, "commitlog": dumpCommitLog,
			"consumequeue": dumpConsumeQueues, "index": dumpIndexFiles}
		if o.part == "all" {
			for _, name := range []string{"checkpoint", "commitlog", "consumequeue", "index"} {
				if err := parts[name](r, o); err != nil {
					return err
				}
			}
			return nil
		}
		f, ok := parts[o.part]
		if !ok {
			return usageError("-p %q: want all, commitlog, consumequeue, index or checkpoint", o.part)
		}
		return f(r, o)
	}
}

// storeFile is one file opened read-only.
type storeFile struct {
	f    *os.File
	rel  string
	size int64
}

func openStoreFile(root, rel string) (*storeFile, error) {
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &storeFile{f: f, rel: filepath.ToSlash(rel), size: st.Size()}, nil
}

// read returns n bytes at off (fewer at the end of the file).
func (s *storeFile) read(off int64, n int) ([]byte, error) {
	if off >= s.size {
		return nil, nil
	}
	b := make([]byte, min(int64(n), s.size-off))
	if _, err := s.f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// numbered lists the files of dir (relative to root) named by 20-digit offsets, in order.
func numbered(root, dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

var be = binary.BigEndian

// dumpCheckpoint prints the three timestamps of the checkpoint file (§5).
func dumpCheckpoint(r *Run, o dumpOpts) error {
	f, err := openStoreFile(o.root, "checkpoint")
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(r.Out, "== checkpoint: none ==")
		return nil
	}
	if err != nil {
		return err
	}
	defer f.f.Close()
	b, err := f.read(0, 24)
	if err != nil {
		return err
	}
	if len(b) < 24 {
		return fmt.Errorf("checkpoint: %d bytes, want at least 24", len(b))
	}
	fmt.Fprintf(r.Out, "== checkpoint (%d bytes) ==\n", f.size)
	tbl := table(r.Out, "#Pos", "#Size", "#Field", "#Value", "#Time")
	for i, name := range []string{"physicMsgTimestamp", "logicsMsgTimestamp", "indexMsgTimestamp"} {
		v := int64(be.Uint64(b[i*8:]))
		row(tbl, i*8, 8, name, v, admin.HumanTime(v))
	}
	return tbl.Render()
}

// dumpCommitLog prints each CommitLog file's records field by field (§2.1), up to the first
// unwritten (zero) size, a BLANK record (the file's end) or bytes that are no record.
func dumpCommitLog(r *Run, o dumpOpts) error {
	files, err := numbered(o.root, "commitlog")
	if err != nil {
		return err
	}
	for _, rel := range files {
		if err := dumpCommitLogFile(r, o, rel); err != nil {
			return err
		}
	}
	return nil
}

func dumpCommitLogFile(r *Run, o dumpOpts, rel string) error {
	f, err := openStoreFile(o.root, rel)
	if err != nil {
		return err
	}
	defer f.f.Close()
	base, _ := strconv.ParseInt(filepath.Base(rel), 10, 64)
	fmt.Fprintf(r.Out, "== CommitLog %s (%d bytes, CommitLog offsets %d..%d) ==\n", f.rel, f.size, base, base+f.size)
	for pos, n := int64(0), 0; pos+8 <= f.size; n++ {
		head, err := f.read(pos, 8)
		if err != nil {
			return err
		}
		total, magic := int32(be.Uint32(head)), be.Uint32(head[4:])
		switch {
		case total == 0 && magic == 0:
			fmt.Fprintf(r.Out, "end of data at file position %d (CommitLog offset %d)\n", pos, base+pos)
			return nil
		case magic == primitive.BlankMagicCode:
			fmt.Fprintf(r.Out, "BLANK record at file position %d: TOTALSIZE %d, MAGICCODE 0x%08X (the rest of the file is unused)\n", pos, total, magic)
			return nil
		case magic != primitive.MessageMagicCode || total < primitive.MinRecordSize || pos+int64(total) > f.size:
			fmt.Fprintf(r.Out, "no record at file position %d: TOTALSIZE %d, MAGICCODE 0x%08X\n", pos, total, magic)
			return nil
		}
		if o.limit > 0 && n >= o.limit {
			fmt.Fprintf(r.Out, "... more records from file position %d (-c %d)\n", pos, o.limit)
			return nil
		}
		rec, err := f.read(pos, int(total))
		if err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "record %d at file position %d (CommitLog offset %d)\n", n, pos, base+pos)
		if err := recordTable(r.Out, rec).Render(); err != nil {
			return err
		}
		pos += int64(total)
	}
	return nil
}

// recordField is one field of a record: its name, position and size in the record.
type recordField struct {
	name      string
	pos, size int
}

// recordFields lays out the fields of rec (a whole MESSAGE record) as §2.1 describes, the
// host lengths following SYSFLAG; a field running past the record is cut at its end.
func recordFields(rec []byte) []recordField {
	sysFlag := int32(be.Uint32(rec[36:]))
	bornHost, storeHost := 8, 8
	if sysFlag&primitive.BornHostV6Flag != 0 {
		bornHost = 20
	}
	if sysFlag&primitive.StoreHostAddressV6Flag != 0 {
		storeHost = 20
	}
	var out []recordField
	pos := 0
	add := func(name string, size int) {
		size = max(0, min(size, len(rec)-pos))
		out = append(out, recordField{name, pos, size})
		pos += size
	}
	for _, f := range []struct {
		name string
		size int
	}{{"TOTALSIZE", 4}, {"MAGICCODE", 4}, {"BODYCRC", 4}, {"QUEUEID", 4}, {"FLAG", 4}, {"QUEUEOFFSET", 8},
		{"PHYSICALOFFSET", 8}, {"SYSFLAG", 4}, {"BORNTIMESTAMP", 8}, {"BORNHOST", bornHost}, {"STORETIMESTAMP", 8},
		{"STOREHOSTADDRESS", storeHost}, {"RECONSUMETIMES", 4}, {"PREPAREDTRANSACTIONOFFSET", 8}, {"BODYLENGTH", 4}} {
		add(f.name, f.size)
	}
	add("BODY", int(int32(be.Uint32(rec[pos-4:]))))
	add("TOPICLENGTH", 1)
	if pos > 0 && pos <= len(rec) {
		add("TOPIC", int(rec[pos-1]))
	}
	add("PROPERTIESLENGTH", 2)
	if pos >= 2 && pos <= len(rec) {
		add("PROPERTIES", int(int16(be.Uint16(rec[pos-2:]))))
	}
	return out
}

// fieldValue renders one field's bytes.
func fieldValue(name string, b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case name == "MAGICCODE":
		return fmt.Sprintf("0x%08X (MESSAGE)", be.Uint32(b))
	case name == "BORNHOST" || name == "STOREHOSTADDRESS":
		return primitive.HostString(b)
	case name == "BORNTIMESTAMP" || name == "STORETIMESTAMP":
		v := int64(be.Uint64(b))
		return fmt.Sprintf("%d (%s)", v, admin.HumanTime(v))
	case name == "SYSFLAG":
		return fmt.Sprintf("%d (0x%X)", int32(be.Uint32(b)), be.Uint32(b))
	case name == "BODY" || name == "TOPIC":
		return printable(b)
	case name == "PROPERTIES":
		return admin.PropertiesString(primitive.UnmarshalProperties(string(b)))
	case len(b) == 1:
		return strconv.Itoa(int(b[0]))
	case len(b) == 2:
		return strconv.Itoa(int(int16(be.Uint16(b))))
	case len(b) == 4:
		return strconv.Itoa(int(int32(be.Uint32(b))))
	case len(b) == 8:
		return strconv.FormatInt(int64(be.Uint64(b)), 10)
	}
	return fmt.Sprintf("%X", b)
}

// printable is b as text when it is printable UTF-8 (at most 64 bytes shown), else hex.
func printable(b []byte) string {
	s := string(b)
	cut := ""
	if len(s) > 64 {
		s, cut = s[:64], fmt.Sprintf("... (%d bytes)", len(b))
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7F || c == 0xFFFD {
			return fmt.Sprintf("%X%s", b[:min(len(b), 32)], cut)
		}
	}
	return s + cut
}

func recordTable(w io.Writer, rec []byte) interface{ Render() error } {
	tbl := table(w, "#Pos", "#Size", "#Field", "#Value")
	for _, f := range recordFields(rec) {
		row(tbl, f.pos, f.size, f.name, fieldValue(f.name, rec[f.pos:f.pos+f.size]))
	}
	return tbl
}

// dumpConsumeQueues prints the units of every ConsumeQueue file (§3.1), up to the first
// unwritten unit.
func dumpConsumeQueues(r *Run, o dumpOpts) error {
	topics, err := os.ReadDir(filepath.Join(o.root, "consumequeue"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, t := range topics {
		if !t.IsDir() || o.topic != "" && t.Name() != o.topic {
			continue
		}
		queues, err := os.ReadDir(filepath.Join(o.root, "consumequeue", t.Name()))
		if err != nil {
			return err
		}
		slices.SortFunc(queues, func(a, b os.DirEntry) int { return cmpNumeric(a.Name(), b.Name()) })
		for _, q := range queues {
			files, err := numbered(o.root, filepath.Join("consumequeue", t.Name(), q.Name()))
			if err != nil {
				return err
			}
			for _, rel := range files {
				if err := dumpConsumeQueueFile(r, o, rel); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func cmpNumeric(a, b string) int {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x - y
}

func dumpConsumeQueueFile(r *Run, o dumpOpts, rel string) error {
	f, err := openStoreFile(o.root, rel)
	if err != nil {
		return err
	}
	defer f.f.Close()
	base, _ := strconv.ParseInt(filepath.Base(rel), 10, 64)
	fmt.Fprintf(r.Out, "== ConsumeQueue %s (%d bytes, units %d..%d) ==\n", f.rel, f.size, base/20, (base+f.size)/20)
	tbl := table(r.Out, "#Unit", "#Pos", "#CommitLog Offset", "#Size", "#Tags Code")
	shown := 0
	for pos := int64(0); pos+20 <= f.size; pos += 20 {
		u, err := f.read(pos, 20)
		if err != nil {
			return err
		}
		off, size, tags := int64(be.Uint64(u)), int32(be.Uint32(u[8:])), int64(be.Uint64(u[12:]))
		if off == 0 && size == 0 && tags == 0 {
			break // not written yet
		}
		if o.limit > 0 && shown >= o.limit {
			row(tbl, "...", "", "", "", "")
			break
		}
		row(tbl, (base+pos)/20, pos, off, size, tags)
		shown++
	}
	return tbl.Render()
}

// indexGeometry is an index file's slot and entry counts: the -S/-I options, or the pair
// that fits the file's size (40 + 4·slots + 20·entries): RocketMQ's 5,000,000/20,000,000,
// the chapters' 64/200, or slots with four entries each.
func indexGeometry(o dumpOpts, size int64) (slots, entries int64, err error) {
	fits := func(s, e int64) bool { return s > 0 && e > 0 && 40+4*s+20*e == size }
	if o.slots > 0 || o.entries > 0 {
		if fits(o.slots, o.entries) {
			return o.slots, o.entries, nil
		}
		return 0, 0, fmt.Errorf("index file of %d bytes does not hold -S %d slots and -I %d entries", size, o.slots, o.entries)
	}
	for _, c := range [][2]int64{{5000000, 20000000}, {64, 200}, {(size - 40) / 84, (size - 40) / 84 * 4}} {
		if fits(c[0], c[1]) {
			return c[0], c[1], nil
		}
	}
	return 0, 0, fmt.Errorf("index file of %d bytes: give its maxHashSlotNum and maxIndexNum with -S and -I", size)
}

// dumpIndexFiles prints each index file's header (§4.2), its non-empty slots and its entries
// (§4.3).
func dumpIndexFiles(r *Run, o dumpOpts) error {
	ents, err := os.ReadDir(filepath.Join(o.root, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if err := dumpIndexFile(r, o, filepath.Join("index", e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func dumpIndexFile(r *Run, o dumpOpts, rel string) error {
	f, err := openStoreFile(o.root, rel)
	if err != nil {
		return err
	}
	defer f.f.Close()
	slots, entries, err := indexGeometry(o, f.size)
	if err != nil {
		return fmt.Errorf("%s: %w", f.rel, err)
	}
	h, err := f.read(0, 40)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "== IndexFile %s (%d bytes: %d slots, %d entries) ==\n", f.rel, f.size, slots, entries)
	hdr := table(r.Out, "#Pos", "#Size", "#Field", "#Value")
	for _, fl := range []struct {
		name      string
		pos, size int
	}{{"beginTimestamp", 0, 8}, {"endTimestamp", 8, 8}, {"beginPhyOffset", 16, 8}, {"endPhyOffset", 24, 8},
		{"hashSlotCount", 32, 4}, {"indexCount", 36, 4}} {
		v := fieldValue("", h[fl.pos:fl.pos+fl.size])
		if strings.HasSuffix(fl.name, "Timestamp") {
			v = fieldValue("STORETIMESTAMP", h[fl.pos:fl.pos+fl.size])
		}
		row(hdr, fl.pos, fl.size, fl.name, v)
	}
	if err := hdr.Render(); err != nil {
		return err
	}
	count := int64(max(int32(be.Uint32(h[36:])), 1))

	st := table(r.Out, "#Slot", "#Pos", "#Newest Entry")
	shown := 0
	const chunk = 64 << 10
	for start := int64(0); start < slots*4 && (o.limit <= 0 || shown < o.limit); start += chunk {
		b, err := f.read(40+start, int(min(chunk, slots*4-start)))
		if err != nil {
			return err
		}
		for i := 0; i+4 <= len(b); i += 4 {
			if v := int32(be.Uint32(b[i:])); v != 0 {
				if o.limit > 0 && shown >= o.limit {
					row(st, "...", "", "")
					break
				}
				slot := (start + int64(i)) / 4
				row(st, slot, 40+slot*4, v)
				shown++
			}
		}
	}
	if err := st.Render(); err != nil {
		return err
	}

	et := table(r.Out, "#Entry", "#Pos", "#Key Hash", "#Slot", "#Phy Offset", "#Time Diff (s)", "#Prev Entry")
	for n := int64(1); n < count && n < entries; n++ {
		if o.limit > 0 && n > int64(o.limit) {
			row(et, "...", "", "", "", "", "", "")
			break
		}
		pos := 40 + slots*4 + n*20
		e, err := f.read(pos, 20)
		if err != nil {
			return err
		}
		if len(e) < 20 {
			break
		}
		hash := int32(be.Uint32(e))
		row(et, n, pos, hash, int64(hash)%slots, int64(be.Uint64(e[4:])), int32(be.Uint32(e[12:])), int32(be.Uint32(e[16:])))
	}
	return et.Render()
}
