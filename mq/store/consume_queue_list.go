package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// consumeQueueListFile is the store-root file that says which queues the store had and how
// long each was on disk. It is new to this project (Java has no such file and ignores it).
// Text, one line each:
//
//	reputFromOffset <CommitLog offset, bytes>       every record below it had been dispatched
//	<topic>/<queueId> <maxOffset> <minPhysicOffset>  per queue with files, in (topic, queueId) order
//
// maxOffset is the queue's flushed end in ConsumeQueue units (its units on disk), and
// minPhysicOffset the CommitLog offset (bytes) of the unit at its min offset (-1: none). A
// line "<topic>/<queueId>" alone (the first version of the file) names a queue without a
// length.
const consumeQueueListFile = "consumequeue.list"

// queueListEntry is one queue's line of consumequeue.list.
type queueListEntry struct {
	maxOffset       QueueOffset     // units on disk when the list was written; -1: not recorded
	minPhysicOffset CommitLogOffset // the unit at the queue's min offset points here; -1: unknown
}

// queueList is consumequeue.list as read at Load.
type queueList struct {
	// reputFromOffset: every CommitLog record below it had been dispatched when the list was
	// written, so a queue of such a record that the list does not name had been deleted (or
	// has no unit). -1: not recorded.
	reputFromOffset CommitLogOffset
	queues          map[topicQueueKey]queueListEntry
}

// deletedBefore reports whether a record at offset of a queue the list does not name belongs to a
// queue that no longer exists (a deleted topic): the list was written after the record was
// dispatched.
func (l *queueList) deletedBefore(key topicQueueKey, offset CommitLogOffset) bool {
	if l == nil || l.reputFromOffset < 0 {
		return false
	}
	_, named := l.queues[key]
	return !named && offset < l.reputFromOffset
}

func (t *consumeQueueTable) listPath() string {
	return filepath.Join(string(t.env.root), consumeQueueListFile)
}

// writeList writes consumequeue.list: reputFromOffset, then every queue that has at least one
// file (a queue created by a lookup only has none) with its flushed end and the CommitLog
// offset of its first valid unit. Written atomically: a temporary file, fsync, rename, fsync
// of the store root, so a crash or a power cut leaves the old list or the new one. Called
// after a checkpoint flush (FlushConsumeQueueService, which includes the clean stop's last
// pass), by Start once its dispatch caught up, and by DeleteTopics; listMu keeps a list built before a deletion from being written
// after the deletion's own.
//
// Deviation: Java keeps no record of which queues exist and how long they are beyond their
// files, so a queue whose directory is deleted comes back empty, one whose last file lost
// some units comes back short (its next message reusing a queue offset), and a deleted
// topic comes back after a crash (abnormal recovery dispatches its records again). The list
// lets Load notice all three (checkList, consumeQueueTable#forDispatch).
func (t *consumeQueueTable) writeList(reputFromOffset CommitLogOffset) error {
	t.listMu.Lock()
	defer t.listMu.Unlock()
	var b bytes.Buffer
	fmt.Fprintf(&b, "reputFromOffset %d\n", reputFromOffset)
	t.forEach(func(cq *ConsumeQueue) {
		if len(cq.mfq.MappedFiles()) > 0 {
			fmt.Fprintf(&b, "%s/%d %d %d\n", cq.topic, cq.queueID, cq.mfq.flushedWhere.Load()/ConsumeQueueUnitSize, cq.minPhysicOffset())
		}
	})
	tmp := t.listPath() + tmpSuffix
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("store: write %s: %w", consumeQueueListFile, err)
	}
	_, err = f.Write(b.Bytes())
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, t.listPath())
	}
	if err == nil {
		err = syncDir(string(t.env.root))
	}
	if err != nil {
		return fmt.Errorf("store: write %s: %w", consumeQueueListFile, err)
	}
	return nil
}

// minPhysicOffset is the CommitLog offset of the unit at the queue's min offset, -1 if there
// is none (or it is a blank unit).
func (cq *ConsumeQueue) minPhysicOffset() CommitLogOffset {
	u, ok := cq.getUnit(cq.GetMinOffsetInQueue())
	if !ok || isBlankUnit(int64(u.CommitLogOffset), u.Size) || u.Size <= 0 {
		return -1
	}
	return u.CommitLogOffset
}

// readList reads consumequeue.list; nil when there is none (a store Java wrote, a first
// start, a crash before the first checkpoint flush). A line that does not parse is skipped.
func (t *consumeQueueTable) readList() (*queueList, error) {
	data, err := os.ReadFile(t.listPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", consumeQueueListFile, err)
	}
	l := &queueList{reputFromOffset: -1, queues: map[topicQueueKey]queueListEntry{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "reputFromOffset" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				l.reputFromOffset = CommitLogOffset(n)
			}
			continue
		}
		if len(f) != 1 && len(f) != 3 {
			continue
		}
		i := strings.LastIndexByte(f[0], '/')
		if i <= 0 {
			continue
		}
		id, err := strconv.ParseInt(f[0][i+1:], 10, 32)
		if err != nil {
			continue
		}
		e := queueListEntry{maxOffset: -1, minPhysicOffset: -1}
		if len(f) == 3 {
			maxOffset, err1 := strconv.ParseInt(f[1], 10, 64)
			minPhy, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			e = queueListEntry{QueueOffset(maxOffset), CommitLogOffset(minPhy)}
		}
		l.queues[topicQueueKey{f[0][:i], int32(id)}] = e
	}
	return l, nil
}

// checkList compares the recovered queues with the list Load read (before the CommitLog's
// recovery) and marks for rebuilding (markRebuild) each queue it names that is missing (its
// directory deleted: from the CommitLog offset of its first unit) or holds fewer units than
// the list says (a trailing file partly zeroed or lost: from the end of its last unit). It
// returns the queues marked, "topic/queueId", in (topic, queueId) order.
func (t *consumeQueueTable) checkList() []string {
	if t.list == nil {
		return nil
	}
	keys := make([]topicQueueKey, 0, len(t.list.queues))
	for key := range t.list.queues {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].topic != keys[j].topic {
			return keys[i].topic < keys[j].topic
		}
		return keys[i].queueID < keys[j].queueID
	})
	var marked []string
	for _, key := range keys {
		e := t.list.queues[key]
		cq := t.get(key.topic, key.queueID)
		switch {
		case cq == nil || len(cq.mfq.MappedFiles()) == 0:
			t.markRebuild(key, e.minPhysicOffset)
		case e.maxOffset >= 0 && cq.GetMaxOffsetInQueue() < e.maxOffset:
			from := cq.MaxPhysicOffset()
			if from < 0 {
				from = e.minPhysicOffset
			}
			t.markRebuild(key, from)
		default:
			continue
		}
		marked = append(marked, fmt.Sprintf("%s/%d", key.topic, key.queueID))
	}
	return marked
}
