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
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// indexFileNameLen is the length of an index file name (yyyyMMddHHmmssSSS).
const indexFileNameLen = 17

// QueryOffsetResult is what an index lookup finds: the CommitLog offsets (bytes) of the
// entries matching the key, and the newest index file's end time (ms) and end offset.
// Mirrors org.apache.rocketmq.store.index.QueryOffsetResult.
type QueryOffsetResult struct {
	PhyOffsets               []CommitLogOffset
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset CommitLogOffset
}

// IndexService keeps the index files (index/<yyyyMMddHHmmssSSS>) and builds them from
// dispatched records: for each NOT, PREPARED or COMMIT record it adds the keys
// "<topic>#<UNIQ_KEY>" and "<topic>#<k>" for each non-empty space-separated word k of KEYS.
// When the newest file is full, a new one is created (named by the store clock) and the full
// one is flushed in the background, after which the checkpoint's indexMsgTimestamp becomes its
// end time. mu guards the file list; the reput goroutine is the only writer of the files.
// Mirrors org.apache.rocketmq.store.index.IndexService.
type IndexService struct {
	env         *storeEnv
	checkpoint  *StoreCheckpoint // indexMsgTimestamp once a full file is on disk
	flags       *runningFlags    // a file that cannot be created marks the index broken
	hashSlotNum int
	indexNum    int
	storePath   string

	mu    sync.RWMutex
	files []*IndexFile // in name (creation) order

	flushes sync.WaitGroup // background flushes of full files
	// lastFlush is closed when the newest background flush is done; each flush waits for the
	// one before, so indexMsgTimestamp only ever names a file whose predecessors are on disk.
	lastFlush chan struct{} // written by the reput goroutine only
}

func newIndexService(env *storeEnv, checkpoint *StoreCheckpoint, flags *runningFlags) *IndexService {
	return &IndexService{env: env, checkpoint: checkpoint, flags: flags, hashSlotNum: env.cfg.MaxHashSlotNum,
		indexNum: env.cfg.MaxIndexNum, storePath: filepath.Join(string(env.root), "index")}
}

// IndexFiles returns a snapshot of the index files, oldest first.
func (is *IndexService) IndexFiles() []*IndexFile {
	is.mu.RLock()
	defer is.mu.RUnlock()
	return append([]*IndexFile(nil), is.files...)
}

// load maps the index files in name order. After an unclean exit (lastExitOK false) a file
// whose endTimestamp is past the checkpoint's indexMsgTimestamp — one not known to be
// flushed whole — is deleted; recovery dispatches its records again. Names that are not 17
// digits are skipped. Java: IndexService#load.
func (is *IndexService) load(lastExitOK bool) error {
	entries, err := os.ReadDir(is.storePath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: load index files: %w", err)
	}
	var names []string
	for _, e := range entries {
		switch name := e.Name(); {
		case e.IsDir():
		case strings.HasSuffix(name, tmpSuffix):
			_ = os.Remove(filepath.Join(is.storePath, name))
		case !isIndexFileName(name):
			is.env.log.warn("skipping a file in the index directory whose name is not a time", "file", name)
		default:
			names = append(names, name)
		}
	}
	sort.Strings(names)
	indexTs := is.checkpoint.IndexMsgTimestamp()
	for _, name := range names {
		f, err := newIndexFile(filepath.Join(is.storePath, name), is.hashSlotNum, is.indexNum, 0, 0)
		if err != nil {
			is.shutdownFiles()
			return fmt.Errorf("store: load index file %s: %w", name, err)
		}
		is.adopt(f)
		f.load()
		// An all-zero header (endPhyOffset and endTimestamp 0) was never flushed: after a power
		// cut the file may hold anything. Deviation: Java keeps such a file.
		if !lastExitOK && (f.EndTimestamp() > indexTs || f.EndPhyOffset() == 0 && f.EndTimestamp() == 0) {
			is.env.log.warn("deleting an index file written after the last checkpoint (unclean exit)",
				"file", name, "endTimestamp", f.EndTimestamp(), "indexMsgTimestamp", indexTs)
			if err := f.mf.destroy(); err != nil {
				is.shutdownFiles()
				return err
			}
			continue
		}
		is.files = append(is.files, f)
	}
	return nil
}

// truncateEnd moves the newest file's endPhyOffset back to phyOffset, the end of the CommitLog
// found after an unclean exit, when the index reached further: the index is built from data
// not yet flushed, so a power cut may leave it ahead of the log. Records appended there from now
// on are then indexed again (buildIndex skips records below endPhyOffset); the entries beyond
// point at records that were lost, and at the records that take their place, which a query's
// caller tells apart by key as it always must (hash collisions).
// Deviation: Java leaves the index ahead, and new messages at those offsets go unindexed.
func (is *IndexService) truncateEnd(phyOffset CommitLogOffset) {
	is.mu.RLock()
	defer is.mu.RUnlock()
	if n := len(is.files); n > 0 && is.files[n-1].EndPhyOffset() > phyOffset {
		f := is.files[n-1]
		is.env.log.warn("the index reaches past the recovered commitlog end; indexing again from there",
			"file", f.FileName(), "endPhyOffset", f.EndPhyOffset(), "commitlogEnd", phyOffset)
		f.setEndPhyOffset(phyOffset)
	}
}

