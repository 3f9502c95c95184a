package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// Run modes, as Summary.Mode spells them.
const (
	ModeSync    = "sync"
	ModeAsync   = "async"
	ModeConsume = "consume"
)

// Defaults of RocketMQ's benchmark tools (example/benchmark/Producer.java and Consumer.java).
const (
	DefaultTopic         = "BenchmarkTest"
	DefaultProducerGroup = "benchmark_producer"
	DefaultConsumerGroup = "benchmark_consumer"
	DefaultThreads       = 64  // sync senders (Java: -w, threadCount)
	DefaultMessageSize   = 128 // bytes (Java: -s, messageSize)
	DefaultInflight      = 1024
)

// failurePause is how long a sync sender waits after a failed send before the next one, so a
// broker that is down is not hammered (Java: Thread.sleep(3000) after a RemotingException or
// MQBrokerException).
const failurePause = 3 * time.Second

// ProducerOptions shape a producer run. Zero fields take the defaults named.
type ProducerOptions struct {
	RunOptions
	// Threads is the number of sending goroutines (64 sync, 1 async). Java: -w.
	Threads int
	// MessageSize is the body size in bytes (128). Java: -s.
	MessageSize int
	// Async sends with SendAsync (SendBatchAsync), at most Inflight requests outstanding
	// across all senders (1024). Java: -y (asyncEnable), which bounds its executor's queue.
	Async    bool
	Inflight int
	// Batch > 1 sends Batch messages per request (SEND_BATCH_MESSAGE). Java: none.
	Batch int
	// Keys sets each message's KEYS to the send's second (unix seconds), as Java's -k does.
	Keys bool
	// Configure, if set, adjusts the producer's config before it starts (tests: a different
	// SendMsgTimeout).
	Configure func(*producer.Config)
}

// WithDefaults returns o with its zero fields set to the defaults named on them.
func (o ProducerOptions) WithDefaults() ProducerOptions {
	o.RunOptions = o.RunOptions.withDefaults(DefaultProducerGroup)
	if o.Threads <= 0 {
		o.Threads = DefaultThreads
		if o.Async {
			o.Threads = 1
		}
	}
	if o.MessageSize <= 0 {
		o.MessageSize = DefaultMessageSize
	}
	if o.Inflight <= 0 {
		o.Inflight = DefaultInflight
	}
	o.Batch = max(o.Batch, 1)
	return o
}

// producerRun is one RunProducer's state, shared by its senders.
type producerRun struct {
	opts           ProducerOptions
	p              *producer.DefaultMQProducer
	body           []byte
	rt             meter
	claimed        atomic.Int64 // messages handed to senders (Count mode)
	sendFailed     atomic.Int64
	responseFailed atomic.Int64
	window         chan struct{} // async: one token per request outstanding
	outstanding    sync.WaitGroup
	errMu          sync.Mutex
	errs           map[string]int64 // failures by client.ErrorKind
}

// RunProducer sends messages to opts.Topic until opts.Duration or opts.Count or ctx ends the
// run, then waits for the answers still outstanding and returns the run's Summary. Each message
// has a body of MessageSize bytes (letters, never compressed: CompressMsgBodyOverHowmuch is
// set past it, as Java's tool does). Failures are counted, not returned; the error is for a
// run that cannot start (no name server address, MessageSize × Batch over the producer's
// MaxMessageSize, a producer that does not start).
// Java: org.apache.rocketmq.example.benchmark.Producer#main.
func RunProducer(ctx context.Context, opts ProducerOptions) (Summary, error) {
	opts = opts.WithDefaults()
	ctx, cancel, err := opts.begin(ctx)
	if err != nil {
		return Summary{}, err
	}
	defer cancel()
	cfg := producer.DefaultConfig(opts.Group)
	cfg.NamesrvAddr = opts.NamesrvAddr
	cfg.InstanceName = opts.InstanceName
	cfg.CompressMsgBodyOverHowmuch = math.MaxInt32 // Java's tool: Integer.MAX_VALUE
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	if n := opts.MessageSize * opts.Batch; n > cfg.MaxMessageSize {
		return Summary{}, fmt.Errorf("bench: %d messages of %d bytes make %d bytes a request, over maxMessageSize %d",
			opts.Batch, opts.MessageSize, n, cfg.MaxMessageSize)
	}
	p := producer.NewDefaultMQProducer(cfg)
	if err := p.Start(); err != nil {
		return Summary{}, fmt.Errorf("bench: start producer: %w", err)
	}
	defer p.Shutdown()
	r := &producerRun{opts: opts, p: p, body: makeBody(opts.MessageSize), errs: map[string]int64{}}
	if opts.Async {
		r.window = make(chan struct{}, opts.Inflight)
	}
	var prev snapshot
	stop := reportEvery(ctx, opts.Report, opts.ReportInterval, func(w io.Writer, now time.Time, period time.Duration) {
		cur := r.rt.snapshot()
		iv := r.rt.since(prev, cur)
		prev = cur
		writeProducerLine(w, now, period, iv, r.sendFailed.Load(), r.responseFailed.Load())
	})
	start := wall.Now()
	var senders sync.WaitGroup
	for range opts.Threads {
		senders.Go(func() { r.sender(ctx) })
	}
	senders.Wait()
	r.outstanding.Wait()
	elapsed := wall.Now().Sub(start)
	stop()
	mode := ModeSync
	if opts.Async {
		mode = ModeAsync
	}
	s := Summary{
		Mode:           mode,
		Messages:       r.rt.messages.Load(),
		Requests:       int64(r.rt.hist.Count()),
		SendFailed:     r.sendFailed.Load(),
		ResponseFailed: r.responseFailed.Load(),
		Elapsed:        elapsed,
		Latency:        r.rt.hist.Latency(),
	}
	if len(r.errs) > 0 {
		s.Errors = r.errs
	}
	s.TPS = tps(s.Messages, elapsed)
	return s, nil
}

