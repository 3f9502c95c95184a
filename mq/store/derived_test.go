package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// derivedQueue is one queue of the derived-files fixture and how many messages it gets.
type derivedQueue struct {
	topic   string
	queueID int32
	count   int
}

// derivedQueues are the fixture's queues. T-0 gets three ConsumeQueue files (20 units each:
// two full, one of 10 units), T-1 two, U-0 one; their messages are interleaved in the
// CommitLog in proportion, so every queue has messages close to the log's end.
var derivedQueues = []derivedQueue{{"T", 0, 50}, {"T", 1, 30}, {"U", 0, 10}}

// derivedKey is the KEYS property of message i of queue q.
func derivedKey(q derivedQueue, i int) string { return fmt.Sprintf("%s-%d-%d", q.topic, q.queueID, i) }

// derivedStore fills a store in dir with the fixture's messages (4 KiB CommitLog files, so
// the log spans several files; each message keyed by derivedKey), dispatches them and stops
// the store with stop ((*DefaultMessageStore).Shutdown or crashStore). It returns the setup
// and each queue's CommitLog offsets in queue-offset order.
func derivedStore(t *testing.T, dir string, stop func(*DefaultMessageStore)) (storeSetup, [][]CommitLogOffset) {
	t.Helper()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	offs := make([][]CommitLogOffset, len(derivedQueues))
	for i := 0; i < derivedQueues[0].count; i++ { // queue qi gets a message at every step i with i·count/50 new
		for qi, q := range derivedQueues {
			if n := len(offs[qi]); n >= q.count || n*derivedQueues[0].count > i*q.count {
				continue
			}
			m := keyedMsg(q.topic, "body", derivedKey(q, len(offs[qi])), "")
			m.QueueID = q.queueID
			r := put(t, s, m)
			require.Equal(t, QueueOffset(len(offs[qi])), r.LogicsOffset)
			offs[qi] = append(offs[qi], r.WroteOffset)
		}
	}
	s.DoReput()
	require.Greater(t, len(s.commitLog.mfq.MappedFiles()), 2, "the fixture spans several CommitLog files")
	stop(s)
	return cfg, offs
}

// queueFiles lists the ConsumeQueue files of topic/queueID in offset order.
func queueFiles(t *testing.T, dir, topic string, queueID int32) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "consumequeue", topic, fmt.Sprint(queueID), "*"))
	require.NoError(t, err)
	sort.Strings(names)
	return names
}