// endPhyOffset is the CommitLog offset (bytes) of the last record the index holds: the
// endPhyOffset of the newest index file with an entry, -1 when no file has one. Dispatch must
// index the records after it.
func (is *IndexService) endPhyOffset() CommitLogOffset {
	is.mu.RLock()
	defer is.mu.RUnlock()
	for i := len(is.files) - 1; i >= 0; i-- {
		if f := is.files[i]; f.IndexCount() > 1 {
			return f.EndPhyOffset()
		}
	}
	return -1
}

// adopt names the file relative to the store root and gives it the flush hooks.
func (is *IndexService) adopt(f *IndexFile) {
	f.mf.relName = "index/" + f.mf.name
	f.mf.hooks = is.env.events()
}

func isIndexFileName(name string) bool {
	if len(name) != indexFileNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// indexFileName formats ms as yyyyMMddHHmmssSSS in loc. Java: UtilAll#timeMillisToHumanString.
func indexFileName(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6)
}

// buildIndex adds the record's keys to the newest index file, rolling to a new file when it
// is full. Records below the newest file's endPhyOffset were indexed already (replay after a
// restart) and ROLLBACK records are not indexed. The record at endPhyOffset itself is indexed
// again, as in Java: its keys may have been split over a full file and the next one (lost in
// a crash), so a replay may add some of its keys twice (QueryMessage drops the duplicates). On
// a file that cannot be created or allocated the store stops accepting puts (the index would
// silently miss messages). Java: IndexService#buildIndex.
func (is *IndexService) buildIndex(req *DispatchRequest) {
	f := is.retryGetAndCreateIndexFile()
	if f == nil {
		return
	}
	if req.CommitLogOffset < f.EndPhyOffset() {
		return
	}
	if primitive.GetTransactionValue(req.SysFlag) == tranRollbackType {
		return
	}
	keys := 0
	if uniq, ok := lookupProperty(req.Properties, propertyUniqKey); ok {
		if f = is.putKey(f, req, indexKeyHash(req.Topic, uniq)); f == nil {
			return
		}
		keys++
	}
	if v, ok := lookupProperty(req.Properties, propertyKeys); ok {
		for len(v) > 0 {
			k := v
			if i := indexByte(v, ' '); i >= 0 {
				k, v = v[:i], v[i+1:]
			} else {
				v = nil
			}
			if len(k) == 0 {
				continue
			}
			if f = is.putKey(f, req, indexKeyHash(req.Topic, k)); f == nil {
				return
			}
			keys++
		}
	}
	if tr := is.env.tracer; tr.Enabled() {
		tr.Step("IndexService#buildIndex", slog.Int64("commitLogOffset", int64(req.CommitLogOffset)),
			slog.Int("keys", keys), slog.Int("indexCount", int(f.IndexCount())))
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// putKey puts one key, rolling to new files while the current one is full; nil when no file
// can take it. Java: IndexService#putKey.
func (is *IndexService) putKey(f *IndexFile, req *DispatchRequest, keyHash int32) *IndexFile {
	for {
		ok, err := f.putKey(keyHash, req.CommitLogOffset, req.StoreTimestamp)
		if ok {
			return f
		}
		if err != nil {
			is.env.log.error("index file cannot be written; stop building the index", err)
			is.flags.indexError.Store(true)
			return nil
		}
		if f = is.retryGetAndCreateIndexFile(); f == nil {
			return nil
		}
	}
}

// retryGetAndCreateIndexFile returns the newest index file that is not full, creating one
// if needed; after three failed attempts the store is marked unwritable (Java sleeps a second
// between attempts; a creation here fails for reasons a second does not fix).
// Java: IndexService#retryGetAndCreateIndexFile.
func (is *IndexService) retryGetAndCreateIndexFile() *IndexFile {
	var err error
	for range 3 {
		var f *IndexFile
		if f, err = is.getAndCreateLastIndexFile(); f != nil {
			return f
		}
	}
	is.env.log.error("index file cannot be created; mark the index broken", err)
	is.flags.indexError.Store(true)
	return nil
}

// getAndCreateLastIndexFile: the newest file if not full, else a new file named by the
// store clock, which takes the full file's end offset and time as its begin; the full file
// is flushed (in the background unless Options.ManualServices) and then recorded in the checkpoint.
// Java: IndexService#getAndCreateLastIndexFile.
//
// Deviation: if a file of that name exists (two files within one millisecond — tests with a
// fixed clock and tiny files), the name is moved on by a millisecond until it is free; Java
// would reopen the existing file.
func (is *IndexService) getAndCreateLastIndexFile() (*IndexFile, error) {
	is.mu.RLock()
	var prev *IndexFile
	if n := len(is.files); n > 0 {
		last := is.files[n-1]
		if !last.IsWriteFull() {
			is.mu.RUnlock()
			return last, nil
		}
		prev = last
	}
	is.mu.RUnlock()

	var endPhy CommitLogOffset
	var endTs int64
	if prev != nil {
		endPhy, endTs = prev.EndPhyOffset(), prev.EndTimestamp()
	}
	if err := os.MkdirAll(is.storePath, 0o755); err != nil {
		return nil, fmt.Errorf("store: create %s: %w", is.storePath, err)
	}
	ms := is.env.clock.now()
	var path string
	for {
		path = filepath.Join(is.storePath, indexFileName(ms, is.env.opts.Location))
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		ms++
	}
	f, err := newIndexFile(path, is.hashSlotNum, is.indexNum, endPhy, endTs)
	if err != nil {
		return nil, err
	}
	is.adopt(f)
	is.mu.Lock()
	is.files = append(is.files, f)
	is.mu.Unlock()
	if prev != nil {
		if is.env.opts.ManualServices {
			is.flush(prev)
		} else {
			// Deviation: Java starts a thread per full file, so a newer file's flush may finish
			// (and move indexMsgTimestamp past) an older one still on its way to the disk.
			before, done := is.lastFlush, make(chan struct{})
			is.lastFlush = done
			is.flushes.Go(func() {
				defer close(done)
				if before != nil {
					<-before
				}
				is.flush(prev)
			})
		}
	}
	return f, nil
}

// flush forces a file to disk; for a full file the checkpoint's indexMsgTimestamp then
// becomes its end time, and the checkpoint is flushed. Java: IndexService#flush.
func (is *IndexService) flush(f *IndexFile) {
	var ts int64
	if f.IsWriteFull() {
		ts = f.EndTimestamp()
	}
	if err := f.flush(); err != nil {
		is.env.log.error("flush index file", err)
		return
	}
	if ts > 0 {
		is.checkpoint.SetIndexMsgTimestamp(ts)
		if err := is.checkpoint.Flush(); err != nil {
			is.env.log.error("flush checkpoint", err)
		}
	}
}

// queryOffset looks key up in the files whose time range overlaps [begin, end] (ms), newest
// first, collecting at most min(maxNum, maxMsgsNumBatch) CommitLog offsets of entries keep
// accepts (nil: every entry with the key's hash); it stops at a file that begins before
// begin. The result also carries the newest file's end time and offset.
// Java: IndexService#queryOffset.
func (is *IndexService) queryOffset(topic, key string, maxNum int, begin, end int64, keep func(CommitLogOffset) bool) QueryOffsetResult {
	maxNum = min(maxNum, is.env.cfg.MaxMsgsNumBatch)
	res := QueryOffsetResult{PhyOffsets: make([]CommitLogOffset, 0, max(maxNum, 0))}
	hash := IndexKeyHash(topic + "#" + key)
	is.mu.RLock()
	defer is.mu.RUnlock()
	for i := len(is.files) - 1; i >= 0; i-- {
		f := is.files[i]
		if i == len(is.files)-1 {
			res.IndexLastUpdateTimestamp, res.IndexLastUpdatePhyoffset = f.EndTimestamp(), f.EndPhyOffset()
		}
		if f.isTimeMatched(begin, end) {
			res.PhyOffsets = f.selectPhyOffset(res.PhyOffsets, hash, maxNum, begin, end, keep)
		}
		if f.BeginTimestamp() < begin || len(res.PhyOffsets) >= maxNum {
			break
		}
	}
	return res
}

// deleteExpiredFile deletes the oldest files whose endPhyOffset is below offset (the
// CommitLog's new min offset), never the newest. Java: IndexService#deleteExpiredFile.
func (is *IndexService) deleteExpiredFile(offset CommitLogOffset) int {
	is.mu.Lock()
	defer is.mu.Unlock()
	n := 0
	for n < len(is.files)-1 && is.files[n].EndPhyOffset() < offset {
		if err := is.files[n].mf.destroy(); err != nil {
			is.env.log.error("delete expired index file", err)
			break
		}
		n++
	}
	is.files = append([]*IndexFile(nil), is.files[n:]...)
	return n
}

// destroy deletes every index file. Java: IndexService#destroy.
func (is *IndexService) destroy() error {
	is.flushes.Wait()
	is.mu.Lock()
	defer is.mu.Unlock()
	var errs []error
	for _, f := range is.files {
		errs = append(errs, f.mf.destroy())
	}
	is.files = nil
	return errors.Join(errs...)
}

// shutdown waits for background flushes, flushes the newest file and unmaps every file.
// Deviation: Java never flushes a file that is not full, not even at shutdown (the page cache
// writes it back); one fdatasync here keeps a clean shutdown clean after a power loss too.
func (is *IndexService) shutdown() {
	is.flushes.Wait()
	is.mu.Lock()
	if n := len(is.files); n > 0 {
		if err := is.files[n-1].flush(); err != nil {
			is.env.log.error("flush index file at shutdown", err)
		}
	}
	is.mu.Unlock()
	is.shutdownFiles()
}

func (is *IndexService) shutdownFiles() {
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, f := range is.files {
		f.mf.shutdown()
	}
	is.files = nil
}
