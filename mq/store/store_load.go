package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Load takes the lock file, creates the store's directories, maps the CommitLog and ConsumeQueue files, opens the checkpoint,
// loads the index files (after an unclean exit dropping those not known to be flushed) and
// recovers: each ConsumeQueue, then the CommitLog — normally (clean shutdown: from the
// third-to-last file) or abnormally (abort file present: from the file the checkpoint points
// to, dispatching every valid record again) — truncating torn tails and ConsumeQueue units
// beyond the end, then the queue-offset table. It returns an error saying why the store
// cannot be used (locked, file size mismatch, I/O error); on error nothing stays mapped or
// locked. Java: DefaultMessageStore#load.
// Deviation: the lock is taken here, not in start, so recovery never runs on a store in use.
func (s *DefaultMessageStore) Load() error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.loaded {
		return nil
	}
	if s.closed {
		return ErrClosed
	}
	root := string(s.env.root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("store: create root: %w", err)
	}
	if err := s.lock(); err != nil {
		return err
	}
	if err := s.makeDirs(); err != nil {
		s.unlock()
		return err
	}
	ok := false
	defer func() {
		if !ok {
			s.commitLog.mfq.shutdown()
			s.queues.shutdown()
			s.indexService.shutdownFiles()
			_ = s.checkpoint.shutdown()
			s.unlock()
		}
	}()
	_, err := os.Stat(s.abortFile())
	lastExitOK := errors.Is(err, os.ErrNotExist)
	if tr := s.env.tracer; tr.Enabled() {
		tr.Step("DefaultMessageStore#load", slog.Bool("lastExitOK", lastExitOK))
	}
	if err := s.commitLog.load(); err != nil {
		return err
	}
	if err := s.queues.load(); err != nil {
		return err
	}
	if s.queues.list, err = s.queues.readList(); err != nil {
		return err
	}
	if err := s.checkpoint.open(); err != nil {
		return err
	}
	if err := s.indexService.load(lastExitOK); err != nil {
		return err
	}
	if err := s.recover(lastExitOK); err != nil {
		return err
	}
	ok = true
	s.loaded = true
	return nil
}

// makeDirs creates the store's directories — commitlog, consumequeue, config (the broker's
// and the schedule service's JSON files) and, unless messageIndexEnable=false, index — so a
// fresh store shows its whole layout and the disk check measures the partitions from the
// first pass: a directory that does not exist reads as unmeasurable (-1), which the clean
// service takes for a full disk. Java: DefaultMessageStore's constructor (MappedFile#ensureDirOK
// of the root, the CommitLog and the ConsumeQueue directories).
// Deviation: index and config are created here too (Java creates them with their first file).
func (s *DefaultMessageStore) makeDirs() error {
	dirs := []string{s.cfg.CommitLogDir(), s.cfg.ConsumeQueueDir(), filepath.Join(string(s.env.root), "config")}
	if s.cfg.MessageIndexEnable {
		dirs = append(dirs, s.cfg.IndexDir())
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("store: create directory: %w", err)
		}
	}
	return nil
}

func (s *DefaultMessageStore) lock() error {
	path := filepath.Join(string(s.env.root), "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: open lock file: %w", err)
	}
	if err := lockFileExclusive(int(f.Fd())); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %v", ErrStoreLocked, path, err)
	}
	if _, err := f.WriteAt([]byte("lock"), 0); err != nil {
		f.Close()
		return fmt.Errorf("store: write lock file: %w", err)
	}
	s.lockFile = f
	return nil
}

func (s *DefaultMessageStore) unlock() {
	if s.lockFile != nil {
		_ = unlockFile(int(s.lockFile.Fd()))
		s.lockFile.Close()
		s.lockFile = nil
	}
}

// recover: ConsumeQueues, then the check against consumequeue.list (consumeQueueTable#checkList:
// queues missing or shorter than the list says are marked for Start to rebuild), then the
// CommitLog (normally after a clean shutdown, abnormally when the abort file was left behind:
// the replay withholds from marked queues, so no unit lands after a hole), then the
// queue-offset table. Java: DefaultMessageStore#recover.
func (s *DefaultMessageStore) recover(lastExitOK bool) error {
	maxPhyOffsetOfConsumeQueue, err := s.queues.recover()
	if err != nil {
		return err
	}
	for _, q := range s.queues.checkList() {
		s.env.log.warn("a consume queue is missing or shorter than consumequeue.list says; Start rebuilds it from the CommitLog", "queue", q)
	}
	if lastExitOK {
		err = s.commitLog.recoverNormally(maxPhyOffsetOfConsumeQueue, s.queues)
	} else {
		s.queues.mode.Store(dispatchReplay)
		err = s.commitLog.recoverAbnormally(maxPhyOffsetOfConsumeQueue, s.queues, &s.dispatchers, s.indexService)
		s.queues.mode.Store(dispatchRun)
	}
	if err != nil {
		return err
	}
	s.recoverTopicQueueTable()
	return nil
}

