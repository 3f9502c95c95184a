package main

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
)

// newTestEnv is the chapter's setup without its log: a name server, the store clock at epoch.
func newTestEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(io.Discard, nil, t.TempDir())
	e.Servers = mqtest.MustStartServers(t, e.dir)
	return e
}

// live lets a store run its own services (flush, reput, HA loops) on the wall clock, with
// short HA intervals: heartbeats every 200 ms, connections dropped after 2 s of silence, and
// SYNC_MASTER puts waiting at most 1 s for a slave.
func live(sc storeSetup) {
	sc.ManualServices = false
	sc.Clock = nil
	sc.HaSendHeartbeatInterval = 200 * time.Millisecond
	sc.HaHousekeepingInterval = 2 * time.Second
	sc.SyncFlushTimeout = time.Second
	sc.HaTransferBatchSize = 32 * 1024
}

// startLivePair starts, with live services, a master of role with topicName on 4 queues, its
// slave (which copies the topic from its master, SlaveSynchronize), and a producer; it waits
// until the master holds the slave's connection.
func startLivePair(t *testing.T, e *env, role string) {
	t.Helper()
	require.NoError(t, e.startMaster(role, 4, live))
	startLiveSlave(t, e)
	var err error
	e.producer, err = e.startProducer("p-" + strings.ReplaceAll(t.Name(), "/", "-"))
	require.NoError(t, err)
}

// startLiveSlave starts (or restarts, on the same store) the live slave and waits until the
// master holds its connection and has read its first report (transfer starts there).
func startLiveSlave(t *testing.T, e *env) {
	t.Helper()
	var err error
	e.slave, err = e.startBroker(brokerName+"-slave", 1, store.Slave, live)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.slave.TopicConfigManager().SelectTopicConfig(topicName) != nil },
		10*time.Second, time.Millisecond, "SlaveSynchronize copied the master's topics at the slave's start")
	require.Eventually(t, func() bool {
		conns := e.master.HAService().Connections()
		return len(conns) == 1 && conns[0].SlaveRequestOffset() >= 0
	}, 10*time.Second, time.Millisecond)
}

// sendN sends n messages of about size bytes and requires status for each.
func sendN(t *testing.T, e *env, from, n, size int, status producer.SendStatus) []*producer.SendResult {
	t.Helper()
	var rs []*producer.SendResult
	for i := from; i < from+n; i++ {
		r, err := e.producer.Send(context.Background(), e.message("m"+strconv.Itoa(i)+";", size))
		require.NoError(t, err)
		require.Equal(t, status, r.SendStatus, "send %d", i)
		rs = append(rs, r)
	}
	return rs
}

// sendMessage is a SEND_MESSAGE (code 10) of body to queue 0 of topic with KEYS key, its
// header's V1 keys written out as a producer sends them (remoting-protocol.md §4.3).
func sendMessage(topic, body, key string) *remoting.RemotingCommand {
	ext := map[string]string{"producerGroup": "pg", "topic": topic, "defaultTopic": protocol.DefaultTopic,
		"defaultTopicQueueNums": "4", "queueId": "0", "sysFlag": "0",
		"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0",
		"properties":     primitive.MarshalProperties(map[string]string{primitive.PropertyKeys: key}),
		"reconsumeTimes": "0", "unitMode": "false", "batch": "false"}
	return remoting.NewRequest(protocol.SendMessage, ext, []byte(body))
}

// replicatedPair is a live ASYNC_MASTER pair after n sends of about size bytes, replicated.
func replicatedPair(t *testing.T, n, size int) *env {
	t.Helper()
	e := newTestEnv(t)
	startLivePair(t, e, store.AsyncMaster)
	sendN(t, e, 0, n, size, producer.SendOK)
	waitReplicated(t, e)
	return e
}