// writeCheckpoint overwrites the three checkpoint times (physic, logics, index; ms).
func writeCheckpoint(t *testing.T, dir string, ms int64) {
	t.Helper()
	var b [24]byte
	for i := 0; i < 3; i++ {
		binary.BigEndian.PutUint64(b[i*8:], uint64(ms))
	}
	f, err := os.OpenFile(filepath.Join(dir, "checkpoint"), os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(b[:], 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// zeroTail zeroes T-0's units from queue offset from on (20-unit files), as a power cut
// does to units never flushed.
func zeroTail(t *testing.T, dir string, from int) {
	t.Helper()
	for i, f := range queueFiles(t, dir, "T", 0) {
		first := i * 20
		require.NoError(t, zeroFrom(f, int64(max(from-first, 0))*ConsumeQueueUnitSize, 20*ConsumeQueueUnitSize))
	}
}

// requireDerivedWhole checks the promise of the derived files on a reopened fixture store:
// every queue's min offset is 0 and its max offset its message count, every unit points at
// its record (a full read of each queue with GetMessage returns them all in order), every
// key is found in the index, and a new message to each queue continues its offsets.
func requireDerivedWhole(t *testing.T, s *DefaultMessageStore, offs [][]CommitLogOffset) {
	t.Helper()
	for qi, q := range derivedQueues {
		name := fmt.Sprintf("%s-%d", q.topic, q.queueID)
		minOffset, maxOffset := s.GetMinOffsetInQueue(q.topic, q.queueID), s.GetMaxOffsetInQueue(q.topic, q.queueID)
		require.True(t, 0 <= minOffset && minOffset <= maxOffset, "%s: 0 ≤ min %d ≤ max %d", name, minOffset, maxOffset)
		require.Equal(t, QueueOffset(0), minOffset, name)
		require.Equal(t, QueueOffset(q.count), s.GetMaxOffsetInQueue(q.topic, q.queueID), name)
		var got []CommitLogOffset
		for next := QueueOffset(0); next < QueueOffset(q.count); {
			r := s.GetMessage("g", q.topic, q.queueID, next, 32, nil)
			require.Equal(t, Found, r.Status, "%s at %d", name, next)
			for i, rec := range r.Messages {
				m, err := decodeRecord(rec)
				require.NoError(t, err)
				require.Equal(t, derivedKey(q, int(r.MessageQueueOffsets[i])), m.Properties["KEYS"])
				got = append(got, CommitLogOffset(m.CommitLogOffset))
			}
			next = r.NextBeginOffset
		}
		require.Equal(t, offs[qi], got, "%s: the full read", name)
		for _, i := range []int{0, q.count / 2, q.count - 1} {
			res := s.QueryMessage(q.topic, derivedKey(q, i), 32, 0, 1<<62)
			require.Len(t, res.Messages, 1, "key %s", derivedKey(q, i))
		}
	}
	for _, q := range derivedQueues {
		m := keyedMsg(q.topic, "next", "next", "")
		m.QueueID = q.queueID
		require.Equal(t, QueueOffset(q.count), put(t, s, m).LogicsOffset, "%s-%d continues", q.topic, q.queueID)
	}
	s.DoReput()
	for _, q := range derivedQueues {
		require.Equal(t, QueueOffset(q.count+1), s.GetMaxOffsetInQueue(q.topic, q.queueID))
	}
}

// TestConsumeQueueTailLostAfterCleanStop is the bug issue 20 found: after a clean stop the
// last ConsumeQueue file of one queue is deleted while the other queues are intact. Dispatch
// used to resume from the highest CommitLog offset any queue covers, so the tail of the
// damaged queue was never rebuilt, and the next message to it got a queue offset its earlier
// messages held.
func TestConsumeQueueTailLostAfterCleanStop(t *testing.T) {
	dir := t.TempDir()
	cfg, offs := derivedStore(t, dir, (*DefaultMessageStore).Shutdown)
	files := queueFiles(t, dir, "T", 0)
	require.Len(t, files, 3)
	require.NoError(t, os.Remove(files[2]))

	s := openStore(t, cfg, nil, nil)
	requireDerivedWhole(t, s, offs)
}

// TestDerivedFilesRebuilt: the ConsumeQueues and the index are derived from the CommitLog,
// whatever happened to their files. Each row stops the fixture store (cleanly, or as a crash
// leaves it), damages the derived files one way and reopens the store; every row then checks
// every queue's offsets, a full read of each queue, key lookups and that a new message
// continues its queue (requireDerivedWhole). Java recovers most of these only after a crash
// (CommitLog#recoverAbnormally dispatches from the checkpoint's file); after a clean stop it
// trusts the files (DefaultMessageStore#start resumes from the largest queue end).
func TestDerivedFilesRebuilt(t *testing.T) {
	lastFile := func(t *testing.T, dir string) string {
		files := queueFiles(t, dir, "T", 0)
		require.Len(t, files, 3)
		return files[2]
	}
	rows := []struct {
		name   string
		crash  bool
		damage func(t *testing.T, dir string)
	}{
		{"tail file of one queue lost", false, func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(lastFile(t, dir)))
		}},
		{"tail file of one queue lost, crash", true, func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(lastFile(t, dir)))
		}},
		{"middle file of one queue lost", false, func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(queueFiles(t, dir, "T", 0)[1]))
		}},
		{"trailing file zero-filled", false, func(t *testing.T, dir string) {
			require.NoError(t, zeroFrom(lastFile(t, dir), 0, 20*ConsumeQueueUnitSize))
		}},
		// a queue whose last file lost only some units looks like one that ends there; the
		// list (consumequeue.list) says how long it was, so Start rebuilds it from its end
		{"trailing file half zero-filled", false, func(t *testing.T, dir string) {
			require.NoError(t, zeroFrom(lastFile(t, dir), 5*ConsumeQueueUnitSize, 20*ConsumeQueueUnitSize))
		}},
		{"trailing file half zero-filled, crash", true, func(t *testing.T, dir string) {
			require.NoError(t, zeroFrom(lastFile(t, dir), 5*ConsumeQueueUnitSize, 20*ConsumeQueueUnitSize))
		}},
		// the replay starts at the last CommitLog file, after the hole: it must not append the
		// queue's later units at its end
		// the replay starts at the last CommitLog file (T-0's units from 35 on), after the hole
		// (units from 30 on zeroed): it must not append the queue's later units at its end
		{"last 20 units zero-filled, crash, checkpoint newer", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			zeroTail(t, dir, 30)
		}},
		// without the list the replay finds the hole itself (a queue offset past the queue's end)
		{"last 20 units zero-filled, crash, checkpoint newer, no list", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			require.NoError(t, os.Remove(filepath.Join(dir, consumeQueueListFile)))
			zeroTail(t, dir, 30)
		}},
		{"trailing file truncated", false, func(t *testing.T, dir string) {
			require.NoError(t, os.Truncate(lastFile(t, dir), 7*ConsumeQueueUnitSize))
		}},
		{"the only file of a queue truncated to nothing", false, func(t *testing.T, dir string) {
			files := queueFiles(t, dir, "U", 0)
			require.Len(t, files, 1)
			require.NoError(t, os.Truncate(files[0], 0))
		}},
		{"the directory of a queue lost", false, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "U")))
		}},
		{"the directory of a queue lost, crash", true, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "T", "1")))
		}},
		{"the directory of a queue lost, crash, checkpoint newer", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "T", "1")))
		}},
		{"consumequeue directory gone, crash, checkpoint newer, no list", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			require.NoError(t, os.Remove(filepath.Join(dir, consumeQueueListFile)))
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue")))
		}},
		{"consumequeue directory gone", false, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue")))
		}},
		{"consumequeue directory gone, crash", true, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue")))
		}},
		{"index directory gone", false, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "index")))
		}},
		{"index directory gone, crash", true, func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "index")))
		}},
		{"checkpoint older than the files, crash", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, 0)
		}},
		{"checkpoint newer than the files, crash, queue tail lost", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			require.NoError(t, os.Remove(lastFile(t, dir)))
		}},
		{"checkpoint newer than the files, crash, index gone", true, func(t *testing.T, dir string) {
			writeCheckpoint(t, dir, exampleStore+24*3600*1000)
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "index")))
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			dir := t.TempDir()
			stop := (*DefaultMessageStore).Shutdown
			if row.crash {
				stop = func(s *DefaultMessageStore) {
					s.FlushConsumeQueue(0) // the checkpoint a running store would have written
					crashStore(s)
				}
			}
			cfg, offs := derivedStore(t, dir, stop)
			row.damage(t, dir)
			s := openStore(t, cfg, nil, nil)
			requireDerivedWhole(t, s, offs)
		})
	}
}

