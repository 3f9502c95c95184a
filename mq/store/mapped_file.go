package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// useMsync selects the flush system call: msync(MS_SYNC) of the dirty page range when true,
// fdatasync of the file when false. BenchmarkFlush compares them (docs/benchmarks.md).
var useMsync = false

// osPageSize is RocketMQ's OS_PAGE_SIZE (MappedFile), 4 KiB whatever the kernel's page size:
// the unit of flushLeastPages and commitLeastPages, and the stride of the warm-up.
const osPageSize = 4096

// ErrFileSize is returned when an existing store file does not have the configured size.
var ErrFileSize = errors.New("store: file length does not match the configured size")

// MappedFile is one fixed-size store file (a CommitLog or ConsumeQueue segment) mapped into
// memory. It is created at full size with fallocate, named by the offset of its first byte in
// the whole log (20 digits), and written by one appender at a time.
//
// Positions are int32 byte positions inside the file, published with atomics, and
// flushedPosition ≤ committedPosition ≤ wrotePosition:
//
//   - wrotePosition: the appender wrote up to here (into the mapping, or into the write buffer
//     of a file that took one from the TransientStorePool);
//   - committedPosition: with a write buffer, copied into the file up to here (commit); the
//     read position — readers never see uncommitted bytes. Without one it plays no part;
//   - flushedPosition: forced to disk (fdatasync or msync) up to here.
//
// The appender writes bytes, then advances wrotePosition; readers never read past the read
// position. Readers hold the file (hold/release) while they touch its memory, so destroy
// unmaps only after the last reader is gone.
//
// Mirrors org.apache.rocketmq.store.MappedFile (+ ReferenceResource).
type MappedFile struct {
	path           string
	name           string // 20-digit file name
	relName        string // path relative to the store root, for trace steps
	fileFromOffset int64
	fileSize       int
	f              *os.File
	fd             int
	data           []byte

	wrotePosition     atomic.Int32
	committedPosition atomic.Int32
	flushedPosition   atomic.Int32
	// storeTimestamp is the store time (ms) of the last message appended;
	// committedStoreTimestamp that of the last message committed (write-buffer files).
	storeTimestamp          atomic.Int64
	committedStoreTimestamp atomic.Int64

	// writeBuffer is the TransientStorePool buffer appends go to; nil once the whole file is
	// committed and the buffer went back to pool. usesPool is fixed when the file is
	// created: the read position is then committedPosition.
	writeBuffer atomic.Pointer[[]byte]
	pool        *TransientStorePool
	usesPool    bool
	hooks       *EventListener // BeforeFlush / Flushed
	// firstCreateInQueue is true for a file created when its queue had no files.
	firstCreateInQueue bool

	refCount  atomic.Int64
	available atomic.Bool
	cleaned   atomic.Bool

	tracer *trace.Tracer
}

// offset2FileName formats a start offset as a 20-digit zero-padded decimal.
// Java: UtilAll#offset2FileName.
func offset2FileName(offset int64) string {
	var b [20]byte
	for i := range b {
		b[i] = '0'
	}
	s := strconv.FormatInt(offset, 10)
	copy(b[20-len(s):], s)
	return string(b[:])
}

// tmpSuffix marks a file being created: it gets its final name only once allocated at full
// size, so a crash during creation never leaves a short store file behind.
const tmpSuffix = ".tmp"

// newMappedFile opens path, creating and allocating it at size bytes if it does not exist,
// and maps it. An existing file must be exactly size bytes (ErrFileSize). The file's start
// offset is its name.
func newMappedFile(path string, size int) (*MappedFile, error) {
	name := filepath.Base(path)
	from, err := strconv.ParseInt(name, 10, 64)
	if err != nil || len(name) != 20 || from < 0 {
		return nil, fmt.Errorf("store: %s: file name is not a 20-digit offset", path)
	}
	return openMappedFile(path, size, from, false)
}

// openMappedFile opens or creates (allocated, or sparse when sparse is true) the file at path
// and maps it; from is its start offset. The index files, named by time, use it directly.
func openMappedFile(path string, size int, from int64, sparse bool) (*MappedFile, error) {
	name := filepath.Base(path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		f, err = createAllocated(path, size, sparse)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: stat %s: %w", path, err)
	}
	if st.Size() != int64(size) {
		f.Close()
		return nil, fmt.Errorf("%w: %s is %d bytes, want %d", ErrFileSize, path, st.Size(), size)
	}
	fd := int(f.Fd())
	data, err := mmapFile(fd, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: mmap %s: %w", path, err)
	}
	mf := &MappedFile{path: path, name: name, relName: name, fileFromOffset: from, fileSize: size, f: f, fd: fd, data: data}
	mf.refCount.Store(1)
	mf.available.Store(true)
	return mf, nil
}