// waitReplicated waits until the slave's CommitLog reaches the master's end and the master
// knows it (push2SlaveMaxOffset).
func waitReplicated(t *testing.T, e *env) {
	t.Helper()
	end := e.masterStore().GetMaxPhyOffset()
	require.Eventually(t, func() bool {
		return e.slaveStore().GetMaxPhyOffset() == end && e.master.HAService().Push2SlaveMaxOffset() == end
	}, 10*time.Second, time.Millisecond, "the slave never reached %d", end)
}

// requireSameCommitLog requires the two CommitLogs to hold the same files up to the master's
// max offset, byte for byte (a master may have created its next file ahead, empty).
func requireSameCommitLog(t *testing.T, e *env) {
	t.Helper()
	end := int64(e.masterStore().GetMaxPhyOffset())
	files := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, f := range entries {
			start, err := strconv.ParseInt(f.Name(), 10, 64)
			require.NoError(t, err, f.Name())
			if start < end {
				names = append(names, f.Name())
			}
		}
		return names
	}
	md, sd := e.masterStore().Config().StorePathCommitLog, e.slaveStore().Config().StorePathCommitLog
	names := files(md)
	require.Equal(t, names, files(sd), "the CommitLog files up to offset %d", end)
	for _, name := range names {
		a, err := os.ReadFile(filepath.Join(md, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(sd, name))
		require.NoError(t, err)
		require.True(t, string(a) == string(b), "CommitLog file %s differs", name)
	}
}

// TestExercise1_SlaveCommitLogIsByteIdentical asks: what does a slave store — messages, or
// bytes? It proves bytes: after 150 sends of ~1 KiB (three 64 KiB CommitLog files, so the
// transfer crosses file ends) the slave's CommitLog files have the master's names and are
// equal to them byte for byte, blank end-of-file records included; and the slave's own reput
// built the same ConsumeQueues from them (same max queue offset and the same unit — CommitLog
// offset, size — at every queue offset). Java: WriteSocketService#transferData sends CommitLog
// bytes, HAClient#dispatchReadRequest appends them at the same offset.
func TestExercise1_SlaveCommitLogIsByteIdentical(t *testing.T) {
	e := newTestEnv(t)
	startLivePair(t, e, store.AsyncMaster)
	// One message first, replicated before the rest: the master picks where transfer starts
	// (for an empty slave: the start of its last file, exercise 7) on its write loop's first
	// pass after the slave's report; this one must find the log still in its first file.
	sendN(t, e, 0, 1, 1000, producer.SendOK)
	waitReplicated(t, e)
	sendN(t, e, 1, 149, 1000, producer.SendOK)
	require.Greater(t, int64(e.masterStore().GetMaxPhyOffset()), int64(2*fileSize), "the sends fill more than two files")
	waitReplicated(t, e)
	requireSameCommitLog(t, e)
	for q := int32(0); q < 4; q++ {
		require.Eventually(t, func() bool {
			return e.slaveStore().GetMaxOffsetInQueue(topicName, q) == e.masterStore().GetMaxOffsetInQueue(topicName, q)
		}, 10*time.Second, time.Millisecond, "queue %d", q)
		for i := store.QueueOffset(0); i < e.masterStore().GetMaxOffsetInQueue(topicName, q); i++ {
			mu, ok1 := e.masterStore().ReadConsumeQueueUnit(topicName, q, i)
			su, ok2 := e.slaveStore().ReadConsumeQueueUnit(topicName, q, i)
			require.True(t, ok1 && ok2, "queue %d unit %d", q, i)
			require.Equal(t, mu, su, "queue %d unit %d", q, i)
		}
	}
}

