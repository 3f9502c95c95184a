// Command ch03-store is chapter 3 of the annotated text: the store (消息的存储) — how a message
// becomes bytes in the CommitLog, how the ConsumeQueue and the index follow it, how the store
// recovers after a clean shutdown and after a crash, how old files are deleted, and how the
// broker fails fast when the store is too slow.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  1. a name server and broker-a start; broker-a's store has 4 KiB CommitLog files, 2-unit
//     ConsumeQueue files and tiny index files (8 slots, 6 entries), so every kind of file rolls;
//     three messages are sent (SEND_MESSAGE) and their path into the CommitLog is traced: the
//     third does not fit the first file and goes to the next one behind a blank record;
//  2. the reput service dispatches the records: one ConsumeQueue unit and the index entries of
//     each; the CommitLog, ConsumeQueue and index bytes are printed as tables, and the index is
//     asked for a key (QUERY_MESSAGE) and a record for an offset (VIEW_MESSAGE_BY_ID);
//  3. broker-a stops cleanly and starts again: normal recovery;
//  4. two more messages (one never dispatched), a copy of the files as a crash would leave
//     them (abort file present) with a torn record written after the last one: broker-a starts
//     on the copy and recovers abnormally;
//  5. 73 hours later, at the deleteWhen hour, the expired CommitLog file is deleted, and the
//     ConsumeQueue and index files that only point into it; a consumer behind the deleted files
//     is moved on (PULL_OFFSET_MOVED); a disk above 90 % refuses puts;
//  6. broker-b joins; a put hangs in broker-a's page cache; a producer's send queued behind it
//     is answered SYSTEM_BUSY by BrokerFastFailure and the producer stores it on broker-b, once.
//
// Every step line is logged by the code under mq/ through a trace.Printer; this file drives the
// flow and prints tables of the bytes on disk. The store runs with ManualServices (the chapter
// calls the reput and cleanup passes itself) and a store clock it moves by hand, so the run
// prints the same lines every time: `go test ./ch03-store` compares them with the golden file.
//
// Run: go run ./ch03-store
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("ch03-store", run) }

const (
	clusterName = "DefaultCluster"
	topicName   = "TopicTest"
	group       = "ch03_consumer_group"
)

// epoch is where the store clock starts: 2024-01-01 03:00 UTC. 73 hours later it is 04:00,
// the default deleteWhen hour, when files older than fileReservedTime (72 h) are deleted.
var epoch = time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC)

// sample is one message the chapter sends.
type sample struct {
	queueID int32
	tags    string
	keys    string
	uniq    string
	body    string
}

