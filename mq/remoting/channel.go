package remoting

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

const (
	// writeBufferSize is the per-connection write buffer: frames queued while the writer is
	// busy go out in one write() of up to this many bytes.
	writeBufferSize = 64 << 10
	// readBufferSize is the per-connection read buffer.
	readBufferSize = 64 << 10
	// closeFlushTimeout bounds the final flush of a closing channel whose peer stopped reading.
	closeFlushTimeout = 3 * time.Second
)

// channelOwner is the Server or Client a Channel belongs to.
type channelOwner interface {
	// dispatchRequest handles a request frame read from ch (on ch's reader goroutine).
	dispatchRequest(ch *Channel, req *RemotingCommand)
	// headerFunc is where the reader's decoder gets requests' CustomHeaders (nil: none, every
	// extFields member goes to ExtFields).
	headerFunc() HeaderFunc
	// channelException reports a read failure other than an orderly close.
	channelException(ch *Channel, err error)
	// channelClosed reports that ch is closed and its goroutines are about to return.
	channelClosed(ch *Channel)
}

// Channel is one TCP connection, on the server or the client side: a reader goroutine that
// decodes frames and hands requests to the owner and responses to waiting callers, and a writer
// goroutine that drains the outgoing queue into a 64 KiB buffered writer and flushes when the
// queue is empty, so a burst of frames costs one write(). Mirrors io.netty.channel.Channel as
// RocketMQ uses it (writeAndFlush, close, remoteAddress).
//
// Lifecycle: the reader reads until EOF, an error, Close or the owner's shutdown; then it waits
// until every request it dispatched has been processed (answers queued), lets the writer flush
// what is queued, closes the socket, fails the requests still waiting for responses with
// ErrChannelClosed, and reports the close. So a peer that sends requests and closes its write
// side right away still gets every answer.
//
// Locks: wmu guards the outgoing queue and the writer state; pmu guards the pending map.
type Channel struct {
	conn       net.Conn
	remoteAddr string
	remoteHost []byte // remoteAddr as a record host field (primitive.HostBytes); nil when it does not parse
	localAddr  string
	key        string // the client's connection-table key (the address dialled); "" on servers
	owner      channelOwner
	log        *slog.Logger
	maxFrame   int
	clock      clock.Clock      // stamps lastRead and lastWrite (the owner's clock)
	observer   ResponseObserver // the server's (WithResponseObserver); nil on a client's channel

	wmu      sync.Mutex
	wqueue   []*RemotingCommand
	wspare   []*RemotingCommand
	wclosing bool // no more frames accepted; the writer exits once the queue is flushed
	wwake    chan struct{}
	wdone    chan struct{}

	pmu           sync.Mutex
	pending       map[int32]*responseFuture
	pendingClosed bool

	inflight  sync.WaitGroup // requests dispatched to pools and not yet processed
	slots     chan struct{}  // one per request in flight; nil: unbounded (beginRequest)
	closed    atomic.Bool    // Close was called or the connection ended
	lastRead  atomic.Int64   // unix ns of the last frame read
	lastWrite atomic.Int64   // unix ns of the last flush
}

// responseFuture is one request waiting for its response (sync: done; async: cb).
// Java: org.apache.rocketmq.remoting.netty.ResponseFuture.
type responseFuture struct {
	done chan struct{}
	resp *RemotingCommand
	err  error
	cb   func(*RemotingCommand, error)
	stop func() bool // unregisters the async timeout; set under pmu
}

func newChannel(conn net.Conn, owner channelOwner, maxFrame int, log *slog.Logger, clk clock.Clock) *Channel {
	now := clk.Now().UnixNano()
	remote := conn.RemoteAddr().String()
	host, _ := primitive.HostBytes(remote) // nil for an address that is not ip:port (a pipe in tests)
	ch := &Channel{
		remoteHost: host,
		conn:       conn,
		remoteAddr: remote,
		localAddr:  conn.LocalAddr().String(),
		owner:      owner,
		log:        log,
		maxFrame:   maxFrame,
		clock:      clk,
		wwake:      make(chan struct{}, 1),
		wdone:      make(chan struct{}),
		pending:    make(map[int32]*responseFuture),
	}
	ch.lastRead.Store(now)
	ch.lastWrite.Store(now)
	return ch
}

// start runs the reader and writer goroutines, counted in wg.
func (ch *Channel) start(wg *sync.WaitGroup) {
	wg.Add(2)
	go func() {
		defer wg.Done()
		ch.writeLoop()
	}()
	go func() {
		defer wg.Done()
		ch.serve()
	}()
}

