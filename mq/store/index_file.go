package store

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unicode/utf8"
)

// IndexFile layout constants (store-formats.md §4), pinned by TestIndexConstants.
const (
	// IndexHeaderSize is the header: beginTimestamp 8, endTimestamp 8, beginPhyOffset 8,
	// endPhyOffset 8, hashSlotCount 4, indexCount 4.
	IndexHeaderSize = 40
	// IndexHashSlotSize is one slot: the number of the newest entry of that slot (0 = empty).
	IndexHashSlotSize = 4
	// IndexEntrySize is one entry: keyHash 4, phyOffset 8, timeDiff 4 (seconds), prevIndex 4.
	IndexEntrySize = 20
)

// Header field positions. Java: IndexHeader (beginTimestampIndex ... indexCountIndex).
const (
	idxBeginTimestamp = 0
	idxEndTimestamp   = 8
	idxBeginPhyOffset = 16
	idxEndPhyOffset   = 24
	idxHashSlotCount  = 32
	idxIndexCount     = 36
)

// indexAllocChunk is how much of a sparse index file is allocated at once (64 KiB): a
// write into an unallocated page of a full disk would raise SIGBUS, so each range is
// fallocated before its first write.
const indexAllocChunk = 64 * 1024

// IndexFile is one index file under index/, named by its creation time (yyyyMMddHHmmssSSS):
//
//	+-----------+---------------------------------+------------------------------------+
//	| header 40 | maxHashSlotNum slots × 4 bytes  | maxIndexNum entries × 20 bytes     |
//	+-----------+---------------------------------+------------------------------------+
//	0           40                                40 + slots·4
//
// A slot holds the number of the newest entry whose key hashes to it; each entry holds
// keyHash 4, phyOffset 8 (CommitLog bytes), timeDiff 4 (seconds since beginTimestamp) and
// prevIndex 4 (the slot's previous entry: a chain, newest first). Entry 0 is never used, so
// indexCount (the next entry number) starts at 1. Big-endian throughout.
//
// The reput goroutine is the only writer (putKey); readers (selectPhyOffset) run concurrently.
// The header lives in atomics and is written through to the mapping at every change, as
// Java's IndexHeader setters do; a writer fills an entry and its slot before it publishes the
// new indexCount, and readers load indexCount first and follow only entries below it.
//
// The file is created sparse (its full length, no blocks) and allocated in 64 KiB chunks as
// they are first written, so an index of 420 MB costs disk only for what it holds.
//
// Mirrors org.apache.rocketmq.store.index.IndexFile and IndexHeader.
type IndexFile struct {
	mf          *MappedFile
	hashSlotNum int
	indexNum    int

	beginTimestamp atomic.Int64 // ms
	endTimestamp   atomic.Int64 // ms
	beginPhyOffset atomic.Int64 // CommitLog bytes
	endPhyOffset   atomic.Int64 // CommitLog bytes
	hashSlotCount  atomic.Int32
	indexCount     atomic.Int32 // next entry number, >= 1

	chunks  []uint64 // bitmap of allocated chunks (writer only)
	noAlloc bool     // the file system cannot fallocate: accept a sparse file
}

// indexFileSize is 40 + slots·4 + entries·20 bytes.
func indexFileSize(hashSlotNum, indexNum int) int {
	return IndexHeaderSize + hashSlotNum*IndexHashSlotSize + indexNum*IndexEntrySize
}

// newIndexFile opens or creates the index file at path. A new file that follows a full one
// starts with that file's end offset and end time as its begin and end (endPhyOffset,
// endTimestamp > 0). An existing file must have the size the slot and entry counts give
// (ErrFileSize). Java: IndexFile#IndexFile.
func newIndexFile(path string, hashSlotNum, indexNum int, endPhyOffset CommitLogOffset, endTimestamp int64) (*IndexFile, error) {
	size := indexFileSize(hashSlotNum, indexNum)
	mf, err := openMappedFile(path, size, 0, true)
	if err != nil {
		return nil, err
	}
	f := &IndexFile{mf: mf, hashSlotNum: hashSlotNum, indexNum: indexNum,
		chunks: make([]uint64, (size+indexAllocChunk-1)/indexAllocChunk/64+1)}
	f.indexCount.Store(1)
	if endPhyOffset > 0 || endTimestamp > 0 {
		if err := f.ensureAllocated(0, IndexHeaderSize); err != nil {
			mf.shutdown()
			return nil, err
		}
	}
	if endPhyOffset > 0 {
		f.setBeginPhyOffset(endPhyOffset)
		f.setEndPhyOffset(endPhyOffset)
	}
	if endTimestamp > 0 {
		f.setBeginTimestamp(endTimestamp)
		f.setEndTimestamp(endTimestamp)
	}
	return f, nil
}

