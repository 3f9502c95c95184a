package ha

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

// AcceptSocketService listens on haListenPort and makes one HAConnection per slave that
// connects. Mirrors HAService.AcceptSocketService.
type AcceptSocketService struct {
	h   *HAService
	svc *service.ServiceThread

	mu sync.Mutex // guards ln
	ln net.Listener
}

func newAcceptSocketService(h *HAService) *AcceptSocketService {
	return &AcceptSocketService{h: h, svc: service.New("AcceptSocketService")}
}

// BeginAccept listens on all interfaces at haListenPort (0: an ephemeral port, see Addr). A
// failure is an error naming the port (wrapping syscall.EADDRINUSE when it is taken).
// Java: AcceptSocketService#beginAccept.
func (a *AcceptSocketService) BeginAccept() error {
	port := a.h.cfg.HaListenPort
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil { // a taken port stays recognizable: errors.Is(err, syscall.EADDRINUSE)
		return fmt.Errorf("ha: listen on haListenPort %d: %w", port, err)
	}
	a.mu.Lock()
	a.ln = ln
	a.mu.Unlock()
	if tr := a.h.tr; tr.Enabled() {
		tr.Step("AcceptSocketService#beginAccept", slog.Int("haListenPort", port))
	}
	return nil
}

// Addr is the address the listener bound (nil before BeginAccept).
func (a *AcceptSocketService) Addr() net.Addr {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ln == nil {
		return nil
	}
	return a.ln.Addr()
}

// Port is the bound port (0 before BeginAccept).
func (a *AcceptSocketService) Port() int {
	if ad, ok := a.Addr().(*net.TCPAddr); ok {
		return ad.Port
	}
	return 0
}

// AcceptOne waits for one slave to connect and returns its HAConnection, already counted in
// the service's connections (the step AcceptSocketService#run is logged as it is added). Without ManualServices the connection's read and write loops are
// started; with them the caller steps it (ReadOnce, TransferOnce). It is one pass of the accept
// loop. Java: AcceptSocketService#run (one selected OP_ACCEPT key).
func (a *AcceptSocketService) AcceptOne() (*HAConnection, error) {
	a.mu.Lock()
	ln := a.ln
	a.mu.Unlock()
	if ln == nil {
		return nil, errors.New("ha: AcceptOne before BeginAccept")
	}
	conn, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	c := newHAConnection(a.h, conn)
	if !a.h.addConnection(c) {
		_ = conn.Close()
		return nil, errors.New("ha: shut down")
	}
	a.h.log.Info("HAService receive new connection", "slave", conn.RemoteAddr().String())
	if !a.h.manual {
		c.start()
	}
	return c, nil
}

// start runs the accept loop until shutdown.
func (a *AcceptSocketService) start() {
	a.svc.Start(func() {
		for !a.svc.Stopped() {
			if _, err := a.AcceptOne(); err != nil {
				if a.svc.Stopped() || errors.Is(err, net.ErrClosed) {
					return
				}
				a.h.log.Warn("HA accept failed", "err", err)
				a.svc.WaitForRunning(100 * time.Millisecond)
			}
		}
	})
}

// shutdown closes the listener and stops the loop. Java: AcceptSocketService#shutdown.
func (a *AcceptSocketService) shutdown() {
	a.mu.Lock()
	ln := a.ln
	a.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	a.svc.Shutdown()
}
