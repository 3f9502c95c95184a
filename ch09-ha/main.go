// Command ch09-ha is chapter 9 of the annotated text: master/slave replication (主从同步实现原理)
// — how a slave copies its master's CommitLog byte for byte over a TCP connection of its own,
// and how a SYNC_MASTER answers a producer only once a slave holds the message.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server, broker-a as ASYNC_MASTER and its slave (the same brokerName, brokerId=1,
//     brokerRole=SLAVE); both start their HAService, the slave learns the master's HA
//     address from its registration answer and copies the master's topics (SlaveSynchronize);
//  1. the slave connects: AcceptSocketService accepts it, HAClient takes the connection;
//  2. the slave reports its max offset (8 bytes: 0, an empty log); the master's
//     ReadSocketService reads it: transfer starts there;
//  3. a producer sends 3 messages (not traced: chapter 2 shows sending); the master answers
//     at once (ASYNC_MASTER); WriteSocketService sends them in frames of at most
//     haTransferBatchSize (512 bytes here, so a record is cut across two frames); the slave
//     appends each frame at exactly its offset, reports the new end, and its own reput builds
//     its ConsumeQueue behind;
//  4. 5 s of silence: the master sends a heartbeat header, the slave its report again;
//  5. the master becomes SYNC_MASTER: a send waits in GroupTransferService until the slave's
//     report reaches the end of its record (SEND_OK); a send whose bytes the slave does not
//     get in syncFlushTimeout (5 s) is answered FLUSH_SLAVE_TIMEOUT — and is stored anyway;
//  6. the slave catches up; both logs are byte-identical.
//
// Every step line is logged by the code under mq/ through a trace.Printer; this file drives the
// flow. The stores run with ManualServices and one store clock the chapter moves by hand: the
// HA loops run no goroutine of their own, and the chapter plays each of their passes
// (AcceptOne, ConnectMaster, ReportOnce, ReadOnce, TransferOnce, DoWaitTransfer) over real TCP,
// so the run prints the same lines every time: `go test ./ch09-ha` compares them with the
// golden file.
//
// Run: go run ./ch09-ha
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
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
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("ch09-ha", run) }

const (
	clusterName = "DefaultCluster"
	brokerName  = "broker-a"
	topicName   = "TopicHA"
	// fileSize is the CommitLog file size of both brokers: 64 KiB.
	fileSize = 64 * 1024
	// batchSize is the chapter's haTransferBatchSize: 512 bytes instead of 32 KiB, so that three
	// small messages take two frames and one record is cut between them.
	batchSize = 512
)

// epoch is where the store clock starts (2024-01-01 00:00 UTC).
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch09-ha", true, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) (err error) {
	e := newEnv(stage.Out, stage.Logger, stage.Dir)
	e.gateFn = func(open bool) {
		if open {
			stage.Gate.Open()
		} else {
			stage.Gate.Close()
		}
	}
	if e.Servers, err = stage.StartServers(); err != nil {
		return err
	}
	mqtest.Say(e.out, "== 0. a name server, %s (ASYNC_MASTER, brokerId=0) and its slave (SLAVE, brokerId=1) ==", brokerName)
	if err := e.startPair(); err != nil {
		return err
	}
	if err := e.connect(); err != nil {
		return err
	}
	if err := e.asyncMaster(); err != nil {
		return err
	}
	if err := e.heartbeats(); err != nil {
		return err
	}
	if err := e.syncMaster(); err != nil {
		return err
	}
	return e.catchUp()
}