// the messages of sections 1 and 4: the worked example's "Hello", then two 2000-byte bodies
// (the second does not fit the first 4 KiB file), then two small ones.
var samples = []sample{
	{0, "TagA", "ORDER-1", "C0A8011400002A9F0000000000000001", "Hello"},
	{0, "TagB", "ORDER-2 VIP", "C0A8011400002A9F0000000000000002", strings.Repeat("b", 2000)},
	{1, "TagA", "ORDER-1", "C0A8011400002A9F0000000000000003", strings.Repeat("c", 2000)},
	{0, "TagA", "ORDER-3", "C0A8011400002A9F0000000000000004", "four"},
	{1, "TagB", "ORDER-1", "C0A8011400002A9F0000000000000005", "five"},
}

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch03-store", true, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) (err error) {
	out, gate, dir := stage.Out, stage.Gate, stage.Dir
	env := newEnv(out, stage.Logger, dir)
	if env.Servers, err = stage.StartServers(); err != nil {
		return err
	}
	defer func() {
		gate.Close()
		env.stuck.unblock() // a put still stuck would hold broker-a's shutdown
	}()

	mqtest.Say(out, "== 0. a name server and broker-a (4 KiB CommitLog files, 2-unit ConsumeQueue files, index files of 8 slots and 6 entries) ==")
	a, err := env.startBroker("broker-a", filepath.Join(dir, "broker-a"), true)
	if err != nil {
		return err
	}
	if err := mqtest.CreateTopic(env.Client, a.BrokerAddr(), topicName, 2, protocol.PermRead|protocol.PermWrite); err != nil {
		return err
	}

	mqtest.Say(out, "== 1. 消息的存储 — three messages are sent to broker-a ==")
	for i := 0; i < 3; i++ {
		if err := env.send(a, i); err != nil {
			return err
		}
	}
	root := filepath.Join(dir, "broker-a")
	printRecord(out, root, 0)
	printCommitLog(out, root)

	mqtest.Say(out, "== 2. 实时更新ConsumeQueue与Index文件 — one pass of the reput service ==")
	a.MessageStore().ReputMessageService().RunOnce()
	printConsumeQueues(out, root)
	printIndexFiles(out, root)
	if err := env.queryByKey(a, "ORDER-1"); err != nil {
		return err
	}
	if err := env.viewByOffset(a, 0); err != nil {
		return err
	}

	mqtest.Say(out, "== 3. broker-a shuts down cleanly and starts again: normal recovery ==")
	a.Shutdown()
	if a, err = env.startBroker("broker-a", root, true); err != nil {
		return err
	}
	printQueueState(out, a)

	mqtest.Say(out, "== 4. two more messages, the last not dispatched; then a crash, as kill -9 leaves the files ==")
	if err := env.send(a, 3); err != nil {
		return err
	}
	a.MessageStore().ReputMessageService().RunOnce()
	if err := env.send(a, 4); err != nil {
		return err
	}
	crash := filepath.Join(dir, "broker-a-crashed")
	if err := mqtest.CopyDir(root, crash); err != nil {
		return err
	}
	a.Shutdown()
	end, err := tearTail(crash)
	if err != nil {
		return err
	}
	mqtest.Say(out, "the copy has the abort file, undispatched message 5, and 40 bytes of a torn record at CommitLog offset %d", end)
	if a, err = env.startBroker("broker-a", crash, true); err != nil {
		return err
	}
	printQueueState(out, a)
	printCommitLog(out, crash)

	mqtest.Say(out, "== 5. 73 hours later, 04:00 (deleteWhen): expired files are deleted ==")
	env.clock.Advance(73 * time.Hour)
	if err := stampFiles(crash, time.UnixMilli(epoch.UnixMilli()+10_000)); err != nil {
		return err
	}
	a.MessageStore().CleanFilesPeriodically()
	printQueueState(out, a)
	if err := env.pullFromStart(a); err != nil {
		return err
	}
	mqtest.Say(out, "-- the disk fills up to 95 %%: the next disk check marks it full --")
	env.disk.set(0.95)
	mqtest.Say(out, "disk full: %v", a.MessageStore().IsSpaceFull())
	if resp, err := env.sendRaw(a, sample{1, "TagA", "ORDER-9", "C0A8011400002A9F0000000000000009", "refused"}); err != nil {
		return err
	} else {
		mqtest.Say(out, "send answered code %d (SERVICE_NOT_AVAILABLE): %s", resp.Code, firstWords(resp.Remark, 9))
	}
	env.disk.set(0.40)
	mqtest.Say(out, "the disk is back at 40 %%: disk full = %v", a.MessageStore().IsSpaceFull())

	mqtest.Say(out, "== 6. FastFailure — a put hangs in broker-a's page cache; broker-b takes the send ==")
	return env.fastFailure(a)
}

// env is the scenario's shared state: the output, the clocks and gauges the stores use, the
// name server, the brokers it started and a remoting client.
type env struct {
	*mqtest.Servers // the name server, the brokers and producers, a remoting client

	out    io.Writer
	logger *slog.Logger
	dir    string
	clock  *clock.Manual // the store clock of every broker
	disk   *gauge        // the disk usage every store sees
	stuck  *stuckPut
}

// newEnv is the scenario's state before anything starts: the store clock at epoch, the disk
// 40 % full, no put stuck.
func newEnv(out io.Writer, logger *slog.Logger, dir string) *env {
	return &env{out: out, logger: logger, dir: dir, clock: clock.NewManual(epoch), disk: newGauge(0.40), stuck: newStuckPut()}
}

