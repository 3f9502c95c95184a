// Command ch04-flush is chapter 4 of the annotated text: flushing to disk (刷盘机制) — when a
// message the CommitLog took is forced onto the disk, and what the producer's answer promises.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  1. a name server and broker-a with flushDiskType=SYNC_FLUSH; three producers send one
//     message each; every put is appended and then waits, its GroupCommitRequest queued in
//     GroupCommitService's requestsWrite;
//  2. one pass of GroupCommitService: the lists are swapped and one doCommit — one fdatasync —
//     answers all three sends;
//  3. the disk "stalls" (no group commit runs): 5 s later on the store clock the
//     FlushDiskWatcher answers a fourth send FLUSH_DISK_TIMEOUT; the message is stored;
//  4. broker-b with ASYNC_FLUSH and transientStorePoolEnable: puts go into a write buffer
//     taken from the TransientStorePool; CommitRealTimeService commits it into the file once
//     commitCommitLogLeastPages (4) pages are written — only then can readers see them — and
//     FlushRealTimeService flushes once flushCommitLogLeastPages (4) pages are committed; the
//     thorough intervals (200 ms, 10 s) commit and flush whatever is left; a full file gives
//     its buffer back.
//
// Every step line is logged by the code under mq/ through a trace.Printer; this file drives the
// flow. The stores run with ManualServices — the chapter calls the loop bodies of
// GroupCommitService, FlushDiskWatcher, CommitRealTimeService and FlushRealTimeService itself —
// and a store clock it moves by hand, so the run prints the same lines every time:
// `go test ./ch04-flush` compares them with the golden file.
//
// Run: go run ./ch04-flush
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("ch04-flush", run) }

const (
	clusterName = "DefaultCluster"
	syncTopic   = "TopicSync"
	asyncTopic  = "TopicAsync"
	// fileSize is the CommitLog file size of both brokers: 64 KiB, 16 pages of 4 KiB.
	fileSize = 64 * 1024
	pageSize = 4096
)

// epoch is where the store clock starts (2024-01-01 00:00 UTC).
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch04-flush", true, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) (err error) {
	e := newEnv(stage.Out, stage.Logger, stage.Dir)
	if e.Servers, err = stage.StartServers(); err != nil {
		return err
	}
	if err := e.syncFlush(); err != nil {
		return err
	}
	return e.asyncFlushWithPool()
}

// syncFlush is sections 0–3: broker-a with SYNC_FLUSH.
func (e *env) syncFlush() error {
	mqtest.Say(e.out, "== 0. a name server and broker-a: flushDiskType=SYNC_FLUSH, syncFlushTimeout=5000 ms ==")
	a, err := e.startBroker("broker-a", func(sc storeSetup) { sc.FlushDiskType = store.SyncFlush })
	if err != nil {
		return err
	}
	if err := e.createTopic(a, syncTopic, 3); err != nil {
		return err
	}
	var ps []*producer.DefaultMQProducer
	for i := 1; i <= 3; i++ {
		p, err := e.startProducer(fmt.Sprintf("producer-%d", i), int32(i-2)) // queues 0, 1, 2
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	ms := a.MessageStore()
	gc := ms.GroupCommitService()

	mqtest.Say(e.out, "== 1. 同步刷盘 — three producers send; each put is appended, then waits for the flush ==")
	var sends []<-chan sendOutcome
	for i, p := range ps {
		sends = append(sends, sendAsync(p, syncTopic, fmt.Sprintf("hello from producer-%d", i+1)))
		if err := mqtest.WaitUntil(10*time.Second, func() bool { return gc.PendingRequests() == i+1 }); err != nil {
			return fmt.Errorf("producer-%d's put never queued a request: %w", i+1, err)
		}
		mqtest.Say(e.out, "producer-%d's send waits: requestsWrite holds %d request(s); flushedWhere=%d, the log ends at %d",
			i+1, gc.PendingRequests(), ms.FlushedWhere(), ms.GetMaxPhyOffset())
	}

	mqtest.Say(e.out, "== 2. GroupCommitService — one pass of its loop: one doCommit, one fdatasync, three answers ==")
	gc.RunOnce()
	for i, ch := range sends {
		o := <-ch
		if o.err != nil {
			return fmt.Errorf("producer-%d: %w", i+1, o.err)
		}
		mqtest.Say(e.out, "producer-%d: %s, queue %d, queueOffset %d", i+1, o.r.SendStatus, o.r.MessageQueue.QueueID, o.r.QueueOffset)
	}
	mqtest.Say(e.out, "3 sends, %d group commit; flushedWhere=%d = the end of the log; checkpoint physicMsgTimestamp=%s",
		gc.GroupCommits(), ms.FlushedWhere(), clockString(ms.Checkpoint().PhysicMsgTimestamp()))

	mqtest.Say(e.out, "== 3. FlushDiskWatcher — the disk stalls: no group commit runs for 5 s ==")
	ch := sendAsync(ps[0], syncTopic, "waiting for a stalled disk")
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return gc.PendingRequests() == 1 }); err != nil {
		return fmt.Errorf("the fourth put never queued a request: %w", err)
	}
	e.clock.Advance(4999 * time.Millisecond)
	mqtest.Say(e.out, "4999 ms later: the watcher times out %d request(s)", ms.FlushDiskWatcher().RunOnce())
	e.clock.Advance(time.Millisecond)
	mqtest.Say(e.out, "-- 5000 ms after the put (syncFlushTimeout) --")
	n := ms.FlushDiskWatcher().RunOnce()
	o := <-ch
	if o.err != nil {
		return fmt.Errorf("producer-1's fourth send: %w", o.err)
	}
	mqtest.Say(e.out, "the watcher timed out %d request; producer-1: %s, queue %d, queueOffset %d — stored, its flush unknown",
		n, o.r.SendStatus, o.r.MessageQueue.QueueID, o.r.QueueOffset)
	mqtest.Say(e.out, "-- the disk comes back: the next group commit flushes the record, whose request was answered already --")
	gc.RunOnce()
	mqtest.Say(e.out, "flushedWhere=%d = the end of the log %d", ms.FlushedWhere(), ms.GetMaxPhyOffset())
	return nil
}