// startPair is section 0: the master, the topic, the slave, the producer.
func (e *env) startPair() (err error) {
	if err := e.startMaster(store.AsyncMaster, 1); err != nil {
		return err
	}
	if e.slave, err = e.startBroker(brokerName+"-slave", 1, store.Slave); err != nil {
		return err
	}
	// With ManualServices the slave's SlaveSynchronize does not run on its own: one pass by hand
	// copies the master's topics (and offsets, subscription groups) and registers them.
	changed, err := e.slave.SlaveSynchronize().SyncAll()
	if err != nil {
		return err
	}
	if changed {
		e.slave.RegisterBrokerAll()
	}
	mqtest.Say(e.out, "SlaveSynchronize copied the master's topics to the slave: %s is there: %t", topicName,
		e.slave.TopicConfigManager().SelectTopicConfig(topicName) != nil)
	follows := e.slave.HAService().HAClient().MasterAddress()
	mqtest.Say(e.out, "the slave follows the HA address the name server gave it: the master's HA port: %t",
		follows == e.master.HAServerAddr())
	route, err := mqtest.QueryRoute(e.Client, e.Namesrv.Addr(), topicName)
	if err != nil {
		return err
	}
	mqtest.Say(e.out, "the route of %s (GET_ROUTEINFO_BY_TOPIC) lists both:", topicName)
	t := mqtest.NewTable(e.out, "brokerName", "brokerId", "role", "address")
	for _, bd := range route.BrokerDatas {
		for _, id := range sortedIDs(bd.BrokerAddrs) {
			role := "master"
			if id != protocol.MasterID {
				role = "slave"
			}
			t.Row(bd.BrokerName, id, role, addrName(bd.BrokerAddrs[id], e.master, e.slave))
		}
	}
	t.Render()
	e.producer, err = e.startProducer("producer-1")
	return err
}

// connect is sections 1 and 2: the connection and the slave's first report.
func (e *env) connect() (err error) {
	mqtest.Say(e.out, "== 1. 监听从节点连接请求 / 连接主节点 — the slave dials the master's haListenPort; the master accepts ==")
	client := e.slave.HAService().HAClient()
	if err := client.Dial(); err != nil {
		return fmt.Errorf("the slave cannot dial its master: %w", err)
	}
	if e.conn, err = e.master.HAService().AcceptSocketService().AcceptOne(); err != nil {
		return err
	}
	if !client.ConnectMaster() {
		return fmt.Errorf("the slave holds no connection to its master")
	}
	mqtest.Say(e.out, "the master holds %d slave connection(s)", e.master.HAService().ConnectionCount())

	mqtest.Say(e.out, "== 2. 发送主从同步消息拉取偏移量 — the slave reports its max offset (8 bytes); the master reads it ==")
	if !client.ReportOnce() {
		return fmt.Errorf("the slave did not report")
	}
	if err := e.conn.ReadOnce(); err != nil {
		return err
	}
	mqtest.Say(e.out, "slaveRequestOffset=%d: the master will transfer from there; push2SlaveMaxOffset=%d",
		e.conn.SlaveRequestOffset(), e.master.HAService().Push2SlaveMaxOffset())
	return nil
}

// asyncMaster is section 3: three sends, answered at once, replicated frame by frame.
func (e *env) asyncMaster() error {
	mqtest.Say(e.out, "== 3. ASYNC_MASTER — 3 sends (not traced), each answered at once; then the transfer, frame by frame ==")
	e.gate(false)
	for i := 1; i <= 3; i++ {
		r, err := e.producer.Send(context.Background(), e.message(fmt.Sprintf("message %d ", i), 120))
		if err != nil {
			e.gate(true)
			return err
		}
		mqtest.Say(e.out, "send %d: %s, queueOffset %d; master max offset %d, slave max offset %d", i, r.SendStatus,
			r.QueueOffset, e.masterStore().GetMaxPhyOffset(), e.slaveStore().GetMaxPhyOffset())
	}
	e.masterStore().DoReput() // the master's own ConsumeQueue (chapter 3)
	e.gate(true)
	frames, err := e.transferAll()
	if err != nil {
		return err
	}
	e.framesTable("the frames the master sent (haTransferBatchSize=512):", frames)
	e.offsetsTable()
	return nil
}