// load reads the header of an existing file (an indexCount of 0 or less reads as 1; one
// above maxIndexNum, only possible in a damaged file, as maxIndexNum, so no entry number read
// from the file can point outside it). Java: IndexFile#load → IndexHeader#load.
func (f *IndexFile) load() {
	be := binary.BigEndian
	d := f.mf.data
	f.beginTimestamp.Store(int64(be.Uint64(d[idxBeginTimestamp:])))
	f.endTimestamp.Store(int64(be.Uint64(d[idxEndTimestamp:])))
	f.beginPhyOffset.Store(int64(be.Uint64(d[idxBeginPhyOffset:])))
	f.endPhyOffset.Store(int64(be.Uint64(d[idxEndPhyOffset:])))
	f.hashSlotCount.Store(int32(be.Uint32(d[idxHashSlotCount:])))
	n := int32(be.Uint32(d[idxIndexCount:]))
	f.indexCount.Store(min(max(n, 1), int32(f.indexNum)))
}

// FileName is the file's name (its creation time, yyyyMMddHHmmssSSS).
func (f *IndexFile) FileName() string { return f.mf.name }

// BeginTimestamp, EndTimestamp (ms), BeginPhyOffset, EndPhyOffset (CommitLog bytes),
// HashSlotCount and IndexCount are the header's values.
func (f *IndexFile) BeginTimestamp() int64           { return f.beginTimestamp.Load() }
func (f *IndexFile) EndTimestamp() int64             { return f.endTimestamp.Load() }
func (f *IndexFile) BeginPhyOffset() CommitLogOffset { return CommitLogOffset(f.beginPhyOffset.Load()) }
func (f *IndexFile) EndPhyOffset() CommitLogOffset   { return CommitLogOffset(f.endPhyOffset.Load()) }
func (f *IndexFile) HashSlotCount() int32            { return f.hashSlotCount.Load() }
func (f *IndexFile) IndexCount() int32               { return f.indexCount.Load() }

func (f *IndexFile) putHeader64(pos int, v int64) {
	binary.BigEndian.PutUint64(f.mf.data[pos:], uint64(v))
}

func (f *IndexFile) setBeginTimestamp(v int64) {
	f.beginTimestamp.Store(v)
	f.putHeader64(idxBeginTimestamp, v)
}
func (f *IndexFile) setEndTimestamp(v int64) {
	f.endTimestamp.Store(v)
	f.putHeader64(idxEndTimestamp, v)
}
func (f *IndexFile) setBeginPhyOffset(v CommitLogOffset) {
	f.beginPhyOffset.Store(int64(v))
	f.putHeader64(idxBeginPhyOffset, int64(v))
}
func (f *IndexFile) setEndPhyOffset(v CommitLogOffset) {
	f.endPhyOffset.Store(int64(v))
	f.putHeader64(idxEndPhyOffset, int64(v))
}

// IsWriteFull reports indexCount >= maxIndexNum. Java: IndexFile#isWriteFull.
func (f *IndexFile) IsWriteFull() bool { return int(f.indexCount.Load()) >= f.indexNum }

// ensureAllocated allocates the chunks covering [off, off+n) that are not yet.
func (f *IndexFile) ensureAllocated(off, n int) error {
	if f.noAlloc {
		return nil
	}
	for c := off / indexAllocChunk; c <= (off+n-1)/indexAllocChunk; c++ {
		if f.chunks[c/64]&(1<<(c%64)) != 0 {
			continue
		}
		start := int64(c) * indexAllocChunk
		length := min(int64(indexAllocChunk), int64(f.mf.fileSize)-start)
		ok, err := allocateRange(f.mf.fd, start, length)
		if err != nil {
			return fmt.Errorf("store: allocate index file %s at %d: %w", f.mf.name, start, err)
		}
		if !ok {
			f.noAlloc = true
			return nil
		}
		f.chunks[c/64] |= 1 << (c % 64)
	}
	return nil
}

