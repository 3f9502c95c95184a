package store

import (
	"fmt"
	"log/slog"
	"sync"
)

// TransientStorePool is a pool of write buffers, each the size of a CommitLog file, allocated
// off the Go heap (anonymous mmap) at start and locked in RAM (mlock) so that appends never
// page-fault. With transientStorePoolEnable a new CommitLog file borrows one: puts append to
// the buffer, CommitRealTimeService copies (commits) it into the file with pwrite, and the
// buffer goes back to the pool once the whole file is committed.
//
// When the memlock limit (ulimit -l, RLIMIT_MEMLOCK) refuses a lock, the pool warns once and
// runs with unlocked buffers: still correct, only without the guarantee against page faults.
// Mirrors org.apache.rocketmq.store.TransientStorePool.
//
// Deviation: a returned buffer is zeroed. Java hands it out again as it is, so the bytes after
// the blank record at the end of the next file are the previous file's; here a file's tail
// stays zero, as without the pool.
type TransientStorePool struct {
	poolSize int
	fileSize int
	log      *slog.Logger

	mu        sync.Mutex
	available [][]byte // free buffers, most recently returned first
	all       [][]byte // every buffer, for destroy
	locked    bool     // every buffer is mlocked
}

func newTransientStorePool(poolSize, fileSize int, log *slog.Logger) *TransientStorePool {
	return &TransientStorePool{poolSize: poolSize, fileSize: fileSize, log: log}
}

// init allocates poolSize buffers of fileSize bytes and locks them in memory.
// Java: TransientStorePool#init.
func (p *TransientStorePool) init() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.locked = true
	var lockErr error
	for i := 0; i < p.poolSize; i++ {
		b, err := mmapAnonymous(p.fileSize)
		if err != nil {
			p.destroyLocked()
			return fmt.Errorf("store: allocate transient store pool buffer %d of %d bytes: %w", i, p.fileSize, err)
		}
		if p.locked {
			if err := mlock(b); err != nil {
				p.locked = false
				lockErr = err
			}
		}
		p.all = append(p.all, b)
		p.available = append(p.available, b)
	}
	if lockErr != nil {
		// keep the pool uniform: all buffers unlocked
		for _, b := range p.all {
			_ = munlock(b)
		}
		if p.log != nil {
			p.log.Warn("transient store pool: mlock refused (raise ulimit -l); running with unlocked buffers",
				"buffers", p.poolSize, "bufferSize", p.fileSize, "err", lockErr)
		}
	}
	return nil
}

// destroy unlocks and unmaps every buffer. Call only when no file holds one any more.
// Java: TransientStorePool#destroy.
func (p *TransientStorePool) destroy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.destroyLocked()
}

func (p *TransientStorePool) destroyLocked() {
	for _, b := range p.all {
		if p.locked {
			_ = munlock(b)
		}
		_ = munmap(b)
	}
	p.all, p.available = nil, nil
}

// borrowBuffer takes a free buffer, or nil when none is left (the file is then written
// through its mapping, as without the pool). Java: TransientStorePool#borrowBuffer.
func (p *TransientStorePool) borrowBuffer() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.available) == 0 {
		if p.log != nil {
			p.log.Warn("transient store pool is empty; the next CommitLog file is written without a buffer")
		}
		return nil
	}
	b := p.available[0]
	p.available = p.available[1:]
	if float64(len(p.available)) < float64(p.poolSize)*0.4 && p.log != nil {
		p.log.Warn("transient store pool only remains few buffers", "available", len(p.available), "poolSize", p.poolSize)
	}
	return b
}

// returnBuffer zeroes b and puts it back first in line; after destroy it does nothing (the
// buffer is unmapped). Java: TransientStorePool#returnBuffer.
func (p *TransientStorePool) returnBuffer(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.all == nil {
		return
	}
	clear(b)
	p.available = append([][]byte{b}, p.available...)
}

// AvailableBufferNums is the number of free buffers. Java: TransientStorePool#availableBufferNums
// (which answers Integer.MAX_VALUE when the pool is off; see DefaultMessageStore.RemainTransientStoreBufferNumbs).
func (p *TransientStorePool) AvailableBufferNums() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.available)
}

// Locked reports whether the buffers are locked in RAM (false when the memlock limit refused).
func (p *TransientStorePool) Locked() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.locked
}