// createAllocated creates path at size bytes of allocated disk: written as path.tmp, then
// renamed. A full disk fails here (fallocate: ENOSPC), not later as SIGBUS. With sparse the
// file gets its length only (ftruncate); its owner must allocate each range before writing
// it (IndexFile does, chunk by chunk).
func createAllocated(path string, size int, sparse bool) (*os.File, error) {
	tmp := path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	allocate := allocateFile
	if sparse {
		allocate = truncateFile
	}
	if err := allocate(int(f.Fd()), int64(size)); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("allocate %d bytes: %w", size, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	// Deviation: Java does not sync the directory; without it a power cut may lose the name of
	// a new file whose data a SYNC_FLUSH put already forced to disk.
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("sync directory: %w", err)
	}
	return f, nil
}

// usePool makes the new, empty file take a write buffer from pool; without a free buffer it
// stays a plain mapped file. Java: MappedFile#init(fileName, fileSize, transientStorePool).
func (m *MappedFile) usePool(pool *TransientStorePool) {
	if pool == nil || m.WrotePosition() != 0 {
		return
	}
	if b := pool.borrowBuffer(); b != nil {
		m.pool, m.usesPool = pool, true
		m.writeBuffer.Store(&b)
	}
}

// returnWriteBuffer gives the write buffer back to the pool (once: the file is wholly
// committed, or going away).
func (m *MappedFile) returnWriteBuffer() {
	if b := m.writeBuffer.Swap(nil); b != nil {
		m.pool.returnBuffer(*b)
	}
}

// FileName is the file's 20-digit name.
func (m *MappedFile) FileName() string { return m.name }

// FileFromOffset is the offset of the file's first byte in its whole log (bytes).
func (m *MappedFile) FileFromOffset() int64 { return m.fileFromOffset }

// FileSize is the file's size in bytes.
func (m *MappedFile) FileSize() int { return m.fileSize }

// WrotePosition is the number of bytes written (appends go here). Java: getWrotePosition.
func (m *MappedFile) WrotePosition() int { return int(m.wrotePosition.Load()) }

// ReadPosition is what readers may read up to: the committed position for a file with a
// write buffer, else the write position. Java: MappedFile#getReadPosition.
func (m *MappedFile) ReadPosition() int {
	if m.usesPool {
		return int(m.committedPosition.Load())
	}
	return int(m.wrotePosition.Load())
}

// CommittedPosition is the number of bytes copied from the write buffer into the file; for a
// file without one, the write position. Java: MappedFile#getCommittedPosition.
func (m *MappedFile) CommittedPosition() int {
	if m.usesPool {
		return int(m.committedPosition.Load())
	}
	return int(m.wrotePosition.Load())
}

// UsesWriteBuffer reports whether the file was created with a TransientStorePool buffer.
func (m *MappedFile) UsesWriteBuffer() bool { return m.usesPool }

// FlushedPosition is the number of bytes known to be on disk.
func (m *MappedFile) FlushedPosition() int { return int(m.flushedPosition.Load()) }

// StoreTimestamp is the store time (ms) of the last message appended to this file.
func (m *MappedFile) StoreTimestamp() int64 { return m.storeTimestamp.Load() }

// readStoreTimestamp is the store time of the last message readers can see.
func (m *MappedFile) readStoreTimestamp() int64 {
	if m.usesPool {
		return m.committedStoreTimestamp.Load()
	}
	return m.storeTimestamp.Load()
}

func (m *MappedFile) setPositions(pos int) {
	m.wrotePosition.Store(int32(pos))
	m.committedPosition.Store(int32(pos))
	m.flushedPosition.Store(int32(pos))
}

// IsFull reports whether the write position reached the end of the file. Java: MappedFile#isFull.
func (m *MappedFile) IsFull() bool { return m.WrotePosition() == m.fileSize }

// appendTarget is where appends go: the write buffer, or the mapping.
func (m *MappedFile) appendTarget() []byte {
	if b := m.writeBuffer.Load(); b != nil {
		return *b
	}
	return m.data
}

// appendContext carries what doAppend needs besides the mapped bytes. It is passed by value
// so that nothing on the put path escapes to the heap.
type appendContext struct {
	msg     *msgToAppend
	tracing bool
}

