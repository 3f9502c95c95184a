package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// consumeQueueListFile is the store-root file a clean stop writes: the queues that had files.
// It is new to this project (Java has no such file and ignores it): one line per queue,
// "topic/queueId\n", in (topic, queueId) order.
const consumeQueueListFile = "consumequeue.list"

func (t *consumeQueueTable) listPath() string {
	return filepath.Join(string(t.env.root), consumeQueueListFile)
}

// writeList writes consumequeue.list: every queue that has at least one file (a queue created
// by a lookup only has none). Written to a temporary file, synced and renamed, so a crash
// leaves the old list or the new one.
//
// Deviation: Java keeps no record of which queues exist beyond their directories, so a queue
// whose whole directory is deleted after a clean stop comes back empty; the list lets Load
// notice it (readList).
func (t *consumeQueueTable) writeList() error {
	var b bytes.Buffer
	t.forEach(func(cq *ConsumeQueue) {
		if len(cq.mfq.MappedFiles()) > 0 {
			fmt.Fprintf(&b, "%s/%d\n", cq.topic, cq.queueID)
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
	if err != nil {
		return fmt.Errorf("store: write %s: %w", consumeQueueListFile, err)
	}
	return nil
}

// readList reads consumequeue.list after load and returns the queues it names that have no
// file now (their directory was deleted since the clean stop that wrote it), in its order.
// No list (a store Java wrote, a first start, a start after a crash) finds nothing; a line
// that does not parse is skipped.
func (t *consumeQueueTable) readList() ([]string, error) {
	data, err := os.ReadFile(t.listPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", consumeQueueListFile, err)
	}
	var lost []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, '/')
		if i <= 0 {
			continue
		}
		id, err := strconv.ParseInt(line[i+1:], 10, 32)
		if err != nil {
			continue
		}
		if cq := t.get(line[:i], int32(id)); cq == nil || len(cq.mfq.MappedFiles()) == 0 {
			lost = append(lost, line)
		}
	}
	return lost, nil
}

// removeList deletes consumequeue.list once Start has dispatched what it named: a later
// crash must not find a list older than the queues (a topic deleted since would read as lost).
func (t *consumeQueueTable) removeList() error {
	if err := os.Remove(t.listPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: remove %s: %w", consumeQueueListFile, err)
	}
	return nil
}