// asyncFlushWithPool is section 4: broker-b with ASYNC_FLUSH and the TransientStorePool.
func (e *env) asyncFlushWithPool() error {
	mqtest.Say(e.out, "== 4. 异步刷盘 — broker-b: ASYNC_FLUSH, transientStorePoolEnable=true, 3 write buffers of 64 KiB ==")
	b, err := e.startBroker("broker-b", func(sc storeSetup) {
		sc.TransientStorePoolEnable = true
		sc.TransientStorePoolSize = 3
	})
	if err != nil {
		return err
	}
	if err := e.createTopic(b, asyncTopic, 1); err != nil {
		return err
	}
	p, err := e.startProducer("producer-4", -1)
	if err != nil {
		return err
	}
	ms := b.MessageStore()
	commit, flush := ms.CommitRealTimeService(), ms.FlushRealTimeService()
	// The services' first passes are thorough (nothing is written yet); from now on the
	// thorough intervals count from here on the store clock.
	commit.RunOnce()
	flush.RunOnce()
	positions := func(what string) {
		mqtest.Say(e.out, "%s\n   written=%d (page %d)  committed=%d (page %d)  flushed=%d (page %d)  free buffers=%d",
			what, ms.MaxWrotePosition(), ms.MaxWrotePosition()/pageSize, ms.CommittedWhere(), ms.CommittedWhere()/pageSize,
			ms.FlushedWhere(), ms.FlushedWhere()/pageSize, ms.RemainTransientStoreBufferNumbs())
	}
	// send prints the heading of a step and sends n 6000-byte messages to broker-b.
	send := func(heading string, n int) error {
		mqtest.Say(e.out, "%s", heading)
		for i := 0; i < n; i++ {
			r, err := p.Send(context.Background(), &primitive.Message{Topic: asyncTopic, Body: []byte(strings.Repeat("a", 6000))})
			if err != nil {
				return err
			}
			if r.SendStatus != producer.SendOK {
				return fmt.Errorf("send to broker-b: %s", r.SendStatus)
			}
		}
		return nil
	}

	if err := send("-- two 6000-byte messages go into the write buffer of the first file --", 2); err != nil {
		return err
	}
	positions("after 2 sends: nothing is readable yet")
	commit.RunOnce()
	positions("commit pass (commitCommitLogLeastPages=4): held back, 3 new pages")

	if err := send("-- three more --", 3); err != nil {
		return err
	}
	commit.RunOnce()
	positions("commit pass: 7 new pages are committed — now readers can see them")
	flush.RunOnce()
	positions("flush pass (flushCommitLogLeastPages=4): 7 new pages are flushed")

	mqtest.Say(e.out, "-- one small message: less than a page --")
	if _, err := p.Send(context.Background(), &primitive.Message{Topic: asyncTopic, Body: []byte("small")}); err != nil {
		return err
	}
	commit.RunOnce()
	positions("commit pass: held back, no new page")
	e.clock.Advance(200 * time.Millisecond)
	mqtest.Say(e.out, "-- 200 ms later (commitCommitLogThoroughInterval): the commit takes any byte --")
	commit.RunOnce()
	flush.RunOnce()
	positions("commit pass, then flush pass: the flush is held back, no new page")
	e.clock.Advance(10 * time.Second)
	mqtest.Say(e.out, "-- 10 s later (flushCommitLogThoroughInterval): the flush takes any byte --")
	flush.RunOnce()
	positions("flush pass")

	if err := send("-- six more: the first file fills (a blank record ends it); the second takes a buffer --", 6); err != nil {
		return err
	}
	positions("after 6 sends")
	commit.RunOnce()
	positions("commit pass (thorough: 10 s since the last): the full first file is committed to its end and gives its buffer back")
	commit.RunOnce()
	positions("commit pass on the second file: held back, 1 new page")
	flush.RunOnce()
	positions("flush pass: a full file is always flushed")
	return nil
}

