package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// MappedFileQueue is a directory of equal-size MappedFiles forming one log: file n+1 starts
// at file n's start + size. The list is copy-on-write: readers load a snapshot without
// locking; creating, truncating and deleting files take mu and publish a new slice.
// Mirrors org.apache.rocketmq.store.MappedFileQueue.
type MappedFileQueue struct {
	storePath      string
	relDir         string // storePath relative to the store root, for trace steps
	mappedFileSize int

	files atomic.Pointer[[]*MappedFile]
	mu    sync.Mutex // serializes changes to files

	// flushedWhere is the log offset (bytes) up to which data is on disk; committedWhere the
	// one up to which write buffers were committed into the files (= the written end for
	// files without a write buffer). flushedWhere ≤ committedWhere.
	flushedWhere   atomic.Int64
	committedWhere atomic.Int64
	flushMu        sync.Mutex // one flush at a time (flushedWhere only moves forward)
	commitMu       sync.Mutex // one commit at a time
	// storeTimestamp is the store time (ms) of the last message known flushed.
	storeTimestamp atomic.Int64

	allocate *AllocateMappedFileService // nil: create files inline
	warm     bool
	tracer   *trace.Tracer       // set for the CommitLog only
	pool     *TransientStorePool // write buffers for new files (CommitLog with transientStorePoolEnable)
	hooks    *EventListener      // given to each file
}

func newMappedFileQueue(storePath, relDir string, size int, allocate *AllocateMappedFileService, tr *trace.Tracer) *MappedFileQueue {
	q := &MappedFileQueue{storePath: storePath, relDir: relDir, mappedFileSize: size, allocate: allocate, tracer: tr}
	q.files.Store(&[]*MappedFile{})
	return q
}

// MappedFiles returns a snapshot of the files in offset order.
func (q *MappedFileQueue) MappedFiles() []*MappedFile { return *q.files.Load() }

func (q *MappedFileQueue) publish(files []*MappedFile) { q.files.Store(&files) }

func (q *MappedFileQueue) adopt(mf *MappedFile) {
	mf.relName = filepath.ToSlash(filepath.Join(q.relDir, mf.name))
	mf.tracer = q.tracer
	mf.hooks = q.hooks
}

// load maps every file of the directory. Each must be exactly mappedFileSize bytes, named by
// its start offset, and the files must be contiguous; otherwise the store refuses to start.
// Loaded files start with every position at the file size (recovery sets the real end).
// Java: MappedFileQueue#load / doLoad.
func (q *MappedFileQueue) load() error {
	entries, err := os.ReadDir(q.storePath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: load %s: %w", q.storePath, err)
	}
	var names []string
	for _, e := range entries {
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), tmpSuffix):
			// a creation interrupted by a crash
			_ = os.Remove(filepath.Join(q.storePath, e.Name()))
		default:
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var files []*MappedFile
	fail := func(err error) error {
		for _, f := range files {
			f.shutdown()
		}
		return err
	}
	for _, name := range names {
		path := filepath.Join(q.storePath, name)
		st, err := os.Stat(path)
		if err != nil {
			return fail(fmt.Errorf("store: load %s: %w", path, err))
		}
		if st.Size() != int64(q.mappedFileSize) {
			return fail(fmt.Errorf("%w: %s is %d bytes, want %d (check mappedFileSize settings)", ErrFileSize, path, st.Size(), q.mappedFileSize))
		}
		mf, err := newMappedFile(path, q.mappedFileSize)
		if err != nil {
			return fail(err)
		}
		if mf.fileFromOffset%int64(q.mappedFileSize) != 0 ||
			(len(files) > 0 && mf.fileFromOffset != files[len(files)-1].fileFromOffset+int64(q.mappedFileSize)) {
			mf.shutdown()
			return fail(fmt.Errorf("store: load %s: file %s breaks the offset sequence (size %d)", q.storePath, name, q.mappedFileSize))
		}
		q.adopt(mf)
		mf.setPositions(q.mappedFileSize)
		files = append(files, mf)
	}
	q.publish(files)
	return nil
}

