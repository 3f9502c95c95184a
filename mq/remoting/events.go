package remoting

import (
	"log/slog"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
)

type eventType int

const (
	eventConnect eventType = iota
	eventClose
	eventIdle
	eventException
)

type channelEvent struct {
	typ eventType
	ch  *Channel
}

// eventExecutor delivers channel events to the listener one at a time, in the order they
// happened, on its own goroutine. Mirrors NettyRemotingAbstract.NettyEventExecutor.
//
// Deviation: Java drops events beyond 10000 queued; we keep them all (an event is two words).
// mu guards queue.
type eventExecutor struct {
	listener ChannelEventListener
	log      *slog.Logger
	svc      *service.ServiceThread

	mu    sync.Mutex
	queue []channelEvent
}

func newEventExecutor(l ChannelEventListener, log *slog.Logger) *eventExecutor {
	return &eventExecutor{listener: l, log: log, svc: service.New("NettyEventExecutor")}
}

func (e *eventExecutor) start() {
	if e.listener == nil {
		return
	}
	e.svc.Start(func() {
		for {
			e.deliver()
			if !e.svc.WaitForRunning(maxEventWait) {
				e.deliver() // what was queued before shutdown
				return
			}
		}
	})
}

// maxEventWait is only a safety net: put wakes the executor.
const maxEventWait = time.Hour

func (e *eventExecutor) put(typ eventType, ch *Channel) {
	if e.listener == nil {
		return
	}
	e.mu.Lock()
	e.queue = append(e.queue, channelEvent{typ, ch})
	e.mu.Unlock()
	e.svc.Wakeup()
}

func (e *eventExecutor) deliver() {
	for {
		e.mu.Lock()
		batch := e.queue
		e.queue = nil
		e.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		for _, ev := range batch {
			e.call(ev)
		}
	}
}

// call runs one listener method; a panicking listener is logged, not fatal.
func (e *eventExecutor) call(ev channelEvent) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("channel event listener panic", "panic", r)
		}
	}()
	addr := ev.ch.RemoteAddr()
	switch ev.typ {
	case eventConnect:
		e.listener.OnChannelConnect(addr, ev.ch)
	case eventClose:
		e.listener.OnChannelClose(addr, ev.ch)
	case eventIdle:
		e.listener.OnChannelIdle(addr, ev.ch)
	case eventException:
		e.listener.OnChannelException(addr, ev.ch)
	}
}

func (e *eventExecutor) shutdown() { e.svc.Shutdown() }
