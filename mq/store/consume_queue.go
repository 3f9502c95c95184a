package store

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// ConsumeQueueUnitSize is the size of one ConsumeQueue unit: commitLogOffset int64, size
// int32, tagsCode int64 (store-formats.md §3.1). Java: ConsumeQueue#CQ_STORE_UNIT_SIZE.
const ConsumeQueueUnitSize = 20

// ConsumeQueue is the index of one queue (topic, queueId): a MappedFileQueue of 20-byte units
// under consumequeue/<topic>/<queueId>/, one unit per message in queue-offset order. Unit k
// (a queue offset, in ConsumeQueue units) is at byte k·20 of the log. Only the reput service
// writes it; readers use the atomically published write position.
// Mirrors org.apache.rocketmq.store.ConsumeQueue.
type ConsumeQueue struct {
	env        *storeEnv
	checkpoint *StoreCheckpoint // unit store times (logicsMsgTimestamp)
	flags      *runningFlags    // a failed write marks the logics queues broken
	topic      string
	queueID    int32
	mfq        *MappedFileQueue
	fileSize   int

	// maxPhysicOffset is the end (offset + size, bytes) of the last CommitLog record indexed;
	// -1 before any. Written by the reput goroutine (and recovery).
	maxPhysicOffset atomic.Int64
	// minLogicOffset is the byte offset of the first valid unit.
	minLogicOffset atomic.Int64
	// dropped: load deleted files that broke the queue (dropBrokenFiles), so its units must
	// be rebuilt from its end (DefaultMessageStore#reputStartOffset). Set before Start.
	dropped bool

	unit [ConsumeQueueUnitSize]byte // scratch for the writer
}

func newConsumeQueue(env *storeEnv, checkpoint *StoreCheckpoint, flags *runningFlags, topic string, queueID int32) *ConsumeQueue {
	dir := filepath.Join(env.cfg.ConsumeQueueDir(), topic, strconv.Itoa(int(queueID)))
	cq := &ConsumeQueue{env: env, checkpoint: checkpoint, flags: flags, topic: topic, queueID: queueID,
		fileSize: env.cfg.ConsumeQueueFileSize()}
	cq.mfq = newMappedFileQueue(dir, env.root.rel(dir), cq.fileSize, nil, nil)
	cq.mfq.hooks = env.events()
	cq.maxPhysicOffset.Store(-1)
	return cq
}

// Topic and QueueID name the queue.
func (cq *ConsumeQueue) Topic() string  { return cq.topic }
func (cq *ConsumeQueue) QueueID() int32 { return cq.queueID }

// MaxPhysicOffset is the end (bytes) of the last CommitLog record this queue indexes, or -1.
func (cq *ConsumeQueue) MaxPhysicOffset() CommitLogOffset {
	return CommitLogOffset(cq.maxPhysicOffset.Load())
}

// load maps the queue's files after dropping those that break it (dropBrokenFiles).
func (cq *ConsumeQueue) load() error {
	if err := cq.dropBrokenFiles(); err != nil {
		return err
	}
	return cq.mfq.load()
}