// RemoteAddr is the peer's "ip:port". Java: RemotingHelper#parseChannelRemoteAddr.
func (ch *Channel) RemoteAddr() string { return ch.remoteAddr }

// RemoteHostBytes is RemoteAddr in the record's born-host form: 4 address bytes and the port
// (8 bytes) for IPv4, 16 and the port (20) for IPv6, parsed once when the channel was made.
// The slice is shared by every caller and must not be modified. It is nil when the address is
// not ip:port. Java builds it per message (MessageExt#getBornHostBytes); the connection's
// address never changes, so we build it once.
func (ch *Channel) RemoteHostBytes() []byte { return ch.remoteHost }

// LocalAddr is our side's "ip:port".
func (ch *Channel) LocalAddr() string { return ch.localAddr }

// IsActive reports whether the channel is open: Close has not been called and the connection
// has not ended. Java: Channel#isActive.
func (ch *Channel) IsActive() bool { return !ch.closed.Load() }

// Close closes the connection at once: frames not yet written are dropped, requests waiting
// for responses fail with ErrChannelClosed, and the owner hears about the close. Safe to call
// more than once. Java: RemotingUtil#closeChannel.
func (ch *Channel) Close() error {
	if ch.closed.Swap(true) {
		return nil
	}
	return ch.conn.Close()
}

// WriteResponse queues c (a response, typically answered later, like a held pull) for
// writing. It returns ErrChannelClosed once the channel is closing. The caller sets c's opaque
// and flag (c.ResponseTo(req)). Java: Channel#writeAndFlush.
func (ch *Channel) WriteResponse(c *RemotingCommand) error {
	if ch.observer != nil {
		ch.observer.ObserveResponse(c.Code)
	}
	return ch.enqueue(c)
}

// InvokeOneway marks c oneway and queues it: the peer must not answer.
// Java: NettyRemotingAbstract#invokeOnewayImpl.
func (ch *Channel) InvokeOneway(c *RemotingCommand) error {
	c.MarkOneway()
	return ch.enqueue(c)
}

// InvokeSync sends request c and waits for the response with the same opaque, until ctx is
// done. A deadline that passes returns an error wrapping ErrTimeout and
// context.DeadlineExceeded; a channel that closes first returns ErrChannelClosed. A response
// with a non-SUCCESS code is returned as a response, not an error (see RemotingCommand.Err).
// Java: NettyRemotingAbstract#invokeSyncImpl.
func (ch *Channel) InvokeSync(ctx context.Context, c *RemotingCommand) (*RemotingCommand, error) {
	f := &responseFuture{done: make(chan struct{})}
	if err := ch.addPending(c.Opaque, f, nil, nil); err != nil {
		return nil, err
	}
	if err := ch.enqueue(c); err != nil {
		ch.takePending(c.Opaque, f)
		return nil, err
	}
	select {
	case <-f.done:
		return f.resp, f.err
	case <-ctx.Done():
		if ch.takePending(c.Opaque, f) {
			return nil, ch.ctxError(ctx, c)
		}
		<-f.done // completed while we gave up: take the outcome
		return f.resp, f.err
	}
}

// InvokeAsync sends request c and calls cb exactly once, on its own goroutine, with the
// response or an error (timeout when ctx is done first, ErrChannelClosed). If InvokeAsync
// itself returns an error, cb is never called. Java: NettyRemotingAbstract#invokeAsyncImpl.
func (ch *Channel) InvokeAsync(ctx context.Context, c *RemotingCommand, cb func(*RemotingCommand, error)) error {
	opaque := c.Opaque
	f := &responseFuture{cb: cb}
	err := ch.addPending(opaque, f, ctx, func() {
		if ch.takePending(opaque, f) {
			cb(nil, ch.ctxError(ctx, c))
		}
	})
	if err != nil {
		return err
	}
	if err := ch.enqueue(c); err != nil {
		if ch.takePending(opaque, f) {
			f.stop()
			return err
		}
		return nil // already failed by a closing channel: cb has the error
	}
	return nil
}

func (ch *Channel) ctxError(ctx context.Context, c *RemotingCommand) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: wait response on %s, code %d, opaque %d: %w", ErrTimeout, ch.remoteAddr, c.Code, c.Opaque, ctx.Err())
	}
	return fmt.Errorf("remoting: wait response on %s, code %d, opaque %d: %w", ch.remoteAddr, c.Code, c.Opaque, ctx.Err())
}