// appendMessagesInner hands the free part of the file to cb and advances the write position
// by the bytes cb reports. The caller holds the put lock (one appender per file).
// Java: MappedFile#appendMessagesInner. (Java's AppendMessageCallback interface has a single
// implementation here, so cb is the concrete type: an interface call would make the put
// path allocate.)
func (m *MappedFile) appendMessagesInner(cb *defaultAppendMessageCallback, ctx appendContext) AppendMessageResult {
	pos := m.WrotePosition()
	if ctx.tracing {
		if m.usesPool {
			m.tracer.Step("MappedFile#appendMessagesInner", slog.String("file", m.relName),
				slog.Int("currentPos", pos), slog.Int("fileSize", m.fileSize), slog.Bool("writeBuffer", true))
		} else {
			m.tracer.Step("MappedFile#appendMessagesInner", slog.String("file", m.relName),
				slog.Int("currentPos", pos), slog.Int("fileSize", m.fileSize))
		}
	}
	if pos >= m.fileSize {
		return AppendMessageResult{Status: AppendUnknownError}
	}
	r := cb.doAppend(m.fileFromOffset, m.appendTarget()[pos:], ctx)
	m.wrotePosition.Store(int32(pos) + r.WroteBytes)
	if r.Status == AppendPutOK {
		// Deviation: Java takes the time of an END_OF_FILE result too, the time of a message
		// that goes to the next file; a flush of this full file would then name, in the
		// checkpoint's physicMsgTimestamp, a message it did not cover (TestPowerCut/POOL).
		m.storeTimestamp.Store(r.StoreTimestamp)
	}
	return r
}

// appendBytes appends b whole at the write position; false if it does not fit.
// Java: MappedFile#appendMessage(byte[]).
func (m *MappedFile) appendBytes(b []byte) bool {
	pos := m.WrotePosition()
	if pos+len(b) > m.fileSize {
		return false
	}
	copy(m.appendTarget()[pos:], b)
	m.wrotePosition.Store(int32(pos + len(b)))
	return true
}

// hold takes a reference so the mapping stays valid; false once the file is being
// destroyed. Java: ReferenceResource#hold.
func (m *MappedFile) hold() bool {
	if m.available.Load() {
		if m.refCount.Add(1) > 1 {
			return true
		}
		m.refCount.Add(-1)
	}
	return false
}

// release drops a reference; the last one unmaps and closes the file.
// Java: ReferenceResource#release.
func (m *MappedFile) release() {
	if m.refCount.Add(-1) > 0 {
		return
	}
	if m.cleaned.CompareAndSwap(false, true) {
		if m.usesPool { // a file going away before it was wholly committed
			m.returnWriteBuffer()
		}
		_ = munmap(m.data)
		m.data = nil
		_ = m.f.Close()
	}
}

// shutdown makes the file unavailable to new readers and drops the initial reference, so the
// mapping goes away when the last reader releases. Java: ReferenceResource#shutdown.
func (m *MappedFile) shutdown() {
	if m.available.CompareAndSwap(true, false) {
		m.release()
	}
}

// destroy shuts the file down and deletes it from disk (the mapping lives until the last
// reader releases). Java: MappedFile#destroy. Deviation: never unmaps under a reader (Java
// forces cleanup after an interval), because a Go reader would fault.
func (m *MappedFile) destroy() error {
	m.shutdown()
	if err := os.Remove(m.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: remove %s: %w", m.path, err)
	}
	return nil
}

// SelectMappedBufferResult is a held view of a file's bytes. Data is valid until Release;
// copy what you keep. Java: SelectMappedBufferResult.
type SelectMappedBufferResult struct {
	// StartOffset is the log offset (bytes) of Data[0].
	StartOffset int64
	Data        []byte
	mf          *MappedFile
}

// Size is len(Data).
func (r *SelectMappedBufferResult) Size() int { return len(r.Data) }

// Release drops the hold on the file. Safe on a zero result.
func (r *SelectMappedBufferResult) Release() {
	if r.mf != nil {
		r.mf.release()
		r.mf = nil
		r.Data = nil
	}
}

// selectMappedBuffer returns the size bytes at pos, held; ok is false if they are not all
// written yet or the file is going away. Java: MappedFile#selectMappedBuffer(int, int).
func (m *MappedFile) selectMappedBuffer(pos, size int) (SelectMappedBufferResult, bool) {
	if pos < 0 || size < 0 || pos+size > m.ReadPosition() || !m.hold() {
		return SelectMappedBufferResult{}, false
	}
	return SelectMappedBufferResult{StartOffset: m.fileFromOffset + int64(pos), Data: m.data[pos : pos+size], mf: m}, true
}

// selectMappedBufferFrom returns the written bytes from pos to the read position, held.
// Java: MappedFile#selectMappedBuffer(int).
func (m *MappedFile) selectMappedBufferFrom(pos int) (SelectMappedBufferResult, bool) {
	rp := m.ReadPosition()
	if pos < 0 || pos >= rp || !m.hold() {
		return SelectMappedBufferResult{}, false
	}
	return SelectMappedBufferResult{StartOffset: m.fileFromOffset + int64(pos), Data: m.data[pos:rp], mf: m}, true
}