// FirstMappedFile is the oldest file, or nil.
func (q *MappedFileQueue) FirstMappedFile() *MappedFile {
	fs := q.MappedFiles()
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

// LastMappedFile is the newest file, or nil. Java: MappedFileQueue#getLastMappedFile().
func (q *MappedFileQueue) LastMappedFile() *MappedFile {
	fs := q.MappedFiles()
	if len(fs) == 0 {
		return nil
	}
	return fs[len(fs)-1]
}

// getLastMappedFile returns the newest file, first creating one if there is none (it then
// starts at startOffset rounded down to the file size) or the newest is full (the next one)
// and create is true. A creation failure is returned as an error (disk full, no permission).
// Java: MappedFileQueue#getLastMappedFile(long, boolean).
func (q *MappedFileQueue) getLastMappedFile(startOffset int64, create bool) (*MappedFile, error) {
	last := q.LastMappedFile()
	createOffset := int64(-1)
	if last == nil {
		createOffset = startOffset - startOffset%int64(q.mappedFileSize)
	} else if last.IsFull() {
		createOffset = last.fileFromOffset + int64(q.mappedFileSize)
	}
	if createOffset < 0 || !create {
		return last, nil
	}
	return q.createMappedFile(createOffset)
}

func (q *MappedFileQueue) createMappedFile(createOffset int64) (*MappedFile, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// another goroutine may have created it meanwhile
	if last := q.LastMappedFile(); last != nil && last.fileFromOffset >= createOffset {
		return last, nil
	}
	if err := os.MkdirAll(q.storePath, 0o755); err != nil {
		return nil, fmt.Errorf("store: create %s: %w", q.storePath, err)
	}
	path := filepath.Join(q.storePath, offset2FileName(createOffset))
	var mf *MappedFile
	var err error
	if q.allocate != nil {
		next := filepath.Join(q.storePath, offset2FileName(createOffset+int64(q.mappedFileSize)))
		mf, err = q.allocate.putRequestAndReturnMappedFile(path, next, q.mappedFileSize, q.warm)
	} else {
		mf, err = newMappedFile(path, q.mappedFileSize)
		if err == nil && q.warm {
			mf.warm()
		}
	}
	if err != nil {
		return nil, err
	}
	q.adopt(mf)
	mf.usePool(q.pool)
	old := q.MappedFiles()
	mf.firstCreateInQueue = len(old) == 0
	files := make([]*MappedFile, len(old), len(old)+1)
	copy(files, old)
	q.publish(append(files, mf))
	return mf, nil
}

// findMappedFileByOffset returns the file holding log offset (bytes), or the first file if
// none does and returnFirstOnNotFound. Java: MappedFileQueue#findMappedFileByOffset.
func (q *MappedFileQueue) findMappedFileByOffset(offset int64, returnFirstOnNotFound bool) *MappedFile {
	fs := q.MappedFiles()
	if len(fs) == 0 {
		return nil
	}
	first, size := fs[0].fileFromOffset, int64(q.mappedFileSize)
	if offset >= first && offset < fs[len(fs)-1].fileFromOffset+size {
		idx := int((offset - first) / size)
		if idx < len(fs) && offset >= fs[idx].fileFromOffset && offset < fs[idx].fileFromOffset+size {
			return fs[idx]
		}
		for _, f := range fs {
			if offset >= f.fileFromOffset && offset < f.fileFromOffset+size {
				return f
			}
		}
	}
	if returnFirstOnNotFound {
		return fs[0]
	}
	return nil
}

// getMaxOffset is the log offset (bytes) readers may read up to: the last file's start +
// read position; 0 without files. Java: MappedFileQueue#getMaxOffset.
func (q *MappedFileQueue) getMaxOffset() int64 {
	if f := q.LastMappedFile(); f != nil {
		return f.fileFromOffset + int64(f.ReadPosition())
	}
	return 0
}

// fileAt reads a flush or commit point (flushedWhere or committedWhere, bytes) and finds the
// file holding it: the first file while the point is 0 (nothing flushed or committed yet), nil
// when no file holds it. Java: findMappedFileByOffset(this.flushedWhere, this.flushedWhere == 0)
// in MappedFileQueue#flush and #commit.
func (q *MappedFileQueue) fileAt(point *atomic.Int64) (int64, *MappedFile) {
	where := point.Load()
	return where, q.findMappedFileByOffset(where, where == 0)
}

// flush flushes the file at flushedWhere (if isAbleToFlush(leastPages)) and advances
// flushedWhere. It reports whether nothing was left to flush in that file (flushedWhere did
// not move). Java: MappedFileQueue#flush.
func (q *MappedFileQueue) flush(leastPages int) (bool, error) {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	where, mf := q.fileAt(&q.flushedWhere)
	if mf == nil {
		return true, nil
	}
	ts := mf.readStoreTimestamp()
	traced := q.tracer.Enabled() && mf.ReadPosition() > mf.FlushedPosition()
	if traced {
		q.tracer.Step("MappedFileQueue#flush", slog.Int64("flushedWhere", where), slog.Int("flushLeastPages", leastPages))
		able := mf.isAbleToFlush(leastPages)
		if mf.usesPool {
			q.tracer.Step("MappedFile#isAbleToFlush", slog.String("file", mf.relName),
				slog.Int("flushedPosition", mf.FlushedPosition()), slog.Int("committedPosition", mf.ReadPosition()), slog.Bool("able", able))
		} else {
			q.tracer.Step("MappedFile#isAbleToFlush", slog.String("file", mf.relName),
				slog.Int("flushedPosition", mf.FlushedPosition()), slog.Int("wrotePosition", mf.ReadPosition()), slog.Bool("able", able))
		}
	}
	pos, err := mf.flush(leastPages)
	newWhere := mf.fileFromOffset + int64(pos)
	if traced && newWhere != where {
		q.tracer.Step("MappedFile#flush", slog.String("file", mf.relName), slog.Int("flushedPosition", pos))
	}
	q.flushedWhere.Store(newWhere)
	if newWhere != where && ts > 0 {
		q.storeTimestamp.Store(ts)
	}
	return newWhere == where, err
}

// setFlushedAndCommittedWhere sets both log offsets (bytes): recovery found the end there.
func (q *MappedFileQueue) setFlushedAndCommittedWhere(offset int64) {
	q.flushedWhere.Store(offset)
	q.committedWhere.Store(offset)
}

// commit commits the write buffer of the file at committedWhere (if isAbleToCommit(leastPages))
// and advances committedWhere. It reports whether nothing was committed (committedWhere did
// not move). Java: MappedFileQueue#commit.
func (q *MappedFileQueue) commit(leastPages int) (bool, error) {
	q.commitMu.Lock()
	defer q.commitMu.Unlock()
	where, mf := q.fileAt(&q.committedWhere)
	if mf == nil {
		return true, nil
	}
	traced := q.tracer.Enabled() && mf.usesPool && mf.WrotePosition() > mf.CommittedPosition()
	if traced {
		q.tracer.Step("MappedFileQueue#commit", slog.Int64("committedWhere", where), slog.Int("commitLeastPages", leastPages))
		q.tracer.Step("MappedFile#isAbleToCommit", slog.String("file", mf.relName),
			slog.Int("committedPosition", mf.CommittedPosition()), slog.Int("wrotePosition", mf.WrotePosition()),
			slog.Bool("able", mf.isAbleToCommit(leastPages)))
	}
	pos, err := mf.commit(leastPages)
	newWhere := mf.fileFromOffset + int64(pos)
	if traced && newWhere != where {
		q.tracer.Step("MappedFile#commit", slog.String("file", mf.relName), slog.Int("committedPosition", pos),
			slog.Int64("committedBytes", newWhere-where))
	}
	q.committedWhere.Store(newWhere)
	return newWhere == where, err
}

// isAbleToCommit reports whether the file at the commit point has enough uncommitted data.
func (q *MappedFileQueue) isAbleToCommit(leastPages int) bool {
	_, mf := q.fileAt(&q.committedWhere)
	return mf != nil && mf.usesPool && mf.writeBuffer.Load() != nil && mf.isAbleToCommit(leastPages)
}

// getMaxWrotePosition is the log offset (bytes) the appender reached (past the read position
// while write buffers are not committed). Java: MappedFileQueue#getMaxWrotePosition.
func (q *MappedFileQueue) getMaxWrotePosition() int64 {
	if f := q.LastMappedFile(); f != nil {
		return f.fileFromOffset + int64(f.WrotePosition())
	}
	return 0
}

// truncateDirtyFiles makes offset (bytes) the end of the log: the file holding it gets its
// positions set there, later files are destroyed. Java: MappedFileQueue#truncateDirtyFiles.
func (q *MappedFileQueue) truncateDirtyFiles(offset int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var keep []*MappedFile
	var errs []error
	for _, f := range q.MappedFiles() {
		tail := f.fileFromOffset + int64(q.mappedFileSize)
		switch {
		case tail <= offset:
			keep = append(keep, f)
		case offset >= f.fileFromOffset:
			f.setPositions(int(offset - f.fileFromOffset))
			keep = append(keep, f)
		default:
			errs = append(errs, f.destroy())
		}
	}
	q.publish(keep)
	return errors.Join(errs...)
}

// deleteLastMappedFile destroys the newest file. Java: MappedFileQueue#deleteLastMappedFile.
func (q *MappedFileQueue) deleteLastMappedFile() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	fs := q.MappedFiles()
	if len(fs) == 0 {
		return nil
	}
	last := fs[len(fs)-1]
	q.publish(append([]*MappedFile(nil), fs[:len(fs)-1]...))
	return last.destroy()
}