// recoverTopicQueueTable rebuilds the CommitLog's next-offset table from each ConsumeQueue's
// max offset and corrects each queue's min offset. Java: DefaultMessageStore#recoverTopicQueueTable.
func (s *DefaultMessageStore) recoverTopicQueueTable() {
	table := map[topicQueueKey]QueueOffset{}
	minPhy := s.commitLog.getMinOffset()
	s.queues.forEach(func(cq *ConsumeQueue) {
		table[topicQueueKey{cq.topic, cq.queueID}] = cq.GetMaxOffsetInQueue()
		cq.correctMinOffset(minPhy)
	})
	s.commitLog.setTopicQueueTable(table)
}

// Start dispatches what the ConsumeQueues and the index miss (catchUp: from reputStartOffset
// to the CommitLog's end), rebuilds the queue-offset table, writes consumequeue.list, starts
// the reput and flush services (unless Options.ManualServices) and creates the abort file.
// Java: DefaultMessageStore#start.
// Deviation: the catch-up dispatch is one direct DoReput pass instead of polling the service
// once a second until it caught up.
func (s *DefaultMessageStore) Start() error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if !s.loaded {
		return ErrNotLoaded
	}
	if s.started {
		return nil
	}
	s.catchUp()
	s.recoverTopicQueueTable()
	// the list now says what this start found and rebuilt (rebuilt units count once flushed),
	// so a queue that could not be rebuilt is not looked for again
	if err := s.queues.writeList(s.reput.ReputFromOffset()); err != nil {
		s.env.log.error("write consume queue list", err)
	}

	f, err := os.OpenFile(s.abortFile(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("store: create abort file: %w", err)
	}
	f.Close()
	if s.transientStorePool != nil {
		if err := s.transientStorePool.init(); err != nil {
			return err
		}
	}
	s.allocate.start()
	s.logPreallocation()
	if !s.opts.ManualServices {
		s.reput.start()
		s.flushCQ.start()
		s.commitLog.start()
		s.cleanService.RunEvery(cleanFirstDelay, s.cfg.CleanResourceInterval, s.CleanFilesPeriodically)
		s.diskCheckService.RunEvery(time.Second, diskCheckInterval, func() { s.IsSpaceFull() })
		s.statsService.RunEvery(time.Second, time.Second, func() { s.stats.Sample(s.env.clock.now()) })
	}
	s.started = true
	s.flags.shutdown.Store(false)
	return nil
}

// catchUpPasses bounds Start's catch-up passes: a pass that finds a queue with a hole
// (consumeQueueTable#forDispatch) marks it, and the next pass dispatches again from its end.
const catchUpPasses = 3

// catchUp is Start's dispatch: from reputStartOffset to the CommitLog's end, again from the
// lowest new mark while a pass marked a queue for rebuilding (at most catchUpPasses); then
// the marks are cleared.
func (s *DefaultMessageStore) catchUp() {
	s.queues.mode.Store(dispatchCatchUp)
	for pass := 0; pass < catchUpPasses; pass++ {
		marks := s.queues.marks()
		s.reput.catchUp(s.reputStartOffset())
		if s.queues.marks() == marks {
			break
		}
	}
	s.queues.mode.Store(dispatchRun)
	s.queues.clearRebuild()
}