// addPending registers f under opaque. For async futures, onCtxDone runs (on its own goroutine)
// when ctx is done; it is registered under pmu so a response cannot slip in before f.stop is set.
func (ch *Channel) addPending(opaque int32, f *responseFuture, ctx context.Context, onCtxDone func()) error {
	ch.pmu.Lock()
	defer ch.pmu.Unlock()
	if ch.pendingClosed {
		return fmt.Errorf("%w: %s", ErrChannelClosed, ch.remoteAddr)
	}
	if _, dup := ch.pending[opaque]; dup {
		return fmt.Errorf("%w: opaque %d on %s", ErrDuplicateOpaque, opaque, ch.remoteAddr)
	}
	ch.pending[opaque] = f
	if onCtxDone != nil {
		f.stop = context.AfterFunc(ctx, onCtxDone)
	}
	return nil
}

// takePending removes f if it is still registered under opaque; true means the caller now owns
// completing it.
func (ch *Channel) takePending(opaque int32, f *responseFuture) bool {
	ch.pmu.Lock()
	defer ch.pmu.Unlock()
	if ch.pending[opaque] != f {
		return false
	}
	delete(ch.pending, opaque)
	return true
}

// completeResponse hands a response read from the connection to the request waiting for it;
// a response nobody waits for (timed out) is dropped. Java: NettyRemotingAbstract#processResponseCommand.
func (ch *Channel) completeResponse(resp *RemotingCommand) {
	ch.pmu.Lock()
	f := ch.pending[resp.Opaque]
	if f != nil {
		delete(ch.pending, resp.Opaque)
	}
	ch.pmu.Unlock()
	if f == nil {
		ch.log.Debug("receive response, but not matched any request", "remoteAddr", ch.remoteAddr, "opaque", resp.Opaque, "code", resp.Code)
		return
	}
	f.complete(resp, nil)
}

func (f *responseFuture) complete(resp *RemotingCommand, err error) {
	if f.cb != nil {
		f.stop()
		go f.cb(resp, err)
		return
	}
	f.resp, f.err = resp, err
	close(f.done)
}

// failPending fails every waiting request and refuses new ones.
func (ch *Channel) failPending() {
	ch.pmu.Lock()
	ch.pendingClosed = true
	all := ch.pending
	ch.pending = nil
	ch.pmu.Unlock()
	for opaque, f := range all {
		f.complete(nil, fmt.Errorf("%w: %s closed while opaque %d waited", ErrChannelClosed, ch.remoteAddr, opaque))
	}
}

// enqueue adds c to the outgoing queue and wakes the writer.
func (ch *Channel) enqueue(c *RemotingCommand) error {
	ch.wmu.Lock()
	if ch.wclosing {
		ch.wmu.Unlock()
		return fmt.Errorf("%w: %s", ErrChannelClosed, ch.remoteAddr)
	}
	ch.wqueue = append(ch.wqueue, c)
	ch.wmu.Unlock()
	select {
	case ch.wwake <- struct{}{}:
	default:
	}
	return nil
}

// writeLoop is the writer goroutine: it swaps the queue out under wmu, encodes every frame into
// the buffered writer (bodies are written from the caller's slice), and flushes once the queue
// is empty. A write error closes the connection and stops the writer.
func (ch *Channel) writeLoop() {
	defer close(ch.wdone)
	bw := bufio.NewWriterSize(ch.conn, writeBufferSize)
	var head []byte
	for range ch.wwake {
		for {
			ch.wmu.Lock()
			batch, stopping := ch.wqueue, ch.wclosing
			if len(batch) > 0 { // swap in the spare array; the batch becomes the spare after writing
				ch.wqueue, ch.wspare = ch.wspare[:0], nil
			}
			ch.wmu.Unlock()
			if len(batch) == 0 {
				if err := bw.Flush(); err != nil {
					ch.writeFailed(err)
					return
				}
				ch.lastWrite.Store(ch.clock.Now().UnixNano())
				if stopping {
					return
				}
				break
			}
			for i, c := range batch {
				head = appendFrameHead(head[:0], c)
				_, err := bw.Write(head)
				if err == nil {
					_, err = bw.Write(c.Body)
				}
				if err != nil {
					ch.writeFailed(err)
					return
				}
				batch[i] = nil
			}
			ch.wmu.Lock()
			ch.wspare = batch[:0]
			ch.wmu.Unlock()
		}
	}
}