// env is the scenario's shared state: the output, the store clock, the name server, the
// brokers and producers it started and a remoting client.
type env struct {
	*mqtest.Servers // the name server, the brokers and producers, a remoting client

	out    io.Writer
	logger *slog.Logger
	dir    string
	clock  *clock.Manual // the store clock of every broker
}

// newEnv is the scenario's state before anything starts: the store clock at epoch.
func newEnv(out io.Writer, logger *slog.Logger, dir string) *env {
	return &env{out: out, logger: logger, dir: dir, clock: clock.NewManual(epoch)}
}

// startBroker starts a traced master with 64 KiB CommitLog files whose store runs with
// ManualServices and the shared clock; adjust sets the flush settings.
func (e *env) startBroker(name string, adjust func(storeSetup)) (*broker.BrokerController, error) {
	bc := embedded.BrokerConfig(name, e.Namesrv.Addr())
	bc.BrokerClusterName = clusterName
	bc.BrokerFastFailureEnable = false
	sc := embedded.SmallStoreConfig(filepath.Join(e.dir, name))
	sc.MappedFileSizeCommitLog = fileSize
	opts := store.Options{ManualServices: true, Clock: e.clock, Location: time.UTC}
	adjust(storeSetup{&sc, &opts})
	return e.StartBroker(bc, sc, trace.New(e.logger, name), broker.WithStoreOptions(opts))
}

// startProducer starts a producer whose round robin starts after seed (seed+1 is its first
// queue) and which never compresses (the chapter counts pages of raw bodies).
func (e *env) startProducer(name string, seed int32) (*producer.DefaultMQProducer, error) {
	pc := producer.DefaultConfig("ch04_producer_group")
	pc.NamesrvAddr = e.Namesrv.Addr()
	pc.InstanceName = name + "-" + strconv.Itoa(os.Getpid())
	pc.Options.DisableScheduledTasks = true
	pc.Options.IndexSeed = func() int32 { return seed }
	pc.CompressMsgBodyOverHowmuch = 1 << 30
	pc.SendMsgTimeout = 30 * time.Second
	return e.StartProducer(pc)
}

// createTopic sends UPDATE_AND_CREATE_TOPIC to the broker, as `mqadmin updateTopic -b` does, and
// waits until the name server routes the topic to it.
func (e *env) createTopic(b *broker.BrokerController, topic string, queues int32) error {
	if err := mqtest.CreateTopic(e.Client, b.BrokerAddr(), topic, queues, protocol.PermRead|protocol.PermWrite); err != nil {
		return err
	}
	return mqtest.WaitRouted(e.Client, e.Namesrv.Addr(), topic, 1)
}

// sendOutcome is what a send returned.
type sendOutcome struct {
	r   *producer.SendResult
	err error
}

// sendAsync sends body to topic from its own goroutine and delivers the outcome.
func sendAsync(p *producer.DefaultMQProducer, topic, body string) <-chan sendOutcome {
	ch := make(chan sendOutcome, 1)
	go func() {
		r, err := p.Send(context.Background(), &primitive.Message{Topic: topic, Body: []byte(body)})
		ch <- sendOutcome{r, err}
	}()
	return ch
}

// clockString prints a store time as the offset from the chapter's epoch.
func clockString(ms int64) string {
	return fmt.Sprintf("epoch+%dms", ms-epoch.UnixMilli())
}

// storeSetup is what startBroker's adjust may change: RocketMQ's store config and the store's
// Go-only options.
type storeSetup struct {
	*store.MessageStoreConfig
	*store.Options
}