// reputStartOffset is the CommitLog offset (bytes, a record boundary) Start's dispatch
// begins at: Java's start, the largest end (MaxPhysicOffset) of any ConsumeQueue (every
// record before it was dispatched to every queue: dispatch runs in CommitLog order, and
// abnormal recovery replays from the checkpoint's file what an unflushed queue lost),
// lowered to the end of each queue that may miss units (ConsumeQueue#mayMiss: files of it
// dropped or lost), to where each queue marked for rebuilding needs it (consumequeue.list
// named it and it is missing or short, or a recovery dispatch found a hole in it:
// consumeQueueTable#rebuild), to the CommitLog's min offset when there is no queue and no
// list, and with messageIndexEnable to the offset of the last record the index holds
// (IndexService#endPhyOffset); never below the CommitLog's min offset. Records a queue or
// the index already holds are skipped (ReputMessageService#catchUp), so the queue rebuilt
// reaches the number of its messages in the CommitLog, and a new message continues its
// queue's offsets.
//
// Deviation: Java starts from the largest end and never lowers it: a queue that lost its
// tail file while the others kept theirs (or an index file deleted after a crash) is then
// never rebuilt, and the next message to that queue gets a queue offset its earlier
// messages hold. A start re-reads the CommitLog only from the end of a damaged queue or the
// index, not from the end of the least recently written one (TestStartReReadsOnlyForDamage).
func (s *DefaultMessageStore) reputStartOffset() CommitLogOffset {
	minOffset := max(s.commitLog.getMinOffset(), 0)
	from, damaged := minOffset, s.commitLog.getMaxOffset()
	queues := 0
	s.queues.forEach(func(cq *ConsumeQueue) {
		queues++
		from = max(from, cq.MaxPhysicOffset())
		if cq.mayMiss(s.queues.list) {
			damaged = min(damaged, max(cq.MaxPhysicOffset(), minOffset))
		}
	})
	if queues == 0 && s.queues.list == nil {
		from = minOffset // nothing says where a queue without a file ended
	}
	if r, ok := s.queues.rebuildFrom(); ok {
		damaged = min(damaged, r)
	}
	from = min(from, damaged)
	if s.cfg.MessageIndexEnable {
		from = min(from, s.indexService.endPhyOffset())
	}
	return max(from, minOffset)
}

// commitLogFilesReady is how many CommitLog files exist, allocated in full, once the first
// message is stored: the one being written and the next one, which AllocateMappedFileService
// creates ahead (as Java's does whatever the settings; warmMapedFileEnable only decides
// whether its pages are touched too).
const commitLogFilesReady = 2

// logPreallocation writes one INFO line saying how much disk the store allocates: the
// CommitLog files ready (mappedFileSizeCommitLog each) and the size of each ConsumeQueue file
// (one per queue a message reaches; mappedFileSizeConsumeQueue). With the write-buffer pool
// it adds the pool's memory. A newcomer's first message costs about 2 GiB with the defaults.
func (s *DefaultMessageStore) logPreallocation() {
	commitLog := int64(commitLogFilesReady) * int64(s.cfg.MappedFileSizeCommitLog)
	cq := int64(s.cfg.ConsumeQueueFileSize())
	args := []any{"commitLogFileSize", s.cfg.MappedFileSizeCommitLog, "commitLogFilesReady", commitLogFilesReady,
		"consumeQueueFileSize", cq,
		"footprint", fmt.Sprintf("%s + %s per queue written", byteSize(commitLog), byteSize(cq))}
	if p := s.transientStorePool; p != nil {
		args = append(args, "transientStorePoolMemory", byteSize(int64(p.poolSize)*int64(p.fileSize)))
	}
	s.env.log.info("store preallocates disk", args...)
}

// byteSize renders n bytes in binary units with one decimal ("2.0 GiB", "5.7 MiB", "512 B").
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for ; v >= unit && i < 3; i++ {
		v /= unit
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}

// Shutdown stops the services, dispatches and flushes everything, writes the checkpoint,
// removes the abort file (if everything was dispatched and the store is writable — a store
// that was marked disk-full or broken keeps it, so the next start recovers abnormally),
// unmaps the files and releases the lock. Safe to call more than once.
// Java: DefaultMessageStore#shutdown.
func (s *DefaultMessageStore) Shutdown() {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if !s.loaded {
		return
	}
	s.flags.shutdown.Store(true)
	s.commitLog.waitForAppend()
	if s.started {
		s.cleanService.Shutdown()
		s.diskCheckService.Shutdown()
		s.statsService.Shutdown()
		s.reput.shutdown()
		// commit the write buffers, answer SYNC_FLUSH puts still waiting, flush what is left,
		// then the ConsumeQueues and the checkpoint
		s.commitLog.shutdownServices(s.opts.ManualServices)
		if s.opts.ManualServices {
			s.flushCQ.doFlush(true)
		} else {
			s.flushCQ.shutdown()
		}
		s.allocate.shutdown()
		if err := s.checkpoint.Flush(); err != nil {
			s.env.log.error("flush checkpoint", err)
		}
		if s.flags.isWriteable() && s.reput.behind() == 0 {
			if err := os.Remove(s.abortFile()); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.env.log.error("remove abort file", err)
			}
		} else {
			s.env.log.warn("the store may be wrong, so shutdown abnormally, and keep abort file")
		}
	}
	s.indexService.shutdown()
	s.commitLog.mfq.shutdown()
	s.queues.forEach(func(cq *ConsumeQueue) { cq.mfq.shutdown() })
	if s.transientStorePool != nil && s.started {
		s.transientStorePool.destroy()
	}
	_ = s.checkpoint.shutdown()
	s.unlock()
	s.loaded = false
	if s.started {
		s.closed = true // its services cannot run again
	}
	s.started = false
}
