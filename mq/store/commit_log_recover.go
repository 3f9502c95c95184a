package store

import (
	"fmt"
	"log/slog"
)

// recoverNormally finds the end of the log after a clean shutdown: from the third-to-last file
// it checks records (CRC per checkCRCOnRecover) until the first invalid one, moving to the
// next file at a blank record; the stop point becomes the end of the log and everything
// after it is truncated. ConsumeQueues referring to data at or past that end are truncated.
// Java: CommitLog#recoverNormally.
func (c *CommitLog) recoverNormally(maxPhyOffsetOfConsumeQueue CommitLogOffset, queues *consumeQueueTable) error {
	env := c.env
	files := c.mfq.MappedFiles()
	if len(files) == 0 {
		c.mfq.setFlushedAndCommittedWhere(0)
		if env.tracer.Enabled() {
			env.tracer.Step("CommitLog#recoverNormally", slog.Int("files", 0), slog.Int64("processOffset", 0))
		}
		return queues.destroyLogics()
	}
	index := max(len(files)-3, 0)
	var rr recordReader
	processOffset, _ := c.scanFrom(files, index, &rr, nil)
	if env.tracer.Enabled() {
		env.tracer.Step("CommitLog#recoverNormally", slog.String("startFile", env.root.rel(files[index].path)),
			slog.Int64("processOffset", int64(processOffset)), slog.Int64("maxPhyOffsetOfConsumeQueue", int64(maxPhyOffsetOfConsumeQueue)))
	}
	return c.endAt(processOffset, maxPhyOffsetOfConsumeQueue, queues)
}

// scanFrom checks the records from the start of files[index] on (CRC per checkCRCOnRecover,
// PHYSICALOFFSET = position), moving to the next file at a blank record, and returns the
// offset of the first record that fails (or the end of the last file) and how many passed;
// onRecord, if set, gets each valid record. The scan of CommitLog#recoverNormally and
// #recoverAbnormally.
func (c *CommitLog) scanFrom(files []*MappedFile, index int, rr *recordReader, onRecord func(*DispatchRequest)) (CommitLogOffset, int) {
	mf := files[index]
	processOffset := CommitLogOffset(mf.fileFromOffset)
	var fileOffset CommitLogOffset
	records := 0
	for {
		d := rr.checkMessageAndReturnSize(mf.data[fileOffset:], c.env.cfg.CheckCRCOnRecover, processOffset+fileOffset)
		if d.Success && d.MsgSize > 0 {
			if onRecord != nil {
				onRecord(&d)
			}
			records++
			fileOffset += CommitLogOffset(d.MsgSize)
			continue
		}
		if d.Success && d.MsgSize == 0 {
			if !c.blankEndsFile(mf, fileOffset) {
				break
			}
			index++
			if index >= len(files) {
				break
			}
			mf = files[index]
			processOffset, fileOffset = CommitLogOffset(mf.fileFromOffset), 0
			continue
		}
		break
	}
	return processOffset + fileOffset, records
}

// blankEndsFile checks the BLANK record at fileOffset of mf: its TOTALSIZE must reach the
// end of the file, as every BLANK record the store writes does. One that ends inside the file
// is logged at ERROR. On a slave it is the trace of a master with smaller CommitLog files (a
// store written without appendData's check, e.g. by RocketMQ): the scan stops there (false),
// so the log ends at the BLANK record and HA's next append there is refused with
// ErrFileSizeMismatch — the records after it, which the reput would never have dispatched,
// are truncated, the master still has them. On a master the scan goes on in the next file
// (true), as Java's does: truncating there would drop acknowledged messages for one bad header.
//
// Deviation: Java's recovery moves to the next file at any BLANK record.
func (c *CommitLog) blankEndsFile(mf *MappedFile, fileOffset CommitLogOffset) bool {
	totalSize := int64(int32(be32(mf.data[fileOffset:])))
	if int64(fileOffset)+totalSize == int64(mf.fileSize) {
		return true
	}
	slave := c.env.cfg.BrokerRole == Slave
	args := []any{"file", mf.name, "position", int64(fileOffset), "totalSize", totalSize, "mappedFileSizeCommitLog", mf.fileSize}
	if slave {
		c.env.log.errorMsg("recover commitlog: a BLANK record ends inside its file: the master's mappedFileSizeCommitLog "+
			"differs from this slave's; the log is cut at the record (set the slave's to the master's, remove its store directory)", args...)
	} else {
		c.env.log.errorMsg("recover commitlog: a BLANK record ends inside its file (corrupt); going on in the next file", args...)
	}
	return !slave
}