// heartbeats is section 4: nothing to send for 5 s.
func (e *env) heartbeats() error {
	mqtest.Say(e.out, "== 4. 5 s without data (haSendHeartbeatInterval): a heartbeat header each way ==")
	e.clock.Advance(5*time.Second + time.Millisecond)
	sent, err := e.conn.TransferOnce()
	if err != nil || !sent {
		return fmt.Errorf("no heartbeat from the master (sent=%t): %v", sent, err)
	}
	if err := e.slave.HAService().HAClient().ReadOnce(); err != nil {
		return err
	}
	if !e.slave.HAService().HAClient().ReportOnce() {
		return fmt.Errorf("no heartbeat report from the slave")
	}
	if err := e.conn.ReadOnce(); err != nil {
		return err
	}
	mqtest.Say(e.out, "the master's heartbeat carried no body; the slave's report repeated %d", e.conn.SlaveAckOffset())
	return nil
}

// syncMaster is section 5: a send that waits for the slave, and one that times out.
func (e *env) syncMaster() error {
	mqtest.Say(e.out, "== 5. SYNC_MASTER — the master's brokerRole becomes SYNC_MASTER; a send waits for the slave ==")
	e.masterStore().Config().BrokerRole = store.SyncMaster
	gt := e.master.HAService().GroupTransferService()
	ch := e.sendAsync(e.message("sync ", 60))
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return gt.PendingRequests() == 1 }); err != nil {
		return fmt.Errorf("the SYNC_MASTER put never queued a request: %w", err)
	}
	mqtest.Say(e.out, "-- the send has no answer: its request waits in requestsWrite (the slave has %d, the record ends at %d) --",
		e.master.HAService().Push2SlaveMaxOffset(), e.masterStore().GetMaxPhyOffset())
	mqtest.Say(e.out, "GroupTransferService pass before the transfer: %d answered", gt.DoWaitTransfer())
	if _, err := e.transferAll(); err != nil {
		return err
	}
	mqtest.Say(e.out, "-- the slave's report moved push2SlaveMaxOffset to %d --", e.master.HAService().Push2SlaveMaxOffset())
	n := gt.DoWaitTransfer()
	o := <-ch
	if o.err != nil {
		return o.err
	}
	mqtest.Say(e.out, "GroupTransferService pass: %d answered; producer-1: %s, queueOffset %d", n, o.r.SendStatus, o.r.QueueOffset)

	mqtest.Say(e.out, "-- the next send's bytes do not reach the slave (no transfer runs) for syncFlushTimeout (5000 ms) --")
	ch = e.sendAsync(e.message("late ", 60))
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return gt.PendingRequests() == 1 }); err != nil {
		return fmt.Errorf("the second SYNC_MASTER put never queued a request: %w", err)
	}
	e.clock.Advance(4999 * time.Millisecond)
	mqtest.Say(e.out, "4999 ms later: %d answered", gt.DoWaitTransfer())
	e.clock.Advance(time.Millisecond)
	mqtest.Say(e.out, "-- 5000 ms after the put --")
	n = gt.DoWaitTransfer()
	o = <-ch
	if o.err != nil {
		return o.err
	}
	mqtest.Say(e.out, "%d answered; producer-1: %s, queueOffset %d — stored on the master, its copy unknown", n, o.r.SendStatus, o.r.QueueOffset)
	return nil
}

// catchUp is section 6: the slave gets the rest; the logs are compared.
func (e *env) catchUp() error {
	mqtest.Say(e.out, "== 6. the transfer runs again: the slave catches up ==")
	frames, err := e.transferAll()
	if err != nil {
		return err
	}
	e.framesTable("the frames the master sent:", frames)
	e.gate(false)
	e.masterStore().DoReput() // the master's own ConsumeQueue (chapter 3)
	e.gate(true)
	e.offsetsTable()
	same, err := sameCommitLog(e.masterStore().Config().StorePathCommitLog, e.slaveStore().Config().StorePathCommitLog)
	if err != nil {
		return err
	}
	mqtest.Say(e.out, "the slave's CommitLog file is byte-identical to the master's: %t", same)
	return nil
}

// frame is one transfer frame the chapter saw go out: its header's offset and body size.
type frame struct {
	offset store.CommitLogOffset
	size   int64
}