// TestStartReReadsOnlyForDamage measures what Start's catch-up dispatch re-reads after a
// clean stop of a store with one cold queue (one message to C-0, then 400 keyed ones to
// H-0): only the last record (the index's end), not the whole log written since C-0's
// message (it re-read all 51 136 bytes before). Once C-0's file is lost, the start re-reads
// from C-0's end and rebuilds it.
func TestStartReReadsOnlyForDamage(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	put(t, s, newMsg("C", 0, "cold", ""))
	var last, hFirst CommitLogOffset
	for i := 0; i < 400; i++ {
		last = put(t, s, keyedMsg("H", "hot", fmt.Sprint("k", i), "")).WroteOffset
		if i == 0 {
			hFirst = last
		}
	}
	s.DoReput()
	end := s.GetMaxPhyOffset()
	s.Shutdown()

	loaded := func() *DefaultMessageStore {
		s, err := newStore(cfg, nil, nil)
		require.NoError(t, err)
		require.NoError(t, s.Load())
		t.Cleanup(s.Shutdown)
		return s
	}
	s = loaded()
	require.Equal(t, last, s.reputStartOffset(), "only the last record is read again")
	s.Shutdown()

	files := queueFiles(t, dir, "C", 0)
	require.Len(t, files, 1)
	require.NoError(t, os.Remove(files[0]))
	s = loaded()
	require.Equal(t, CommitLogOffset(0), s.reputStartOffset(), "the damaged queue is rebuilt from its end")
	require.NoError(t, s.Start())
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("C", 0))
	require.Equal(t, QueueOffset(400), s.GetMaxOffsetInQueue("H", 0))
	s.Shutdown()

	// consumequeue.list, written by the clean stop, names C-0 and H-0 with their lengths: an
	// untouched store still re-reads only the last record; once C-0's whole directory is gone,
	// the start re-reads from C-0's first record and rebuilds it.
	list, err := os.ReadFile(filepath.Join(dir, consumeQueueListFile))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nC/0 1 0\nH/0 400 %d\n", end, hFirst), string(list))
	s = loaded()
	require.Empty(t, s.queues.rebuild)
	require.Equal(t, last, s.reputStartOffset(), "an untouched store: only the last record is read again")
	s.Shutdown()
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "C")))
	s = loaded()
	require.Equal(t, map[topicQueueKey]CommitLogOffset{{"C", 0}: 0}, s.queues.rebuild)
	require.Equal(t, CommitLogOffset(0), s.reputStartOffset(), "a queue's directory lost: the log is read again from its first record")
	require.NoError(t, s.Start())
	list, err = os.ReadFile(filepath.Join(dir, consumeQueueListFile))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nC/0 0 0\nH/0 400 %d\n", end, hFirst), string(list),
		"Start rewrites the list: C-0's rebuilt unit counts once flushed")
	require.Empty(t, s.queues.rebuild)
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("C", 0))
	require.Equal(t, QueueOffset(400), s.GetMaxOffsetInQueue("H", 0))
}