// slotPos is the byte position of keyHash's slot.
func (f *IndexFile) slotPos(keyHash int32) int {
	return IndexHeaderSize + int(keyHash)%f.hashSlotNum*IndexHashSlotSize
}

// entryPos is the byte position of entry number n.
func (f *IndexFile) entryPos(n int32) int {
	return IndexHeaderSize + f.hashSlotNum*IndexHashSlotSize + int(n)*IndexEntrySize
}

// putKey appends an entry for keyHash (IndexKeyHash of "topic#key") pointing at the record
// at phyOffset stored at storeTimestamp (ms), and makes it the head of its slot's chain.
// false when the file is full (the caller rolls to a new file) or its disk space cannot be
// allocated (err set). Java: IndexFile#putKey.
func (f *IndexFile) putKey(keyHash int32, phyOffset CommitLogOffset, storeTimestamp int64) (bool, error) {
	count := f.indexCount.Load()
	if int(count) >= f.indexNum {
		return false, nil
	}
	be := binary.BigEndian
	d := f.mf.data
	slot := f.slotPos(keyHash)
	entry := f.entryPos(count)
	if err := f.ensureAllocated(slot, IndexHashSlotSize); err != nil {
		return false, err
	}
	if err := f.ensureAllocated(entry, IndexEntrySize); err != nil {
		return false, err
	}
	if err := f.ensureAllocated(0, IndexHeaderSize); err != nil {
		return false, err
	}
	slotValue := int32(be.Uint32(d[slot:]))
	if slotValue <= 0 || slotValue > count {
		slotValue = 0
	}
	var timeDiff int64
	if begin := f.beginTimestamp.Load(); begin > 0 {
		timeDiff = min(max((storeTimestamp-begin)/1000, 0), 1<<31-1)
	}
	be.PutUint32(d[entry:], uint32(keyHash))
	be.PutUint64(d[entry+4:], uint64(phyOffset))
	be.PutUint32(d[entry+12:], uint32(timeDiff))
	be.PutUint32(d[entry+16:], uint32(slotValue))
	be.PutUint32(d[slot:], uint32(count))
	// Java sets the begin values while the count is still at most 1 — after the first entry's
	// timeDiff was computed against the previous begin; we keep that order, bytes included.
	if count <= 1 {
		f.setBeginPhyOffset(phyOffset)
		f.setBeginTimestamp(storeTimestamp)
	}
	if slotValue == 0 {
		be.PutUint32(d[idxHashSlotCount:], uint32(f.hashSlotCount.Add(1)))
	}
	be.PutUint32(d[idxIndexCount:], uint32(count+1))
	f.indexCount.Store(count + 1) // publishes the entry and slot
	f.setEndPhyOffset(phyOffset)
	f.setEndTimestamp(storeTimestamp)
	return true, nil
}

// isTimeMatched reports whether [begin, end] (ms) overlaps the file's time range.
// Java: IndexFile#isTimeMatched.
func (f *IndexFile) isTimeMatched(begin, end int64) bool {
	b, e := f.beginTimestamp.Load(), f.endTimestamp.Load()
	return (begin < b && end > e) || (begin >= b && begin <= e) || (end >= b && end <= e)
}