// transferAll plays frames until the slave has the master's log: per frame the master's
// WriteSocketService pass, the slave's read (append and report), the master's read of that
// report and one pass of the slave's reput. It returns the frames.
func (e *env) transferAll() ([]frame, error) {
	var frames []frame
	client := e.slave.HAService().HAClient()
	for e.slaveStore().GetMaxPhyOffset() < e.masterStore().GetMaxPhyOffset() {
		from := e.slaveStore().GetMaxPhyOffset()
		sent, err := e.conn.TransferOnce()
		if err != nil {
			return nil, err
		}
		if !sent {
			return nil, fmt.Errorf("the master sent nothing at %d", from)
		}
		if err := client.ReadOnce(); err != nil {
			return nil, err
		}
		if err := e.conn.ReadOnce(); err != nil {
			return nil, err
		}
		e.slaveStore().DoReput()
		frames = append(frames, frame{from, int64(e.slaveStore().GetMaxPhyOffset() - from)})
		mqtest.Say(e.out, "slave: max offset %d, ConsumeQueue %s-0 holds %d unit(s)", e.slaveStore().GetMaxPhyOffset(),
			topicName, e.slaveStore().GetMaxOffsetInQueue(topicName, 0))
	}
	return frames, nil
}

// framesTable prints the frames: header offset, body size, end.
func (e *env) framesTable(title string, frames []frame) {
	mqtest.Say(e.out, "%s", title)
	t := mqtest.NewTable(e.out, "frame", "header offset", "header body size", "body ends at")
	for i, f := range frames {
		t.Row(i+1, f.offset, f.size, int64(f.offset)+f.size)
	}
	t.Render()
}

// offsetsTable prints master and slave side by side.
func (e *env) offsetsTable() {
	t := mqtest.NewTable(e.out, "broker", "CommitLog max offset", "units in queue 0", "acknowledged by a slave")
	t.Row("master (id 0)", e.masterStore().GetMaxPhyOffset(), e.masterStore().GetMaxOffsetInQueue(topicName, 0),
		e.master.HAService().Push2SlaveMaxOffset())
	t.Row("slave (id 1)", e.slaveStore().GetMaxPhyOffset(), e.slaveStore().GetMaxOffsetInQueue(topicName, 0), "-")
	t.Render()
}

// env is the scenario's shared state.
type env struct {
	*mqtest.Servers // the name server, the brokers and producers, a remoting client

	out      io.Writer
	logger   *slog.Logger
	gateFn   func(open bool)
	dir      string
	clock    *clock.Manual // the store clock of both brokers
	master   *broker.BrokerController
	slave    *broker.BrokerController
	conn     *ha.HAConnection // the master's side of the slave's connection
	producer *producer.DefaultMQProducer
}

// newEnv is the scenario's state before anything starts: the store clock at epoch.
func newEnv(out io.Writer, logger *slog.Logger, dir string) *env {
	return &env{out: out, logger: logger, dir: dir, clock: clock.NewManual(epoch)}
}

func (e *env) masterStore() *store.DefaultMessageStore { return e.master.MessageStore() }
func (e *env) slaveStore() *store.DefaultMessageStore  { return e.slave.MessageStore() }

// gate opens or closes the trace printer (a no-op in tests that print nothing).
func (e *env) gate(open bool) {
	if e.gateFn != nil {
		e.gateFn(open)
	}
}

// startBroker starts a traced broker of brokerName with 64 KiB CommitLog files, its store
// running with ManualServices on the shared clock, its HA steps traced under name; adjust (the
// exercises') changes the store's settings last.
func (e *env) startBroker(name string, id int64, role string, adjust ...func(storeSetup)) (*broker.BrokerController, error) {
	bc := embedded.BrokerConfig(brokerName, e.Namesrv.Addr())
	bc.BrokerClusterName = clusterName
	bc.BrokerID = id
	bc.BrokerFastFailureEnable = false
	sc := embedded.SmallStoreConfig(filepath.Join(e.dir, name))
	sc.BrokerRole = role
	sc.StorePathCommitLog = filepath.Join(sc.StorePathRootDir, "commitlog")
	sc.MappedFileSizeCommitLog = fileSize
	sc.HaTransferBatchSize = batchSize
	sc.HaListenPort = 0
	opts := store.Options{ManualServices: true, Clock: e.clock, Location: time.UTC}
	for _, a := range adjust {
		a(storeSetup{&sc, &opts})
	}
	tr := trace.New(e.logger, name)
	return e.StartBroker(bc, sc, tr, broker.WithStoreOptions(opts), broker.WithHATracer(tr))
}