// TestRebuildDoesNotIndexTheLastRecordTwice: the index's last record belongs to a queue whose
// file is lost; Start dispatches that record again for its queue, and the index, whose end
// it is, must not take its key a second time.
func TestRebuildDoesNotIndexTheLastRecordTwice(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	for i := 0; i < 30; i++ {
		put(t, s, keyedMsg("B", "b", fmt.Sprint("b", i), ""))
	}
	put(t, s, keyedMsg("A", "a", "last", ""))
	s.DoReput()
	entries := indexEntries(s)
	s.Shutdown()
	files := queueFiles(t, dir, "A", 0)
	require.Len(t, files, 1)
	require.NoError(t, os.Remove(files[0]))

	s = openStore(t, cfg, nil, nil)
	require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("A", 0))
	require.Equal(t, entries, indexEntries(s), "index entries (QueryMessage hides a key given twice)")
	require.Len(t, s.QueryMessage("A", "last", 32, 0, 1<<62).Messages, 1)
}

// indexEntries counts the entries of every index file.
func indexEntries(s *DefaultMessageStore) int {
	s.indexService.mu.RLock()
	defer s.indexService.mu.RUnlock()
	n := 0
	for _, f := range s.indexService.files {
		n += int(f.IndexCount()) - 1 // the count starts at 1
	}
	return n
}