// shutdown unmaps every file (when its readers are done); files stay on disk.
func (q *MappedFileQueue) shutdown() {
	for _, f := range q.MappedFiles() {
		f.shutdown()
	}
}

// destroy deletes every file and the directory. Java: MappedFileQueue#destroy.
func (q *MappedFileQueue) destroy() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	for _, f := range q.MappedFiles() {
		errs = append(errs, f.destroy())
	}
	q.publish(nil)
	q.flushedWhere.Store(0)
	q.committedWhere.Store(0)
	if err := os.Remove(q.storePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// deleteFilesBatchMax caps the files one cleanup pass deletes. Java: MappedFileQueue#DELETE_FILES_BATCH_MAX.
const deleteFilesBatchMax = 10

// deleteExpiredFileByTime deletes, oldest first, the files whose modification time +
// expiredTime (ms) is at or before now (ms) — every one when cleanImmediately — stopping at
// the first file that is not expired (no holes) and after deleteFilesBatchMax files; the last
// (active) file is never deleted. pause is called between two deletions. It returns the
// number deleted. Java: MappedFileQueue#deleteExpiredFileByTime.
func (q *MappedFileQueue) deleteExpiredFileByTime(expiredTime, now int64, cleanImmediately bool, pause func()) int {
	files := q.MappedFiles()
	var gone []*MappedFile
	for i := 0; i < len(files)-1; i++ {
		mf := files[i]
		if now < mf.LastModifiedTimestamp()+expiredTime && !cleanImmediately {
			break
		}
		if err := mf.destroy(); err != nil {
			break
		}
		gone = append(gone, mf)
		if len(gone) >= deleteFilesBatchMax {
			break
		}
		if i+1 < len(files)-1 {
			pause()
		}
	}
	q.removeFiles(gone)
	return len(gone)
}

// deleteExpiredFileByOffset deletes, oldest first, the ConsumeQueue files whose last unit
// points below offset (the CommitLog's min offset, bytes), stopping at the first that does
// not; the last file is never deleted. unitSize is the unit size (20). Java:
// MappedFileQueue#deleteExpiredFileByOffset.
func (q *MappedFileQueue) deleteExpiredFileByOffset(offset int64, unitSize int) int {
	files := q.MappedFiles()
	var gone []*MappedFile
	for i := 0; i < len(files)-1; i++ {
		mf := files[i]
		destroy := false
		if r, ok := mf.selectMappedBuffer(q.mappedFileSize-unitSize, unitSize); ok {
			destroy = int64(be64(r.Data)) < offset
			r.Release()
		} else if !mf.available.Load() {
			destroy = true // a file already shut down ("hanged" in Java)
		}
		if !destroy || mf.destroy() != nil {
			break
		}
		gone = append(gone, mf)
	}
	q.removeFiles(gone)
	return len(gone)
}

// removeFiles drops deleted files from the list. Java: MappedFileQueue#deleteExpiredFile.
func (q *MappedFileQueue) removeFiles(gone []*MappedFile) {
	if len(gone) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	drop := map[*MappedFile]bool{}
	for _, f := range gone {
		drop[f] = true
	}
	var keep []*MappedFile
	for _, f := range q.MappedFiles() {
		if !drop[f] {
			keep = append(keep, f)
		}
	}
	q.publish(keep)
}