// recover finds the end of the queue: from the third-to-last file it reads units until one
// with offset < 0 or size <= 0, continuing into the next file only when the current one was
// full; positions are set there and later files deleted.
// Java: ConsumeQueue#recover.
//
// Deviation: Java trusts every file before the third-to-last. After a power cut while the
// flush lagged more than three files behind, an earlier file may never have reached the disk
// (its last unit reads as zero); recovery then starts at the first such file.
func (cq *ConsumeQueue) recover() error {
	files := cq.mfq.MappedFiles()
	if len(files) == 0 {
		return nil
	}
	index := max(len(files)-3, 0)
	for index > 0 && !cq.lastUnitValid(files[index-1]) {
		index--
	}
	if index > 0 { // the end of what the files before the scan index (when no unit follows)
		if offset, size := cq.lastUnit(files[index-1]); !isBlankUnit(offset, size) {
			cq.maxPhysicOffset.Store(offset + int64(size))
		}
	}
	mf := files[index]
	processOffset := mf.fileFromOffset
	fileOffset := 0
	be := binary.BigEndian
	for {
		for i := 0; i < cq.fileSize; i += ConsumeQueueUnitSize {
			offset := int64(be.Uint64(mf.data[i:]))
			size := int32(be.Uint32(mf.data[i+8:]))
			if offset >= 0 && size > 0 {
				fileOffset = i + ConsumeQueueUnitSize
				if !isBlankUnit(offset, size) {
					cq.maxPhysicOffset.Store(offset + int64(size))
				}
			} else {
				break
			}
		}
		if fileOffset == cq.fileSize && index+1 < len(files) {
			index++
			mf = files[index]
			processOffset, fileOffset = mf.fileFromOffset, 0
			continue
		}
		break
	}
	end := processOffset + int64(fileOffset)
	cq.mfq.flushedWhere.Store(end)
	if err := cq.mfq.truncateDirtyFiles(end); err != nil {
		return fmt.Errorf("recover consumequeue %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.zeroStaleUnits()
	return nil
}

// lastUnit reads the last unit of a (loaded, full) file.
func (cq *ConsumeQueue) lastUnit(mf *MappedFile) (offset int64, size int32) {
	i := cq.fileSize - ConsumeQueueUnitSize
	return int64(binary.BigEndian.Uint64(mf.data[i:])), int32(binary.BigEndian.Uint32(mf.data[i+8:]))
}

// lastUnitValid reports whether the last unit of a (loaded, full) file was written.
func (cq *ConsumeQueue) lastUnitValid(mf *MappedFile) bool {
	offset, size := cq.lastUnit(mf)
	return offset >= 0 && size > 0
}

// zeroStaleUnits clears units left after the write position of the last file (up to the
// first all-zero unit), so a later recovery cannot read them back as valid.
// Deviation: Java leaves them; a shorter re-dispatch after a truncation could then resurrect
// stale units at the next restart.
func (cq *ConsumeQueue) zeroStaleUnits() {
	mf := cq.mfq.LastMappedFile()
	if mf == nil {
		return
	}
	for i := mf.WrotePosition(); i+ConsumeQueueUnitSize <= cq.fileSize; i += ConsumeQueueUnitSize {
		u := mf.data[i : i+ConsumeQueueUnitSize]
		zero := true
		for _, c := range u {
			if c != 0 {
				zero = false
				break
			}
		}
		if zero {
			return
		}
		clear(u)
	}
}

// truncateDirtyLogicFiles drops every unit pointing at CommitLog offset phyOffset or beyond:
// from the last file backwards, a file whose first unit is already past is deleted; in the
// first file that is not, the write position is set after the last unit below phyOffset.
// Java: ConsumeQueue#truncateDirtyLogicFiles.
//
// Deviation: Java first sets maxPhysicOffset to phyOffset, so a queue left without units
// (its files lost) would take every record before phyOffset as built; here it is the end of
// the last unit kept, -1 with none. A last file whose first unit was never written (the queue rolled to it just
// before a power cut) is deleted too, unless it is the only file (it then keeps the queue's
// logical offset), and the truncation goes on in the file before it. Java stops at such a
// file and keeps the units before it, even those pointing past the recovered log.
func (cq *ConsumeQueue) truncateDirtyLogicFiles(phyOffset CommitLogOffset) error {
	cq.maxPhysicOffset.Store(-1) // until a unit kept says where the queue ends
	be := binary.BigEndian
	for {
		mf := cq.mfq.LastMappedFile()
		if mf == nil {
			return nil
		}
		mf.setPositions(0)
		first, firstSize := int64(be.Uint64(mf.data[0:])), int32(be.Uint32(mf.data[8:]))
		empty := first < 0 || firstSize <= 0 // rolled to and never written: the units are before it
		if first >= int64(phyOffset) || (empty && len(cq.mfq.MappedFiles()) > 1) {
			if err := cq.mfq.deleteLastMappedFile(); err != nil {
				return err
			}
			continue
		}
		for i := 0; i < cq.fileSize; i += ConsumeQueueUnitSize {
			offset := int64(be.Uint64(mf.data[i:]))
			size := int32(be.Uint32(mf.data[i+8:]))
			if offset < 0 || size <= 0 || offset >= int64(phyOffset) {
				break
			}
			mf.setPositions(i + ConsumeQueueUnitSize)
			if !isBlankUnit(offset, size) {
				cq.maxPhysicOffset.Store(offset + int64(size))
			}
		}
		cq.zeroStaleUnits()
		return nil
	}
}

// correctMinOffset sets the min offset to the first unit of the first file that points at or
// beyond the CommitLog's min offset phyMinOffset. Java: ConsumeQueue#correctMinOffset.
func (cq *ConsumeQueue) correctMinOffset(phyMinOffset CommitLogOffset) {
	mf := cq.mfq.FirstMappedFile()
	if mf == nil {
		return
	}
	r, ok := mf.selectMappedBufferFrom(0)
	if !ok {
		return
	}
	defer r.Release()
	for i := 0; i+ConsumeQueueUnitSize <= len(r.Data); i += ConsumeQueueUnitSize {
		if CommitLogOffset(binary.BigEndian.Uint64(r.Data[i:])) >= phyMinOffset {
			cq.minLogicOffset.Store(mf.fileFromOffset + int64(i))
			return
		}
	}
}

// GetMinOffsetInQueue is the first valid queue offset (units). Java: ConsumeQueue#getMinOffsetInQueue.
func (cq *ConsumeQueue) GetMinOffsetInQueue() QueueOffset {
	return QueueOffset(cq.minLogicOffset.Load() / ConsumeQueueUnitSize)
}

// GetMaxOffsetInQueue is the number of units written: the next queue offset (units).
// Java: ConsumeQueue#getMaxOffsetInQueue.
func (cq *ConsumeQueue) GetMaxOffsetInQueue() QueueOffset {
	return QueueOffset(cq.mfq.getMaxOffset() / ConsumeQueueUnitSize)
}

// putMessagePositionInfoWrapper writes the unit for one dispatched record and records its
// store time in the checkpoint. Java: ConsumeQueue#putMessagePositionInfoWrapper.
// Deviation: Java retries a failed write 30 times a second apart before marking the logic
// queues broken; we mark them at once (puts then get SERVICE_NOT_AVAILABLE).
func (cq *ConsumeQueue) putMessagePositionInfoWrapper(d *DispatchRequest) {
	if !cq.flags.isCQWriteable() {
		return
	}
	ok, err := cq.putMessagePositionInfo(d.CommitLogOffset, d.MsgSize, d.TagsCode, d.ConsumeQueueOffset)
	if !ok {
		cq.env.log.error(fmt.Sprintf("consume queue %s/%d can not be written", cq.topic, cq.queueID), err)
		cq.flags.logicsError.Store(true)
		return
	}
	if cq.env.cfg.BrokerRole == Slave {
		cq.checkpoint.setPhysicMsgTimestamp(d.StoreTimestamp)
	}
	cq.checkpoint.setLogicsMsgTimestamp(d.StoreTimestamp)
}

// isBlankUnit recognizes a fillPreBlank unit. Deviation: Java lets a blank unit's
// offset + size (0x7FFFFFFF) become maxPhysicOffset in recovery and truncation, which would
// make later dispatches look already built if only blanks remained; we skip blanks there.
func isBlankUnit(offset int64, size int32) bool { return offset == 0 && size == 0x7FFFFFFF }

// fillPreBlank writes blank units (offset 0, size 0x7FFFFFFF, tagsCode 0) before untilWhere
// in a queue's first file. Java: ConsumeQueue#fillPreBlank.
func (cq *ConsumeQueue) fillPreBlank(mf *MappedFile, untilWhere int64) {
	var blank [ConsumeQueueUnitSize]byte
	binary.BigEndian.PutUint32(blank[8:], 0x7FFFFFFF)
	until := int(untilWhere % int64(cq.fileSize))
	for i := 0; i < until; i += ConsumeQueueUnitSize {
		mf.appendBytes(blank[:])
	}
}

// CqUnit is one ConsumeQueue unit: the message at QueueOffset of its queue lies at
// CommitLogOffset, Size bytes (its TOTALSIZE); TagsCode is its tag hash, or for
// SCHEDULE_TOPIC_XXXX its deliver time (ms, store clock). Java: CqUnit (5.x).
type CqUnit struct {
	QueueOffset     QueueOffset
	CommitLogOffset CommitLogOffset
	Size            int32
	TagsCode        int64
}

// ConsumeQueueIterator reads the units of one queue from a queue offset to the end of the
// written part of the file holding it; it holds that file until Release. Java:
// ConsumeQueue#getIndexBuffer and the 20-byte stepping of its callers (ConsumeQueue#iterateFrom
// in 5.x).
type ConsumeQueueIterator struct {
	buf  SelectMappedBufferResult
	next QueueOffset // queue offset of the unit Next returns
	pos  int         // its byte position in buf
}

// iterateFrom returns an iterator at queue offset start; false when start is below the
// queue's min offset or lies in no file.
func (cq *ConsumeQueue) iterateFrom(start QueueOffset) (ConsumeQueueIterator, bool) {
	offset := int64(start) * ConsumeQueueUnitSize
	if offset < cq.minLogicOffset.Load() {
		return ConsumeQueueIterator{}, false
	}
	mf := cq.mfq.findMappedFileByOffset(offset, false)
	if mf == nil {
		return ConsumeQueueIterator{}, false
	}
	buf, ok := mf.selectMappedBufferFrom(int(offset % int64(cq.fileSize)))
	if !ok {
		return ConsumeQueueIterator{}, false
	}
	return ConsumeQueueIterator{buf: buf, next: start}, true
}

// IterateFrom is iterateFrom for callers outside the store (call Release when done).
func (cq *ConsumeQueue) IterateFrom(start QueueOffset) (*ConsumeQueueIterator, bool) {
	it, ok := cq.iterateFrom(start)
	if !ok {
		return nil, false
	}
	return &it, true
}

// Next returns the next unit; false at the end of the written part of the file.
func (it *ConsumeQueueIterator) Next() (CqUnit, bool) {
	if it.pos+ConsumeQueueUnitSize > it.buf.Size() {
		return CqUnit{}, false
	}
	be := binary.BigEndian
	b := it.buf.Data[it.pos:]
	u := CqUnit{QueueOffset: it.next, CommitLogOffset: CommitLogOffset(be.Uint64(b)), Size: int32(be.Uint32(b[8:])),
		TagsCode: int64(be.Uint64(b[12:]))}
	it.pos += ConsumeQueueUnitSize
	it.next++
	return u, true
}

// Release lets the file go (it may then be unmapped).
func (it *ConsumeQueueIterator) Release() { it.buf.Release() }

// getUnit reads the unit at queue offset index: false below the queue's min offset or not
// written yet.
func (cq *ConsumeQueue) getUnit(index QueueOffset) (CqUnit, bool) {
	it, ok := cq.iterateFrom(index)
	if !ok {
		return CqUnit{}, false
	}
	defer it.Release()
	return it.Next()
}

// rollNextFile is the first queue offset of the file after the one holding index.
// Java: ConsumeQueue#rollNextFile.
func (cq *ConsumeQueue) rollNextFile(index QueueOffset) QueueOffset {
	units := QueueOffset(cq.fileSize / ConsumeQueueUnitSize)
	return index + units - index%units
}

// flush flushes the file at the flush point if at least leastPages pages are new.
func (cq *ConsumeQueue) flush(leastPages int) (bool, error) { return cq.mfq.flush(leastPages) }

// destroy deletes the queue's files. Java: ConsumeQueue#destroy.
func (cq *ConsumeQueue) destroy() error {
	cq.maxPhysicOffset.Store(-1)
	cq.minLogicOffset.Store(0)
	return cq.mfq.destroy()
}

// deleteExpiredFile deletes the queue's files that only point below the CommitLog offset
// offset (bytes) and moves the min offset to the first unit at or above it.
// Java: ConsumeQueue#deleteExpiredFile.
func (cq *ConsumeQueue) deleteExpiredFile(offset CommitLogOffset) int {
	n := cq.mfq.deleteExpiredFileByOffset(int64(offset), ConsumeQueueUnitSize)
	cq.correctMinOffset(offset)
	return n
}