// isAbleToFlush: a full file always; else at least leastPages new 4 KiB pages (leastPages >
// 0) or any new byte (leastPages == 0) between the flushed and the read position.
// Java: MappedFile#isAbleToFlush.
func (m *MappedFile) isAbleToFlush(leastPages int) bool {
	flush := m.FlushedPosition()
	write := m.ReadPosition()
	if m.IsFull() {
		return write > flush || flush != m.fileSize
	}
	if leastPages > 0 {
		return write/osPageSize-flush/osPageSize >= leastPages
	}
	return write > flush
}

// flush forces the readable bytes to disk if isAbleToFlush and returns the flushed position:
// fdatasync of the file (always for a write-buffer file, whose bytes reached the file by
// pwrite), or msync of the dirty range when useMsync. Java: MappedFile#flush.
func (m *MappedFile) flush(leastPages int) (int, error) {
	if !m.isAbleToFlush(leastPages) {
		return m.FlushedPosition(), nil
	}
	if !m.hold() {
		m.flushedPosition.Store(int32(m.ReadPosition()))
		return m.FlushedPosition(), nil
	}
	defer m.release()
	value := m.ReadPosition()
	m.hooks.beforeFlush(m.relName)
	if err := flushRange(m.fd, m.data, m.FlushedPosition(), value, m.usesPool); err != nil {
		return m.FlushedPosition(), fmt.Errorf("store: flush %s: %w", m.path, err)
	}
	m.hooks.flushed(m.relName, value)
	m.flushedPosition.Store(int32(value))
	return value, nil
}

// isAbleToCommit: a full file always; else at least leastPages new 4 KiB pages (leastPages >
// 0) or any new byte (leastPages == 0) between the committed and the write position.
// Java: MappedFile#isAbleToCommit.
func (m *MappedFile) isAbleToCommit(leastPages int) bool {
	commit := int(m.committedPosition.Load())
	write := m.WrotePosition()
	if m.IsFull() {
		return true
	}
	if leastPages > 0 {
		return write/osPageSize-commit/osPageSize >= leastPages
	}
	return write > commit
}

// commit copies the written, uncommitted bytes of the write buffer into the file (pwrite) if
// isAbleToCommit, and returns the committed position; once the whole file is committed the
// buffer goes back to the pool. A file without a write buffer has nothing to commit: its write
// position is returned. Java: MappedFile#commit, #commit0.
func (m *MappedFile) commit(leastPages int) (int, error) {
	if !m.usesPool {
		return m.WrotePosition(), nil
	}
	var err error
	if b := m.writeBuffer.Load(); b != nil && m.isAbleToCommit(leastPages) && m.hold() {
		err = m.commit0(*b)
		m.release()
	}
	committed := int(m.committedPosition.Load())
	if committed == m.fileSize {
		m.returnWriteBuffer()
	}
	return committed, err
}

func (m *MappedFile) commit0(buf []byte) error {
	// the store time first: the appender publishes a message's end before its time, so every
	// message up to this time lies below the write position read next
	ts := m.storeTimestamp.Load()
	write := m.WrotePosition()
	last := int(m.committedPosition.Load())
	if write <= last {
		return nil
	}
	if _, err := m.f.WriteAt(buf[last:write], int64(last)); err != nil {
		return fmt.Errorf("store: commit %s: %w", m.path, err)
	}
	// the position first, then its time (as the appender does): a flush that read this time
	// then flushes at least up to this position, so the checkpoint never names a message the
	// flush did not cover
	m.committedPosition.Store(int32(write))
	m.committedStoreTimestamp.Store(ts)
	return nil
}

// warm touches one byte of every page from the write position on, so appends do not take
// first-touch page faults. Java: MappedFile#warmMappedFile (without mlock).
func (m *MappedFile) warm() {
	if !m.hold() {
		return
	}
	defer m.release()
	for i := m.ReadPosition(); i < m.fileSize; i += osPageSize {
		m.data[i] = 0
	}
	madviseWillNeed(m.data)
}

// LastModifiedTimestamp is the file's modification time in ms (the file system's clock), 0
// when it cannot be read. Writes through the mapping move it when the kernel notices them (at
// the first write after a write-back, or at a flush). Java: MappedFile#getLastModifiedTimestamp.
func (m *MappedFile) LastModifiedTimestamp() int64 {
	st, err := os.Stat(m.path)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixMilli()
}