// TestExercise2_RestartedSlaveResumesFromItsOwnMaxOffset asks: a slave was down while the
// master took more messages — does it start over? It proves it resumes: the restarted slave's
// first report (the new connection's slaveRequestOffset) is its own max CommitLog offset from
// before the restart, not 0, so the master transfers from there; the slave then catches up and
// its CommitLog equals the master's. Java: HAClient#connectMaster sets currentReportedOffset =
// the store's max offset; ReadSocketService takes the first report as slaveRequestOffset.
func TestExercise2_RestartedSlaveResumesFromItsOwnMaxOffset(t *testing.T) {
	e := replicatedPair(t, 40, 500)
	before := e.slaveStore().GetMaxPhyOffset()
	require.Positive(t, int64(before))

	e.slave.Shutdown()
	require.Eventually(t, func() bool { return e.master.HAService().ConnectionCount() == 0 }, 10*time.Second, time.Millisecond)
	sendN(t, e, 40, 40, 500, producer.SendOK)
	require.Greater(t, e.masterStore().GetMaxPhyOffset(), before)

	startLiveSlave(t, e)
	conns := e.master.HAService().Connections()
	require.Len(t, conns, 1)
	require.Equal(t, before, conns[0].SlaveRequestOffset(), "the restarted slave asks for what it lacks")
	waitReplicated(t, e)
	requireSameCommitLog(t, e)
}

// TestExercise3_SyncMasterWithoutAWorkingSlave asks: what does a SYNC_MASTER answer when no
// slave gets the message? It depends on why, and the message is stored on the master either
// way:
//   - the slave is stopped (no HA connection): SLAVE_NOT_AVAILABLE, at once — the put does not
//     wait at all, since HAService#isSlaveOK finds no connection (it would also say no to a
//     slave more than haSlaveFallbehindMax, 256 MiB, behind);
//   - a slave is connected but acknowledges nothing: FLUSH_SLAVE_TIMEOUT, after
//     syncFlushTimeout (1 s here): the put waited in GroupTransferService until its deadline.
//
// The assertions prove the status, the time it took (under 1 s for the first, at least 1 s
// for the second) and that the master stored the message (its queue offset was given and the
// master's log grew). Java: CommitLog#submitReplicaRequest, GroupTransferService#doWaitTransfer.
func TestExercise3_SyncMasterWithoutAWorkingSlave(t *testing.T) {
	e := newTestEnv(t)
	startLivePair(t, e, store.SyncMaster)
	sendN(t, e, 0, 5, 100, producer.SendOK)

	e.slave.Shutdown()
	require.Eventually(t, func() bool { return e.master.HAService().ConnectionCount() == 0 }, 10*time.Second, time.Millisecond)
	end := e.masterStore().GetMaxPhyOffset()
	t0 := time.Now()
	r := sendN(t, e, 5, 1, 100, producer.SlaveNotAvailable)[0]
	require.Less(t, time.Since(t0), time.Second, "SLAVE_NOT_AVAILABLE does not wait")
	require.Greater(t, e.masterStore().GetMaxPhyOffset(), end, "the message is stored on the master")
	_, phy, err := primitive.DecodeOffsetMsgID(r.OffsetMsgID)
	require.NoError(t, err)
	m, err := e.masterStore().LookMessageByOffset(store.CommitLogOffset(phy))
	require.NoError(t, err, "the answer names the record on the master")
	require.Equal(t, r.MsgID, m.MsgID)

	var stalled *broker.BrokerController
	// A slave that connects and reports, then reads nothing: its HAClient is stepped by hand.
	stalled, err = e.startBroker(brokerName+"-stalled", 1, store.Slave, func(sc storeSetup) { sc.Clock = nil })
	require.NoError(t, err)
	c := stalled.HAService().HAClient()
	require.NoError(t, c.Dial())
	require.True(t, c.ConnectMaster())
	require.True(t, c.ReportOnce())
	require.Eventually(t, func() bool {
		conns := e.master.HAService().Connections()
		return len(conns) == 1 && conns[0].SlaveAckOffset() == 0
	}, 10*time.Second, time.Millisecond)
	t0 = time.Now()
	end = e.masterStore().GetMaxPhyOffset()
	sendN(t, e, 6, 1, 100, producer.FlushSlaveTimeout)
	require.GreaterOrEqual(t, time.Since(t0), time.Second, "FLUSH_SLAVE_TIMEOUT comes after syncFlushTimeout")
	require.Greater(t, e.masterStore().GetMaxPhyOffset(), end, "the message is stored on the master")
}

