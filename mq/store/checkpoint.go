package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// checkpointFileSize is the checkpoint file's size: one OS page (store-formats.md §5).
const checkpointFileSize = 4096

// StoreCheckpoint is the checkpoint file: three big-endian int64 store times (ms) at 0, 8
// and 16 — physicMsgTimestamp (last flushed CommitLog message), logicsMsgTimestamp (last
// ConsumeQueue unit written), indexMsgTimestamp (last full index file) — in a 4 KiB file.
// The values live in memory and reach the disk only at flush (the ConsumeQueue's thorough
// flush and shutdown). Mirrors org.apache.rocketmq.store.StoreCheckpoint.
// Deviation: written with pwrite + fdatasync instead of through a mapping (24 bytes).
type StoreCheckpoint struct {
	path               string
	events             *EventListener // BeforeFlush / Flushed around the fdatasync
	f                  *os.File       // nil until open and after shutdown
	mu                 sync.Mutex     // serializes open, flush and close
	physicMsgTimestamp atomic.Int64
	logicsMsgTimestamp atomic.Int64
	indexMsgTimestamp  atomic.Int64
}

// newStoreCheckpoint is the checkpoint at path, not open yet (the store's parts hold it from
// their construction; Load opens it).
func newStoreCheckpoint(path string, events *EventListener) *StoreCheckpoint {
	return &StoreCheckpoint{path: path, events: events}
}

// open opens (or creates, 4096 zero bytes) the checkpoint file and reads it.
func (c *StoreCheckpoint) open() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: open checkpoint: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("store: stat checkpoint: %w", err)
	}
	if st.Size() < checkpointFileSize {
		if err := allocateFile(int(f.Fd()), checkpointFileSize); err != nil {
			f.Close()
			return fmt.Errorf("store: allocate checkpoint: %w", err)
		}
	}
	var b [24]byte
	if _, err := f.ReadAt(b[:], 0); err != nil {
		f.Close()
		return fmt.Errorf("store: read checkpoint: %w", err)
	}
	c.f = f
	c.physicMsgTimestamp.Store(int64(binary.BigEndian.Uint64(b[0:])))
	c.logicsMsgTimestamp.Store(int64(binary.BigEndian.Uint64(b[8:])))
	c.indexMsgTimestamp.Store(int64(binary.BigEndian.Uint64(b[16:])))
	return nil
}

// PhysicMsgTimestamp, LogicsMsgTimestamp and IndexMsgTimestamp are the in-memory values (ms).
func (c *StoreCheckpoint) PhysicMsgTimestamp() int64 { return c.physicMsgTimestamp.Load() }
func (c *StoreCheckpoint) LogicsMsgTimestamp() int64 { return c.logicsMsgTimestamp.Load() }
func (c *StoreCheckpoint) IndexMsgTimestamp() int64  { return c.indexMsgTimestamp.Load() }

func (c *StoreCheckpoint) setPhysicMsgTimestamp(ms int64) { c.physicMsgTimestamp.Store(ms) }
func (c *StoreCheckpoint) setLogicsMsgTimestamp(ms int64) { c.logicsMsgTimestamp.Store(ms) }

// SetIndexMsgTimestamp records the end time of the last full index file.
func (c *StoreCheckpoint) SetIndexMsgTimestamp(ms int64) { c.indexMsgTimestamp.Store(ms) }

// MinTimestamp is min(physic, logics) − 3000 ms, floored at 0: where abnormal recovery may
// start. Java: StoreCheckpoint#getMinTimestamp.
func (c *StoreCheckpoint) MinTimestamp() int64 {
	m := min(c.physicMsgTimestamp.Load(), c.logicsMsgTimestamp.Load()) - 3000
	return max(m, 0)
}

// MinTimestampIndex additionally takes indexMsgTimestamp into account.
// Java: StoreCheckpoint#getMinTimestampIndex.
func (c *StoreCheckpoint) MinTimestampIndex() int64 {
	return min(c.MinTimestamp(), c.indexMsgTimestamp.Load())
}

// Flush writes the three values and forces them to disk. Java: StoreCheckpoint#flush.
func (c *StoreCheckpoint) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	var b [24]byte
	binary.BigEndian.PutUint64(b[0:], uint64(c.physicMsgTimestamp.Load()))
	binary.BigEndian.PutUint64(b[8:], uint64(c.logicsMsgTimestamp.Load()))
	binary.BigEndian.PutUint64(b[16:], uint64(c.indexMsgTimestamp.Load()))
	if _, err := c.f.WriteAt(b[:], 0); err != nil {
		return fmt.Errorf("store: write checkpoint: %w", err)
	}
	c.events.beforeFlush("checkpoint")
	if err := fdatasync(int(c.f.Fd())); err != nil {
		return fmt.Errorf("store: sync checkpoint: %w", err)
	}
	c.events.flushed("checkpoint", len(b))
	return nil
}

// shutdown flushes and closes the file. Java: StoreCheckpoint#shutdown.
func (c *StoreCheckpoint) shutdown() error {
	err := c.Flush()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
	return err
}