// selectPhyOffset walks keyHash's chain from the newest entry and appends to phyOffsets the
// offset of each entry with that hash stored within [begin, end] (ms), up to maxNum in all.
// It stops at the chain's end, a broken link, or an entry older than begin. keep, when not
// nil, decides whether an entry with the hash is appended (and counts toward maxNum): the
// store's query passes the check that the record's topic and key are the ones asked, since
// two topic#key strings can share a hash. Java: IndexFile#selectPhyOffset (which returns hash
// collisions and leaves the check to the clients).
func (f *IndexFile) selectPhyOffset(phyOffsets []CommitLogOffset, keyHash int32, maxNum int, begin, end int64,
	keep func(CommitLogOffset) bool) []CommitLogOffset {
	count := f.indexCount.Load() // entries below count are complete
	if !f.mf.hold() {
		return phyOffsets
	}
	defer f.mf.release()
	be := binary.BigEndian
	d := f.mf.data
	slotValue := int32(be.Uint32(d[f.slotPos(keyHash):]))
	// Java tests slotValue > indexCount; an entry numbered indexCount may still be being
	// written, so with the count loaded first ">=" is the safe bound (the same outcome on a
	// quiet file, where a slot is always below the count).
	if slotValue <= 0 || slotValue >= count || count <= 1 {
		return phyOffsets
	}
	fileBegin := f.beginTimestamp.Load()
	for next := slotValue; len(phyOffsets) < maxNum; {
		p := f.entryPos(next)
		hashRead := int32(be.Uint32(d[p:]))
		phyRead := CommitLogOffset(be.Uint64(d[p+4:]))
		timeDiff := int64(int32(be.Uint32(d[p+12:])))
		prev := int32(be.Uint32(d[p+16:]))
		if timeDiff < 0 {
			break
		}
		timeRead := fileBegin + timeDiff*1000
		if hashRead == keyHash && timeRead >= begin && timeRead <= end && (keep == nil || keep(phyRead)) {
			phyOffsets = append(phyOffsets, phyRead)
		}
		// Java stops at prev == next; a chain always goes back to older entries, so stopping at
		// any link that does not (prev >= next) also ends a loop in a damaged file.
		if prev <= 0 || prev >= next || timeRead < begin {
			break
		}
		next = prev
	}
	return phyOffsets
}

// flush writes the whole header and forces the file to disk. Java: IndexFile#flush.
func (f *IndexFile) flush() error {
	if !f.mf.hold() {
		return nil
	}
	defer f.mf.release()
	be := binary.BigEndian
	d := f.mf.data
	if err := f.ensureAllocated(0, IndexHeaderSize); err != nil {
		return err
	}
	be.PutUint64(d[idxBeginTimestamp:], uint64(f.beginTimestamp.Load()))
	be.PutUint64(d[idxEndTimestamp:], uint64(f.endTimestamp.Load()))
	be.PutUint64(d[idxBeginPhyOffset:], uint64(f.beginPhyOffset.Load()))
	be.PutUint64(d[idxEndPhyOffset:], uint64(f.endPhyOffset.Load()))
	be.PutUint32(d[idxHashSlotCount:], uint32(f.hashSlotCount.Load()))
	be.PutUint32(d[idxIndexCount:], uint32(f.indexCount.Load()))
	f.mf.hooks.beforeFlush(f.mf.relName)
	if err := flushRange(f.mf.fd, d, 0, f.mf.fileSize, false); err != nil {
		return fmt.Errorf("store: flush index file %s: %w", f.mf.name, err)
	}
	f.mf.hooks.flushed(f.mf.relName, f.mf.fileSize)
	return nil
}

// IndexKeyHash is the non-negative hash of an index key ("topic#key"): |Java
// String#hashCode| over its UTF-16 code units, with Integer.MIN_VALUE mapped to 0. Its slot
// is IndexKeyHash(key) % maxHashSlotNum. Java: IndexFile#indexKeyHashMethod.
func IndexKeyHash(key string) int32 { return positiveHash(javaHashString(0, key)) }

// indexKeyHash hashes topic + "#" + key without building the string.
func indexKeyHash(topic string, key []byte) int32 {
	h := javaHashString(0, topic)
	h = 31*h + '#'
	return positiveHash(javaHashBytes(h, key))
}

func positiveHash(h int32) int32 {
	if h < 0 {
		h = -h // Integer.MIN_VALUE stays negative, as Math.abs leaves it
	}
	if h < 0 {
		return 0
	}
	return h
}

// javaHashString continues Java's String#hashCode (h = 31·h + c over UTF-16 code units) from h.
func javaHashString(h int32, s string) int32 {
	for _, r := range s {
		h = javaHashRune(h, r)
	}
	return h
}

// javaHashBytes is javaHashString over UTF-8 bytes.
func javaHashBytes(h int32, b []byte) int32 {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		i += n
		h = javaHashRune(h, r)
	}
	return h
}

func javaHashRune(h int32, r rune) int32 {
	if r > 0xFFFF {
		r -= 0x10000
		h = 31*h + int32(0xD800+(r>>10))
		return 31*h + int32(0xDC00+(r&0x3FF))
	}
	return 31*h + int32(r)
}
