package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// dropBrokenFiles deletes, before the queue's files are mapped, every file from the first one
// that breaks the queue: a file whose start offset does not follow the one before it (a
// middle file was lost) and every file after it, or a last file that is not
// mappedFileSizeConsumeQueue bytes (truncated, or never allocated whole). The queue then ends
// at the file before; the units of the dropped files are derived data, which Start's dispatch
// writes again from the CommitLog (DefaultMessageStore#reputStartOffset). A file of the wrong
// size that is not the last is left alone, so MappedFileQueue#load reports it
// (ErrFileSize: the mappedFileSize settings changed).
//
// Deviation: Java maps whatever files it finds; a lost middle file leaves a hole its reads
// fall into, and a short file fails the mapping.
func (cq *ConsumeQueue) dropBrokenFiles() error {
	dir := cq.mfq.storePath
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: load %s: %w", dir, err)
	}
	type file struct {
		name string
		from int64
		size int64
	}
	var files []file
	for _, e := range entries {
		name := e.Name()
		from, perr := strconv.ParseInt(name, 10, 64)
		if e.IsDir() || strings.HasSuffix(name, tmpSuffix) || perr != nil || len(name) != 20 {
			continue // MappedFileQueue#load removes or refuses these
		}
		info, err := e.Info()
		if err != nil {
			return fmt.Errorf("store: load %s: %w", dir, err)
		}
		files = append(files, file{name, from, info.Size()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].from < files[j].from })
	size := int64(cq.fileSize)
	cut := len(files)
	for i, f := range files {
		gap := i > 0 && f.from != files[i-1].from+size
		short := f.size != size && i == len(files)-1
		if gap || short {
			cut = i
			break
		}
	}
	cq.dropped = cut < len(files)
	for _, f := range files[cut:] {
		cq.env.log.warn("deleting a consume queue file that breaks its queue; dispatch rebuilds its units",
			"file", cq.env.root.rel(filepath.Join(dir, f.name)), "size", f.size, "mappedFileSizeConsumeQueue", size)
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("store: drop consume queue file: %w", err)
		}
	}
	return nil
}

// mayMiss reports whether the queue may lack units for records before its end, so that
// Start's dispatch must begin at its MaxPhysicOffset: load dropped files of it
// (dropBrokenFiles), or — for a queue consumequeue.list gives no length of (list) — it ends on
// a file boundary (no unit, or its last file full or wholly zero), which is how a queue that
// lost its last file, or whose last file was zero-filled, looks. A queue the list gives a
// length of was compared with it (consumeQueueTable#checkList: a short one is marked for
// rebuilding), so it may miss nothing else. A queue that merely has no recent message does
// not, so one cold queue does not make every start re-read the CommitLog written since its
// last message.
//
// Deviation: Java trusts every queue after a clean stop.
func (cq *ConsumeQueue) mayMiss(list *queueList) bool {
	if cq.dropped {
		return true
	}
	if list != nil {
		if e, ok := list.queues[topicQueueKey{cq.topic, cq.queueID}]; ok && e.maxOffset >= 0 {
			return false
		}
	}
	end := cq.GetMaxOffsetInQueue()
	return cq.MaxPhysicOffset() < 0 || int64(end)*ConsumeQueueUnitSize%int64(cq.fileSize) == 0
}
