package ha

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// memStore is a CommitLog in memory: what HA reads and appends, with the store's rule that an
// append goes at the end (or, on an empty log, at a file start).
type memStore struct {
	base     int64
	data     []byte
	fileSize int64
}

func (m *memStore) GetMaxPhyOffset() store.CommitLogOffset {
	return store.CommitLogOffset(m.base + int64(len(m.data)))
}

func (m *memStore) GetMinPhyOffset() store.CommitLogOffset { return store.CommitLogOffset(m.base) }

func (m *memStore) GetCommitLogData(offset store.CommitLogOffset) (store.SelectMappedBufferResult, bool) {
	return store.SelectMappedBufferResult{}, false
}

func (m *memStore) AppendToCommitLog(start store.CommitLogOffset, data []byte) error {
	if len(m.data) == 0 && m.base == 0 {
		if int64(start)%m.fileSize != 0 {
			return fmt.Errorf("not a file start: %d", start)
		}
		m.base = int64(start)
	} else if int64(start) != m.base+int64(len(m.data)) {
		return fmt.Errorf("append at %d, end %d", start, m.base+int64(len(m.data)))
	}
	m.data = append(m.data, data...)
	return nil
}

// fuzzService is an HAService over a memStore with no socket: decoders only.
func fuzzService() (*HAService, *memStore) {
	cfg := store.DefaultMessageStoreConfig()
	cfg.MappedFileSizeCommitLog = 4096
	ms := &memStore{fileSize: 4096}
	h := &HAService{store: ms, cfg: &cfg, clock: clock.NewManualMillis(1), log: slog.New(slog.DiscardHandler),
		manual: true, waitNotify: newWaitNotifyObject()}
	h.groupTransfer = newGroupTransferService(h)
	h.client = newHAClient(h)
	return h, ms
}

// FuzzDispatchReadRequest feeds arbitrary master bytes to the slave's frame decoder: it never
// panics, and whatever it appends is exactly the bodies of well-formed frames at the slave's
// max offset (the log only grows at its end). Java: HAClient#dispatchReadRequest.
func FuzzDispatchReadRequest(f *testing.F) {
	f.Add(frame(0, []byte("abc")))
	f.Add(append(frame(0, []byte("ab")), frame(2, []byte("cd"))...))
	f.Add(frame(8192, nil))
	f.Add(frame(5, []byte("x")))
	f.Add([]byte{0, 0, 0})
	f.Add(append(frame(0, nil)[:8], 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ms := fuzzService()
		c := h.client
		c.buf = make([]byte, 64*1024)
		n := copy(c.buf, b)
		c.n = n
		before := ms.GetMaxPhyOffset()
		_, _ = c.dispatchReadRequest()
		if after := ms.GetMaxPhyOffset(); after < before {
			t.Fatalf("the slave log shrank: %d → %d", before, after)
		}
		if c.dispatchPosition > c.n || c.n > len(c.buf) {
			t.Fatalf("positions out of range: dispatch %d, n %d", c.dispatchPosition, c.n)
		}
	})
}

// FuzzProcessReadEvent feeds arbitrary slave bytes to the master's report decoder: it never
// panics; a negative report is an error; push2SlaveMaxOffset never goes down.
// Java: ReadSocketService#processReadEvent.
func FuzzProcessReadEvent(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb})
	f.Add(append(make([]byte, 8), 0, 0, 0, 0, 0, 0, 1, 0, 9))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, _ := fuzzService()
		c := &HAConnection{h: h, clientAddr: "fuzz"}
		c.slaveRequestOffset.Store(-1)
		c.slaveAckOffset.Store(-1)
		r := &ReadSocketService{c: c, buf: make([]byte, 64)}
		for len(b) > 0 {
			m := copy(r.buf[r.n:], b)
			b = b[m:]
			r.n += m
			before := h.push2SlaveMaxOffset.Load()
			if _, err := r.processReadEvent(); err != nil {
				return
			}
			if h.push2SlaveMaxOffset.Load() < before {
				t.Fatal("push2SlaveMaxOffset went down")
			}
			if r.n == len(r.buf) {
				rest := copy(r.buf, r.buf[r.processPosition:r.n])
				r.n, r.processPosition = rest, 0
			}
		}
	})
}