// writeProducerLine prints one interval as RocketMQ's benchmark producer does: messages per
// second, max and average RT in ms, and the failures so far.
func writeProducerLine(w io.Writer, now time.Time, period time.Duration, iv interval, sendFailed, responseFailed int64) {
	printf(w, "Current Time: %s Send TPS: %d Max RT(ms): %.3f Average RT(ms): %7.3f Send Failed: %d Response Failed: %d\n",
		now.Format(timeLayout), perSecond(iv.messages, period), ms(iv.max), ms(iv.mean), sendFailed, responseFailed)
}

// makeBody returns n bytes of letters (Java: RandomStringUtils.randomAlphanumeric).
func makeBody(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i*7%26)
	}
	return b
}

// claim takes the next request's share of Count: how many messages to send (0: the run is
// over). Without Count every request takes Batch.
func (r *producerRun) claim(ctx context.Context) int {
	if ctx.Err() != nil {
		return 0
	}
	b := int64(r.opts.Batch)
	if r.opts.Count <= 0 {
		return int(b)
	}
	end := r.claimed.Add(b)
	if begin := end - b; begin < r.opts.Count {
		return int(min(end, r.opts.Count) - begin)
	}
	return 0
}

// sender is one sending goroutine: sync, it sends and waits; async, it takes a window token
// and sends, the callback giving the token back.
func (r *producerRun) sender(ctx context.Context) {
	failed := false
	for {
		n := r.claim(ctx)
		if n == 0 {
			return
		}
		if failed { // Java: a failed sender sleeps before it sends again
			select {
			case <-time.After(failurePause):
			case <-ctx.Done():
				return // the claimed messages are never sent: Count was not reached
			}
		}
		if r.opts.Async {
			select {
			case r.window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			r.sendAsync(n)
			continue
		}
		failed = r.sendSync(n) != nil
	}
}

// messages builds the n messages of one request. Java: Producer#buildMessage, with -k's keys.
func (r *producerRun) messages(n int) []*primitive.Message {
	msgs := make([]*primitive.Message, n)
	var keys string
	if r.opts.Keys {
		keys = strconv.FormatInt(wall.Now().Unix(), 10)
	}
	for i := range msgs {
		m := &primitive.Message{Topic: r.opts.Topic, Body: r.body}
		if keys != "" {
			m.PutProperty(primitive.PropertyKeys, keys)
		}
		msgs[i] = m
	}
	return msgs
}

// sendSync sends one request and waits (sends run on the caller's budget, not ctx: a run that
// ends lets its last sends finish).
func (r *producerRun) sendSync(n int) error {
	msgs := r.messages(n)
	begin := wall.Now()
	var err error
	if len(msgs) == 1 && r.opts.Batch == 1 {
		_, err = r.p.Send(context.Background(), msgs[0])
	} else {
		_, err = r.p.SendBatch(context.Background(), msgs)
	}
	r.done(int64(n), wall.Now().Sub(begin), err)
	return err
}

// sendAsync starts one request; its callback records it and frees its window token.
func (r *producerRun) sendAsync(n int) {
	msgs := r.messages(n)
	r.outstanding.Add(1)
	begin := wall.Now()
	cb := func(_ *producer.SendResult, err error) {
		r.done(int64(n), wall.Now().Sub(begin), err)
		<-r.window
		r.outstanding.Done()
	}
	var err error
	if len(msgs) == 1 && r.opts.Batch == 1 {
		err = r.p.SendAsync(context.Background(), msgs[0], cb)
	} else {
		err = r.p.SendBatchAsync(context.Background(), msgs, cb)
	}
	if err != nil { // refused before it went out: cb is never called
		cb(nil, err)
	}
}

// done records one request's outcome: an acknowledged one as a latency sample, a failure in
// its counter (a broker's error code is a response failure, anything else a send failure).
func (r *producerRun) done(n int64, rt time.Duration, err error) {
	if err == nil {
		r.rt.observe(n, rt)
		return
	}
	r.errMu.Lock()
	r.errs[client.ErrorKind(err)]++
	r.errMu.Unlock()
	if _, ok := errors.AsType[*remoting.RemoteError](err); ok {
		r.responseFailed.Add(1)
		return
	}
	r.sendFailed.Add(1)
}