// TestDeletedTopicNotRebuilt: a topic deleted (DeleteTopics) before a clean stop or a crash
// stays deleted, though its records are still in the CommitLog and the start dispatches
// them again (a crash replays the log from the checkpoint's file; a lost queue directory
// makes Start re-read the log from that queue's first record). consumequeue.list, written
// by DeleteTopics, no longer names it. Java rebuilds it after a crash.
func TestDeletedTopicNotRebuilt(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash=%v", crash), func(t *testing.T) {
			dir := t.TempDir()
			stop := func(s *DefaultMessageStore) {
				s.DeleteTopics([]string{"T"})
				if crash {
					crashStore(s)
				} else {
					s.Shutdown()
				}
			}
			cfg, offs := derivedStore(t, dir, stop)
			require.NoDirExists(t, filepath.Join(dir, "consumequeue", "T"))
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "U")))

			s := openStore(t, cfg, nil, nil)
			require.NoDirExists(t, filepath.Join(dir, "consumequeue", "T"), "the deleted topic is not rebuilt")
			for _, id := range []int32{0, 1} {
				require.Equal(t, QueueOffset(0), s.GetMaxOffsetInQueue("T", id))
			}
			require.Equal(t, QueueOffset(10), s.GetMaxOffsetInQueue("U", 0), "the lost queue is rebuilt")
			r := s.GetMessage("g", "U", 0, 0, 32, nil)
			require.Equal(t, Found, r.Status)
			require.Len(t, r.Messages, 10)
			for i, rec := range r.Messages {
				m, err := decodeRecord(rec)
				require.NoError(t, err)
				require.Equal(t, int64(offs[2][i]), m.CommitLogOffset)
			}
			m := keyedMsg("T", "again", "again", "")
			require.Equal(t, QueueOffset(0), put(t, s, m).LogicsOffset, "a new message starts the topic again")
			s.DoReput()
			require.Equal(t, QueueOffset(1), s.GetMaxOffsetInQueue("T", 0))
		})
	}
}

// TestConsumeQueueListWritten: consumequeue.list is written by the checkpoint's flush with
// each queue's flushed length (units dispatched but not flushed are not claimed), rewritten by
// DeleteTopics without the topic, and read back whatever lines it holds: a line of the first
// version ("topic/queueId") names a queue without a length, a line that does not parse is
// skipped.
func TestConsumeQueueListWritten(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, smallConfig(dir), nil, nil)
	listText := func() string {
		b, err := os.ReadFile(filepath.Join(dir, consumeQueueListFile))
		require.NoError(t, err)
		return string(b)
	}
	a0 := put(t, s, newMsg("A", 0, "a", "")).WroteOffset
	b0 := put(t, s, newMsg("B", 1, "b", "")).WroteOffset
	s.DoReput()
	s.FlushConsumeQueue(0)
	end := s.GetMaxPhyOffset()
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nA/0 1 %d\nB/1 1 %d\n", end, a0, b0), listText())

	put(t, s, newMsg("A", 0, "a", ""))
	s.DoReput()
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nA/0 1 %d\nB/1 1 %d\n", end, a0, b0), listText(), "no flush, no new list")
	s.DeleteTopics([]string{"B"})
	end = s.GetMaxPhyOffset()
	// the deletion writes the list at once: A's second unit is not flushed yet
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nA/0 1 %d\n", end, a0), listText())
	s.FlushConsumeQueue(0)
	require.Equal(t, fmt.Sprintf("reputFromOffset %d\nA/0 2 %d\n", end, a0), listText())

	require.NoError(t, os.WriteFile(filepath.Join(dir, consumeQueueListFile),
		[]byte("reputFromOffset 77\nOld/3\nbad line here x\nNew/1 5 100\nNoID/x 1 2\n"), 0o644))
	l, err := s.queues.readList()
	require.NoError(t, err)
	require.Equal(t, &queueList{reputFromOffset: 77, queues: map[topicQueueKey]queueListEntry{
		{"Old", 3}: {maxOffset: -1, minPhysicOffset: -1},
		{"New", 1}: {maxOffset: 5, minPhysicOffset: 100},
	}}, l)
	require.True(t, l.deletedBefore(topicQueueKey{"Gone", 0}, 76), "not named, dispatched before the list")
	require.False(t, l.deletedBefore(topicQueueKey{"Gone", 0}, 77), "dispatched after the list")
	require.False(t, l.deletedBefore(topicQueueKey{"New", 1}, 0), "named")
}