// startBroker starts a master over the store at root. Its store runs with ManualServices and
// the shared clock, disk gauge and put hook; traced brokers log their steps.
func (e *env) startBroker(name, root string, traced bool) (*broker.BrokerController, error) {
	bc := embedded.BrokerConfig(name, e.Namesrv.Addr())
	bc.BrokerClusterName = clusterName
	bc.BrokerFastFailureEnable = false // the chapter runs the sweep itself
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = root
	sc.MappedFileSizeCommitLog = 4096
	sc.MappedFileSizeConsumeQueue = 2 * store.ConsumeQueueUnitSize
	sc.MaxHashSlotNum, sc.MaxIndexNum = 8, 6
	opts := store.Options{ManualServices: true, Clock: e.clock, Location: time.UTC, DiskUsage: e.disk.get,
		Events: store.EventListener{PutInLock: e.stuck.hook}}
	var tr *trace.Tracer
	if traced {
		tr = trace.New(e.logger, name)
	}
	return e.StartBroker(bc, sc, tr, broker.WithStoreOptions(opts))
}

// send sends samples[i] and prints where it was stored; the store clock moves 2 s first.
func (e *env) send(b *broker.BrokerController, i int) error {
	e.clock.Advance(2 * time.Second)
	resp, err := e.sendRaw(b, samples[i])
	if err != nil {
		return err
	}
	if resp.Code != protocol.Success {
		return fmt.Errorf("send message %d: code %d %s", i+1, resp.Code, resp.Remark)
	}
	mqtest.Say(e.out, "message %d stored: queueId=%s queueOffset=%s", i+1, resp.ExtFields["queueId"], resp.ExtFields["queueOffset"])
	return nil
}

// sendRaw sends one message with SEND_MESSAGE, as a producer would, with a fixed born time.
func (e *env) sendRaw(b *broker.BrokerController, m sample) (*remoting.RemotingCommand, error) {
	props := map[string]string{primitive.PropertyTags: m.tags, primitive.PropertyKeys: m.keys,
		primitive.PropertyUniqClientMessageIDKeyIdx: m.uniq, primitive.PropertyWaitStoreMsgOK: "true"}
	h := protocol.SendMessageRequestHeader{ProducerGroup: "ch03_producer_group", Topic: topicName,
		DefaultTopic: protocol.DefaultTopic, DefaultTopicQueueNums: 4, QueueID: m.queueID,
		BornTimestamp: epoch.UnixMilli(), Properties: primitive.MarshalProperties(props)}
	return mqtest.Invoke(e.Client, b.BrokerAddr(), remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(&h), []byte(m.body)))
}

// queryByKey asks QUERY_MESSAGE for a key, as `mqadmin queryMsgByKey` does.
func (e *env) queryByKey(b *broker.BrokerController, key string) error {
	h := protocol.QueryMessageRequestHeader{Topic: topicName, Key: key, MaxNum: 32, BeginTimestamp: 0, EndTimestamp: 1 << 62}
	resp, err := mqtest.Invoke(e.Client, b.BrokerAddr(), remoting.NewRequest(protocol.QueryMessage, protocol.EncodeHeader(&h), nil))
	if err != nil {
		return err
	}
	if resp.Code != protocol.Success {
		return fmt.Errorf("query %s: code %d %s", key, resp.Code, resp.Remark)
	}
	msgs, err := primitive.DecodeMessages(resp.Body)
	if err != nil {
		return err
	}
	var found []string
	for _, m := range msgs {
		found = append(found, fmt.Sprintf("%d (%s, queue %d offset %d)", m.CommitLogOffset, m.Properties[primitive.PropertyKeys], m.QueueID, m.QueueOffset))
	}
	mqtest.Say(e.out, "QUERY_MESSAGE key=%s: %d messages at CommitLog offsets %s; index last updated at offset %s",
		key, len(msgs), strings.Join(found, ", "), resp.ExtFields["indexLastUpdatePhyoffset"])
	return nil
}