// TestExercise4_SlaveRefusesSendMessage asks: can a producer write to a slave? It proves the
// slave refuses: SEND_MESSAGE sent straight to the slave's address is answered
// SERVICE_NOT_AVAILABLE, and the slave's CommitLog does not grow — only its master writes
// there. (Producers never try: they send to the route's brokerId 0.) Java:
// DefaultMessageStore#checkStoreStatus refuses puts on a SLAVE.
func TestExercise4_SlaveRefusesSendMessage(t *testing.T) {
	e := replicatedPair(t, 3, 100)
	end := e.slaveStore().GetMaxPhyOffset()

	resp, err := mqtest.Invoke(e.Client, e.slave.BrokerAddr(), sendMessage(topicName, "to the slave", "k"))
	require.NoError(t, err)
	require.Equal(t, int32(protocol.ServiceNotAvailable), resp.Code, resp.Remark)
	require.Equal(t, end, e.slaveStore().GetMaxPhyOffset(), "nothing was appended on the slave")
	require.Equal(t, end, e.masterStore().GetMaxPhyOffset())
}

// TestExercise5_ConsumersReadFromTheSlaveWhenTheMasterIsDown asks: the master is gone — are
// its messages? It proves a consumer still gets every one: after the master shuts down, the
// route of the topic lists broker-a with the slave alone (brokerId 1), and a new push consumer
// (consuming from the first offset) receives all 20 messages from the slave, whose own reput
// built the ConsumeQueues it serves. Java: RouteInfoManager keeps a brokerName while one of
// its brokers is alive; MQClientInstance#findBrokerAddressInSubscribe falls back to a slave.
func TestExercise5_ConsumersReadFromTheSlaveWhenTheMasterIsDown(t *testing.T) {
	e := newTestEnv(t)
	startLivePair(t, e, store.AsyncMaster)
	want := map[string]bool{}
	for _, r := range sendN(t, e, 0, 20, 100, producer.SendOK) {
		want[r.MsgID] = true
	}
	waitReplicated(t, e)
	e.producer.Shutdown()
	e.master.Shutdown()

	waitSlaveAlone(t, e.Client, e.Namesrv.Addr(), topicName, e.slave.BrokerAddr())

	c := startCollector(t, e.Namesrv.Addr(), "ch09-exercise5", topicName, func(m *primitive.MessageExt) string { return m.MsgID })
	require.Eventually(t, func() bool { return len(c.received()) == len(want) }, 30*time.Second, 10*time.Millisecond,
		"the consumer got every message from the slave")
	require.Equal(t, want, c.received())
}

// waitSlaveAlone waits until the route of topic (asked of the name server at ns) lists one
// broker name with one broker: the slave at slaveAddr, brokerId 1.
func waitSlaveAlone(t *testing.T, cl *remoting.Client, ns, topic, slaveAddr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		route, err := mqtest.QueryRoute(cl, ns, topic)
		if err != nil || len(route.BrokerDatas) != 1 {
			return false
		}
		addrs := route.BrokerDatas[0].BrokerAddrs
		return len(addrs) == 1 && addrs[1] == slaveAddr
	}, 30*time.Second, 10*time.Millisecond, "the route lists the slave alone")
}

// collector is a push consumer that keeps the key of every message its listener got.
type collector struct {
	mu  sync.Mutex
	got map[string]bool
}