// startMaster starts broker-a as role (adjusted as startBroker says) with topicName on
// queues queues, created as `mqadmin updateTopic -b` does, and waits until the name server
// routes it.
func (e *env) startMaster(role string, queues int32, adjust ...func(storeSetup)) (err error) {
	if e.master, err = e.startBroker(brokerName, 0, role, adjust...); err != nil {
		return err
	}
	if err := mqtest.CreateTopic(e.Client, e.master.BrokerAddr(), topicName, queues, protocol.PermRead|protocol.PermWrite); err != nil {
		return err
	}
	return mqtest.WaitRouted(e.Client, e.Namesrv.Addr(), topicName, 1)
}

// startProducer starts a producer that never compresses and runs no scheduled task.
func (e *env) startProducer(name string) (*producer.DefaultMQProducer, error) {
	pc := producer.DefaultConfig("ch09_producer_group")
	pc.NamesrvAddr = e.Namesrv.Addr()
	pc.InstanceName = name + "-" + strconv.Itoa(os.Getpid())
	pc.Options.DisableScheduledTasks = true
	pc.CompressMsgBodyOverHowmuch = 1 << 30
	pc.SendMsgTimeout = 30 * time.Second
	return e.StartProducer(pc)
}

// message is a message of topicName whose body is prefix repeated to n bytes.
func (e *env) message(prefix string, n int) *primitive.Message {
	body := strings.Repeat(prefix, n/len(prefix)+1)[:n]
	return &primitive.Message{Topic: topicName, Body: []byte(body)}
}

// sendOutcome is what a send returned.
type sendOutcome struct {
	r   *producer.SendResult
	err error
}

// sendAsync sends m from its own goroutine and delivers the outcome.
func (e *env) sendAsync(m *primitive.Message) <-chan sendOutcome {
	ch := make(chan sendOutcome, 1)
	go func() {
		r, err := e.producer.Send(context.Background(), m)
		ch <- sendOutcome{r, err}
	}()
	return ch
}

// addrName names an address by the broker listening there (ports are ephemeral).
func addrName(addr string, master, slave *broker.BrokerController) string {
	switch addr {
	case master.BrokerAddr():
		return "the master's listen port"
	case slave.BrokerAddr():
		return "the slave's listen port"
	}
	return "unknown"
}

// sortedIDs are the broker ids of a route's address table, ascending.
func sortedIDs(addrs map[int64]string) []int64 {
	var ids []int64
	for id := range addrs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// sameCommitLog compares two CommitLog directories file by file.
func sameCommitLog(a, b string) (bool, error) {
	fa, err := os.ReadDir(a)
	if err != nil {
		return false, err
	}
	fb, err := os.ReadDir(b)
	if err != nil {
		return false, err
	}
	if len(fa) != len(fb) {
		return false, nil
	}
	for i := range fa {
		if fa[i].Name() != fb[i].Name() {
			return false, nil
		}
		x, err := os.ReadFile(filepath.Join(a, fa[i].Name()))
		if err != nil {
			return false, err
		}
		y, err := os.ReadFile(filepath.Join(b, fb[i].Name()))
		if err != nil {
			return false, err
		}
		if !bytes.Equal(x, y) {
			return false, nil
		}
	}
	return true, nil
}

// storeSetup is what startBroker's adjust may change: RocketMQ's store config and the store's
// Go-only options.
type storeSetup struct {
	*store.MessageStoreConfig
	*store.Options
}