// viewByOffset asks VIEW_MESSAGE_BY_ID for the record at a CommitLog offset (the offset an
// offsetMsgId carries).
func (e *env) viewByOffset(b *broker.BrokerController, offset int64) error {
	req := remoting.NewRequest(protocol.ViewMessageByID, protocol.EncodeHeader(&protocol.ViewMessageRequestHeader{Offset: offset}), nil)
	resp, err := mqtest.Invoke(e.Client, b.BrokerAddr(), req)
	if err != nil {
		return err
	}
	m, _, err := primitive.DecodeMessage(resp.Body)
	if err != nil {
		return fmt.Errorf("view message at %d: code %d %s: %w", offset, resp.Code, resp.Remark, err)
	}
	mqtest.Say(e.out, "VIEW_MESSAGE_BY_ID offset=%d: a %d-byte record, body %q", offset, m.StoreSize, m.Body)
	return nil
}

// pullFromStart pulls queue 0 from offset 0, as a consumer that fell behind would.
func (e *env) pullFromStart(b *broker.BrokerController) error {
	h := protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: topicName, QueueID: 0, QueueOffset: 0,
		MaxMsgNums: 32, SysFlag: protocol.PullFlagSubscription, Subscription: "*", ExpressionType: "TAG"}
	resp, err := mqtest.Invoke(e.Client, b.BrokerAddr(), remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(&h), nil))
	if err != nil {
		return err
	}
	mqtest.Say(e.out, "a consumer pulls queue 0 from offset 0: code %d (PULL_OFFSET_MOVED), nextBeginOffset=%s minOffset=%s",
		resp.Code, resp.ExtFields["nextBeginOffset"], resp.ExtFields["minOffset"])
	return nil
}

// fastFailure is section 6.
func (e *env) fastFailure(a *broker.BrokerController) error {
	b, err := e.startBroker("broker-b", filepath.Join(e.dir, "broker-b"), false)
	if err != nil {
		return err
	}
	if err := mqtest.CreateTopic(e.Client, b.BrokerAddr(), topicName, 2, protocol.PermRead|protocol.PermWrite); err != nil {
		return err
	}
	if err := mqtest.WaitRouted(e.Client, e.Namesrv.Addr(), topicName, 2); err != nil {
		return err
	}
	pc := producer.DefaultConfig("ch03_producer_group")
	pc.NamesrvAddr = e.Namesrv.Addr()
	pc.InstanceName = "ch03-" + strconv.Itoa(os.Getpid())
	pc.Options.DisableScheduledTasks = true
	pc.Options.IndexSeed = func() int32 { return -1 } // the first send goes to the first queue: broker-a's
	// SYSTEM_BUSY is not among Java's default retry codes; a producer that wants a busy broker's
	// sends retried elsewhere adds it (DefaultMQProducer#addRetryResponseCode).
	pc.RetryResponseCodes = []int32{protocol.TopicNotExist, protocol.ServiceNotAvailable, protocol.SystemError,
		protocol.NoPermission, protocol.NoBuyerID, protocol.NotInCurrentUnit, remoting.SystemBusy}
	p := producer.NewDefaultMQProducer(pc)
	if err := p.Start(); err != nil {
		return err
	}
	defer p.Shutdown()

	mqtest.Say(e.out, "-- a put on broker-a takes the put lock and hangs there (a slow page fault) --")
	e.stuck.arm()
	stuck := make(chan *remoting.RemotingCommand, 1)
	go func() {
		resp, err := e.sendRaw(a, sample{0, "TagA", "STUCK", "C0A8011400002A9F0000000000000010", "stuck"})
		if err != nil {
			resp = remoting.NewResponse(-1, err.Error())
		}
		stuck <- resp
	}()
	<-e.stuck.entered

	mqtest.Say(e.out, "-- the producer sends ORDER-FF; its request waits in broker-a's send queue --")
	type result struct {
		r   *producer.SendResult
		err error
	}
	sent := make(chan result, 1)
	go func() {
		msg := &primitive.Message{Topic: topicName, Body: []byte("fast failure"),
			Properties: map[string]string{primitive.PropertyKeys: "ORDER-FF"}}
		r, err := p.Send(context.Background(), msg)
		sent <- result{r, err}
	}()
	ff := a.BrokerFastFailure()
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return ff.QueuedSends() == 1 }); err != nil {
		return fmt.Errorf("the producer's send never queued on broker-a: %w", err)
	}
	e.clock.Advance(1500 * time.Millisecond)
	mqtest.Say(e.out, "-- 1.5 s later the put still holds the lock: page cache busy = %v --", a.MessageStore().IsOSPageCacheBusy())
	if n := ff.CleanExpiredRequest(); n != 1 {
		return fmt.Errorf("the sweep answered %d requests, want 1", n)
	}
	res := <-sent
	if res.err != nil {
		return fmt.Errorf("the producer's send failed: %w", res.err)
	}
	mqtest.Say(e.out, "the producer got SYSTEM_BUSY from broker-a and retried: %s on %s queue %d",
		res.r.SendStatus, res.r.MessageQueue.BrokerName, res.r.MessageQueue.QueueID)
	e.stuck.unblock()
	if r := <-stuck; r.Code != protocol.Success {
		return fmt.Errorf("the stuck put: code %d %s", r.Code, r.Remark)
	}
	a.MessageStore().ReputMessageService().RunOnce()
	b.MessageStore().DoReput()
	printStoredOnce(e.out, []*broker.BrokerController{a, b}, "ORDER-FF")
	return nil
}