// startCollector starts a push consumer (its own group and instance, named after name) of
// topic from the first offset, on the name server at ns, keeping key(m) of each message; it
// shuts down at t's cleanup.
func startCollector(t *testing.T, ns, name, topic string, key func(*primitive.MessageExt) string) *collector {
	t.Helper()
	cfg := consumer.DefaultConfig(strings.ReplaceAll(name, "-", "_") + "_group")
	cfg.NamesrvAddr = ns
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = name + "-" + strconv.Itoa(os.Getpid())
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	pc := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, pc.Subscribe(topic, "*"))
	c := &collector{got: map[string]bool{}}
	pc.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, m := range msgs {
			c.got[key(m)] = true
		}
		return consumer.ConsumeSuccess
	})
	require.NoError(t, pc.Start())
	t.Cleanup(pc.Shutdown)
	return c
}

// received is a copy of the keys got so far.
func (c *collector) received() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]bool, len(c.got))
	for k := range c.got {
		out[k] = true
	}
	return out
}

// TestExercise6_AsyncMasterAnswersBeforeTheSlaveHasIt asks: what does SEND_OK promise under
// ASYNC_MASTER? Only the master's copy: with the HA loops stepped by hand and the transfer not
// run, the send is answered SEND_OK while the slave's log is still empty and no slave
// acknowledged anything (push2SlaveMaxOffset 0); the copy arrives with the next transfer.
// Java: CommitLog#submitReplicaRequest answers PUT_OK at once unless the role is SYNC_MASTER.
func TestExercise6_AsyncMasterAnswersBeforeTheSlaveHasIt(t *testing.T) {
	e := newTestEnv(t)
	var err error
	require.NoError(t, e.startMaster(store.AsyncMaster, 1))
	e.slave, err = e.startBroker(brokerName+"-slave", 1, store.Slave)
	require.NoError(t, err)
	e.producer, err = e.startProducer("p-exercise6")
	require.NoError(t, err)
	e.out = io.Discard
	require.NoError(t, e.connect())

	r := sendN(t, e, 0, 1, 100, producer.SendOK)[0]
	require.Equal(t, producer.SendOK, r.SendStatus)
	require.Zero(t, e.slaveStore().GetMaxPhyOffset(), "the slave has nothing yet")
	require.Zero(t, e.master.HAService().Push2SlaveMaxOffset(), "no slave acknowledged anything")
	_, err = e.transferAll()
	require.NoError(t, err)
	require.Equal(t, e.masterStore().GetMaxPhyOffset(), e.slaveStore().GetMaxPhyOffset())
}

// TestExercise7_AFreshSlaveStartsAtTheMastersLastFile asks: a new, empty slave joins a master
// whose log spans several files — does it copy them all? No: an empty slave reports 0, and the
// master takes 0 to mean "start at the beginning of my last CommitLog file"
// (nextTransferFromWhere = maxOffset − maxOffset % mappedFileSizeCommitLog), so the slave's
// log begins there: its first file is the master's last, equal to it byte for byte, and its
// older messages are only on the master. A slave that should hold everything must be there from
// the start (exercise 1) or be seeded with a copy of the files. Java:
// WriteSocketService#run when slaveRequestOffset == 0.
func TestExercise7_AFreshSlaveStartsAtTheMastersLastFile(t *testing.T) {
	e := newTestEnv(t)
	var err error
	require.NoError(t, e.startMaster(store.AsyncMaster, 4, live))
	e.producer, err = e.startProducer("p-exercise7")
	require.NoError(t, err)
	sendN(t, e, 0, 150, 1000, producer.SendOK)
	end := int64(e.masterStore().GetMaxPhyOffset())
	last := end - end%fileSize
	require.Positive(t, last, "the master's log spans several files")

	startLiveSlave(t, e)
	require.Equal(t, store.CommitLogOffset(0), e.master.HAService().Connections()[0].SlaveRequestOffset(), "an empty slave reports 0")
	waitReplicated(t, e)
	require.Equal(t, store.CommitLogOffset(last), e.slaveStore().GetMinPhyOffset(), "the slave's log starts at the master's last file")
	name := mqtest.FileName(last)
	a, err := os.ReadFile(filepath.Join(e.masterStore().Config().StorePathCommitLog, name))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(e.slaveStore().Config().StorePathCommitLog, name))
	require.NoError(t, err)
	require.True(t, string(a) == string(b), "the last file is the same")
	_, err = os.Stat(filepath.Join(e.slaveStore().Config().StorePathCommitLog, mqtest.FileName(0)))
	require.ErrorIs(t, err, os.ErrNotExist, "the first file never reached the slave")
}

