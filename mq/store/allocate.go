package store

import (
	"log/slog"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// AllocateMappedFileService creates CommitLog files ahead of need: when file n is requested it
// also queues file n+1, which a background goroutine creates (fallocate, mmap, optional
// warm-up) while file n fills, so a roll costs the appender almost nothing.
// Mirrors org.apache.rocketmq.store.AllocateMappedFileService.
type AllocateMappedFileService struct {
	svc *service.ServiceThread
	log *slog.Logger

	mu       sync.Mutex
	requests map[string]*allocateRequest // by path; guarded by mu
	queue    []*allocateRequest          // not yet started, in order; guarded by mu
}

type allocateRequest struct {
	path string
	size int
	warm bool
	done chan struct{} // closed when mf/err are set
	mf   *MappedFile
	err  error
}

func newAllocateMappedFileService(log *slog.Logger) *AllocateMappedFileService {
	return &AllocateMappedFileService{
		svc:      service.New("AllocateMappedFileService"),
		log:      log,
		requests: map[string]*allocateRequest{},
	}
}

func (a *AllocateMappedFileService) start() {
	a.svc.Start(func() {
		for a.svc.WaitForRunning(1 << 62) {
			for a.mmapOperation() {
			}
		}
	})
}

// request queues path unless it is already requested; the caller holds mu.
func (a *AllocateMappedFileService) request(path string, size int, warm bool) *allocateRequest {
	if r, ok := a.requests[path]; ok {
		return r
	}
	r := &allocateRequest{path: path, size: size, warm: warm, done: make(chan struct{})}
	a.requests[path] = r
	a.queue = append(a.queue, r)
	return r
}

// putRequestAndReturnMappedFile returns the file at path — pre-created if it was requested
// before, else created now — and then queues nextPath for background creation.
//
// nextPath is queued only after path exists on disk, and the background service creates files
// in queue order, so files appear strictly in offset order: a crash can never leave file n+1
// without file n (a gap that load refuses). Java gets the same order from its single allocating
// thread. Java: AllocateMappedFileService#putRequestAndReturnMappedFile.
func (a *AllocateMappedFileService) putRequestAndReturnMappedFile(path, nextPath string, size int, warm bool) (*MappedFile, error) {
	a.mu.Lock()
	r, pending := a.requests[path]
	if pending {
		delete(a.requests, path)
	}
	a.mu.Unlock()
	var mf *MappedFile
	var err error
	if pending {
		// either finished, being created now, or still queued: do it here if nobody started
		if a.take(r) {
			a.create(r)
		}
		<-r.done
		mf, err = r.mf, r.err
		// a failed background attempt (e.g. disk was full then) is retried once inline
	}
	if mf == nil {
		mf, err = newMappedFile(path, size)
		if err == nil && warm {
			mf.warm()
		}
	}
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if !a.svc.Stopped() {
		a.request(nextPath, size, warm)
	}
	a.mu.Unlock()
	a.svc.Wakeup()
	return mf, nil
}

// take removes r from the queue if it has not been started; true if the caller must create it.
func (a *AllocateMappedFileService) take(r *allocateRequest) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, q := range a.queue {
		if q == r {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return true
		}
	}
	return false
}

func (a *AllocateMappedFileService) create(r *allocateRequest) {
	r.mf, r.err = newMappedFile(r.path, r.size)
	if r.err == nil && r.warm {
		r.mf.warm()
	}
	if r.err != nil && a.log != nil {
		a.log.Warn("pre-allocating mapped file failed", "path", r.path, "err", r.err)
	}
	close(r.done)
}

// mmapOperation creates the oldest queued file; false when the queue is empty.
// Java: AllocateMappedFileService#mmapOperation.
func (a *AllocateMappedFileService) mmapOperation() bool {
	a.mu.Lock()
	if len(a.queue) == 0 || a.svc.Stopped() {
		a.mu.Unlock()
		return false
	}
	r := a.queue[0]
	a.queue = a.queue[1:]
	a.mu.Unlock()
	a.create(r)
	return true
}

// shutdown stops the service and deletes pre-created files nobody took.
// Java: AllocateMappedFileService#shutdown.
func (a *AllocateMappedFileService) shutdown() {
	a.svc.Shutdown()
	a.mu.Lock()
	defer a.mu.Unlock()
	for path, r := range a.requests {
		select {
		case <-r.done:
			if r.mf != nil {
				_ = r.mf.destroy()
			}
		default: // never started
		}
		delete(a.requests, path)
	}
	a.queue = nil
}