// endAt makes processOffset the end of the log: the flush and commit positions are set there,
// everything after it is truncated, and so are ConsumeQueue units referring to data at or past
// it.
func (c *CommitLog) endAt(processOffset, maxPhyOffsetOfConsumeQueue CommitLogOffset, queues *consumeQueueTable) error {
	c.mfq.setFlushedAndCommittedWhere(int64(processOffset))
	if err := c.mfq.truncateDirtyFiles(int64(processOffset)); err != nil {
		return fmt.Errorf("recover commitlog: %w", err)
	}
	if maxPhyOffsetOfConsumeQueue >= processOffset {
		// Java warns on >=; equality is the normal clean-shutdown case (the queues end exactly
		// where the log ends), so only a real overrun is a warning here.
		if maxPhyOffsetOfConsumeQueue > processOffset {
			c.env.log.warn("consume queues reach past the commitlog end; truncating them",
				"maxPhyOffsetOfConsumeQueue", maxPhyOffsetOfConsumeQueue, "processOffset", processOffset)
		}
		return queues.truncateDirtyLogicFiles(processOffset)
	}
	return nil
}

// recoverAbnormally finds the end of the log after an unclean exit (the abort file was left
// behind). It starts from the newest file whose first record is a message stored at or
// before the checkpoint's recovery time (min(physic, logics) − 3 s; with messageIndexEnable
// and messageIndexSafe also the index time), or from the first file if none is. From there
// it checks every record with its CRC (per checkCRCOnRecover), dispatches each valid one
// again — ConsumeQueue units already present and index entries below the index's end are
// skipped, and a queue marked for rebuilding or that a record would leave a hole in gets
// nothing (consumeQueueTable#forDispatch: Start rebuilds it from where it needs) — moves to
// the next file at a blank record, and stops at the first invalid record:
// a torn or corrupt tail is truncated there, and ConsumeQueue units reaching past it too.
// Java: CommitLog#recoverAbnormally.
//
// Recovery reaches past the log, as Java's does through defaultMessageStore: the replayed
// records go to dispatchers, and queues and index are cut back to the recovered end.
//
// Deviation: when the index ends before the start file (its files lost, or deleted by
// IndexService#load as unflushed), the replayed records go to the ConsumeQueues only, and
// Start's dispatch indexes everything from the index's end. Java indexes them here, and the
// index never holds the records between.
func (c *CommitLog) recoverAbnormally(maxPhyOffsetOfConsumeQueue CommitLogOffset, queues *consumeQueueTable,
	dispatchers *dispatcherList, indexService *IndexService) error {
	env := c.env
	files := c.mfq.MappedFiles()
	if len(files) == 0 {
		if env.tracer.Enabled() {
			env.tracer.Step("CommitLog#recoverAbnormally", slog.Int("files", 0), slog.Int64("processOffset", 0))
		}
		env.log.warn("the commitlog files are deleted; deleting the consume queues")
		c.mfq.setFlushedAndCommittedWhere(0)
		return queues.destroyLogics()
	}
	index := len(files) - 1
	for ; index >= 0; index-- {
		if c.isMappedFileMatchedRecover(files[index]) {
			break
		}
	}
	index = max(index, 0)
	dispatch := dispatchers.dispatch
	if end := indexService.endPhyOffset(); env.cfg.MessageIndexEnable && index > 0 && int64(end) < files[index].fileFromOffset {
		// the index has one end and takes records in order: those it misses before the start
		// file come first, at Start (reputStartOffset), so it gets none from here
		env.log.warn("the index ends before the recovery start file; Start indexes the records from its end",
			"indexEndPhyOffset", end, "startFile", env.root.rel(files[index].path))
		dispatch = dispatchers.dispatchExceptIndex
	}
	rr := recordReader{delayLevels: c.delayLevels}
	processOffset, dispatched := c.scanFrom(files, index, &rr, dispatch)
	if env.tracer.Enabled() {
		env.tracer.Step("CommitLog#recoverAbnormally", slog.String("startFile", env.root.rel(files[index].path)),
			slog.Int("dispatched", dispatched), slog.Int64("processOffset", int64(processOffset)),
			slog.Int64("maxPhyOffsetOfConsumeQueue", int64(maxPhyOffsetOfConsumeQueue)))
	}
	indexService.truncateEnd(processOffset)
	return c.endAt(processOffset, maxPhyOffsetOfConsumeQueue, queues)
}

// isMappedFileMatchedRecover: the file's first record is a message (magic) with a non-zero
// store time at or before the checkpoint's recovery time. Java: CommitLog#isMappedFileMatchedRecover.
func (c *CommitLog) isMappedFileMatchedRecover(mf *MappedFile) bool {
	cfg := c.env.cfg
	d := mf.data
	if be32(d[posMagic:]) != messageMagicCode {
		return false
	}
	storeTs := int64(be64(d[storeTimestampPos(int32(be32(d[posSysFlag:]))):]))
	if storeTs == 0 {
		return false
	}
	if cfg.MessageIndexEnable && cfg.MessageIndexSafe {
		return storeTs <= c.checkpoint.MinTimestampIndex()
	}
	return storeTs <= c.checkpoint.MinTimestamp()
}