// writeFailed stops accepting frames and closes the socket so the reader ends too.
func (ch *Channel) writeFailed(err error) {
	ch.wmu.Lock()
	ch.wclosing = true
	ch.wqueue = nil
	ch.wmu.Unlock()
	if !ch.closed.Load() {
		if IsPeerGone(err) {
			ch.log.Info("channel closed by the peer while writing", "remoteAddr", ch.remoteAddr, "err", err)
		} else {
			ch.log.Warn("write to channel failed, closing it", "remoteAddr", ch.remoteAddr, "err", err)
		}
	}
	ch.closed.Store(true)
	_ = ch.conn.Close()
}

// stopWriter refuses new frames, lets the writer flush what is queued, and waits for it.
func (ch *Channel) stopWriter() {
	ch.wmu.Lock()
	ch.wclosing = true
	ch.wmu.Unlock()
	_ = ch.conn.SetWriteDeadline(clock.System{}.Now().Add(closeFlushTimeout)) // a socket deadline is wall time
	select {
	case ch.wwake <- struct{}{}:
	default:
	}
	<-ch.wdone
}

// serve is the reader goroutine: read frames, then close in order (see Channel).
func (ch *Channel) serve() {
	err := ch.readLoop()
	if !isOrderlyClose(err) && !ch.closed.Load() {
		ch.owner.channelException(ch, err)
	}
	ch.inflight.Wait()
	ch.stopWriter()
	ch.closed.Store(true)
	_ = ch.conn.Close()
	ch.failPending()
	ch.owner.channelClosed(ch)
}

// readLoop reads frames until an error: length field, size check, frame, decode, dispatch.
// Java: NettyDecoder + NettyServerHandler/NettyClientHandler#channelRead0.
func (ch *Channel) readLoop() error {
	br := bufio.NewReaderSize(ch.conn, readBufferSize)
	newHeader := ch.owner.headerFunc()
	var lenBuf [lengthFieldSize]byte
	for {
		if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(lenBuf[:])
		if uint64(n)+lengthFieldSize > uint64(ch.maxFrame) {
			if looksLikeTLS(lenBuf[:]) { // a TLS client at a plain port (tls.go)
				return fmt.Errorf("%w (from %s)", ErrTLSNotEnabled, ch.remoteAddr)
			}
			return fmt.Errorf("%w: %d bytes from %s, max %d", ErrFrameTooLarge, uint64(n)+lengthFieldSize, ch.remoteAddr, ch.maxFrame)
		}
		frame, err := readFrame(br, int(n))
		if err != nil {
			return err
		}
		ch.lastRead.Store(ch.clock.Now().UnixNano())
		cmd, err := decodeFrame(frame, newHeader)
		if err != nil {
			return fmt.Errorf("decode frame from %s: %w", ch.remoteAddr, err)
		}
		if cmd.IsResponse() {
			ch.completeResponse(cmd)
		} else {
			ch.owner.dispatchRequest(ch, cmd)
		}
	}
}

// frameChunk is how much of a frame is allocated before its bytes arrive: a peer that sends
// a large length and then nothing holds no more than this.
const frameChunk = 64 << 10

// readFrame reads the n bytes of a frame after its length field. The buffer grows as the bytes
// arrive (frameChunk first, then doubling: never more than twice what arrived), so memory
// follows what was sent, not what a length field claims.
func readFrame(r io.Reader, n int) ([]byte, error) {
	frame := make([]byte, min(n, frameChunk))
	read := 0
	for {
		m, err := io.ReadFull(r, frame[read:])
		read += m
		if err != nil {
			return nil, err
		}
		if read == n {
			return frame, nil
		}
		frame = append(frame, make([]byte, min(n-read, max(read, frameChunk)))...)
	}
}

// beginRequest counts a request the reader is about to hand to a pool. With a bound
// (ServerConfig.ChannelMaxInflight) it waits while the channel has that many requests
// queued or running, so one connection's flood stops being read — TCP pushes back on its
// sender — instead of filling the pools every connection shares.
func (ch *Channel) beginRequest() {
	if ch.slots != nil {
		ch.slots <- struct{}{}
	}
	ch.inflight.Add(1)
}

// endRequest: the request counted by beginRequest was processed (or refused).
func (ch *Channel) endRequest() {
	ch.inflight.Done()
	if ch.slots != nil {
		<-ch.slots
	}
}

// isOrderlyClose tells a normal end of the connection (EOF, our own close, shutdown's read
// deadline) from a failure worth an exception event.
func isOrderlyClose(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded)
}

// idleSince reports whether neither a read nor a flush happened since before cutoff (unix ns).
func (ch *Channel) idleSince(cutoff int64) bool {
	return ch.lastRead.Load() < cutoff && ch.lastWrite.Load() < cutoff
}