// tearTail writes the first 40 bytes of a copy of the last record right after it, as a crash
// in the middle of an append would leave them, and returns where they start.
func tearTail(root string) (int64, error) {
	files, err := commitLogFiles(root)
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("tear tail: %v", err)
	}
	// the newest file with a record (a newer one may exist, created ahead and still empty)
	var last logFile
	var data []byte
	var lastStart, end int
	for i := len(files) - 1; i >= 0 && end == 0; i-- {
		if data, err = os.ReadFile(files[i].path); err != nil {
			return 0, err
		}
		last = files[i]
		for _, r := range walkRecords(data) {
			if !r.blank {
				lastStart, end = r.pos, r.pos+r.size
			}
		}
	}
	if end == 0 {
		return 0, errors.New("tear tail: no record")
	}
	torn := append([]byte(nil), data[lastStart:lastStart+40]...)
	f, err := os.OpenFile(last.path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.WriteAt(torn, int64(end)); err != nil {
		return 0, err
	}
	return last.from + int64(end), nil
}

// stampFiles sets the modification time of every CommitLog file: the store compares these
// times with its own clock, which in this chapter is not the wall clock.
func stampFiles(root string, t time.Time) error {
	files, err := commitLogFiles(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Chtimes(f.path, t, t); err != nil {
			return err
		}
	}
	return nil
}

// firstWords returns the first n words of s.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = append(f[:n], "...")
	}
	return strings.Join(f, " ")
}

// gauge is the disk usage the stores see (a fraction, 0..1).
type gauge struct{ v atomic.Uint64 }

func newGauge(v float64) *gauge { g := &gauge{}; g.set(v); return g }
func (g *gauge) set(v float64)  { g.v.Store(uint64(v * 1e6)) }
func (g *gauge) get(string) float64 {
	return float64(g.v.Load()) / 1e6
}

// stuckPut makes one armed put hang inside the put lock until unblocked.
type stuckPut struct {
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newStuckPut() *stuckPut {
	return &stuckPut{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (p *stuckPut) arm() { p.armed.Store(true) }

func (p *stuckPut) hook() {
	if p.armed.CompareAndSwap(true, false) {
		p.entered <- struct{}{}
		<-p.release
	}
}

func (p *stuckPut) unblock() { p.once.Do(func() { close(p.release) }) }