// TestExercise8_AFrameForTheWrongOffsetClosesTheConnection asks: what keeps a slave's log equal
// to its master's when the two disagree? The offset in every frame. The test plays the master
// itself on a plain TCP listener, with the bytes of a real master's log, and proves: the
// slave's first report is 8 bytes, big-endian, of its max offset (0); a frame for offset 0 is
// appended as it is (the slave's log then ends where the master's does); a frame for any other
// offset than the slave's end is refused with ha.ErrProtocol, the connection is closed and the
// log is untouched; on the next connection the slave reports its own end again, so a master
// resends from there. Java: HAClient#dispatchReadRequest ("master pushed offset not equal the
// max phy offset in slave").
func TestExercise8_AFrameForTheWrongOffsetClosesTheConnection(t *testing.T) {
	e := newTestEnv(t)
	var err error
	require.NoError(t, e.startMaster(store.AsyncMaster, 1))
	e.producer, err = e.startProducer("p-exercise8")
	require.NoError(t, err)
	sendN(t, e, 0, 2, 100, producer.SendOK)
	data, ok := e.masterStore().GetCommitLogData(0)
	require.True(t, ok)
	body := append([]byte(nil), data.Data...)
	data.Release()

	fake, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer fake.Close()
	e.slave, err = e.startBroker(brokerName+"-slave", 1, store.Slave)
	require.NoError(t, err)
	client := e.slave.HAService().HAClient()
	e.slave.HAService().UpdateMasterAddress(fake.Addr().String())

	// connect connects the slave to the fake master and returns the fake's side and the
	// slave's first report.
	connect := func() (net.Conn, int64) {
		require.NoError(t, client.Dial())
		conn, err := fake.Accept()
		require.NoError(t, err)
		require.True(t, client.ConnectMaster())
		require.True(t, client.ReportOnce())
		var report [8]byte
		_, err = io.ReadFull(conn, report[:])
		require.NoError(t, err)
		return conn, int64(binary.BigEndian.Uint64(report[:]))
	}
	frame := func(offset int64, body []byte) []byte {
		f := binary.BigEndian.AppendUint64(nil, uint64(offset))
		f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
		return append(f, body...)
	}

	conn, report := connect()
	require.Zero(t, report, "an empty slave reports 0")
	_, err = conn.Write(frame(0, body))
	require.NoError(t, err)
	require.NoError(t, client.ReadOnce())
	end := store.CommitLogOffset(len(body))
	require.Equal(t, end, e.slaveStore().GetMaxPhyOffset(), "the frame at 0 was appended")
	var ack [8]byte
	_, err = io.ReadFull(conn, ack[:])
	require.NoError(t, err)
	require.Equal(t, uint64(end), binary.BigEndian.Uint64(ack[:]), "the slave acknowledged its new end")

	_, err = conn.Write(frame(int64(end)+1000, body))
	require.NoError(t, err)
	require.ErrorIs(t, client.ReadOnce(), ha.ErrProtocol)
	require.False(t, client.Connected(), "the slave closed the connection")
	require.Equal(t, end, e.slaveStore().GetMaxPhyOffset(), "nothing was appended")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Read(ack[:])
	require.ErrorIs(t, err, io.EOF, "the master's side sees the connection closed")
	conn.Close()

	conn, report = connect()
	defer conn.Close()
	require.Equal(t, int64(end), report, "on the next connection the slave asks for what follows its end")
}
