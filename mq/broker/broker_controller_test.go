package broker

import (
	"hash/crc32"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// decodeRegistration checks a REGISTER_BROKER request's header and CRC and returns its body.
func decodeRegistration(t *testing.T, req *remoting.RemotingCommand) (protocol.RegisterBrokerRequestHeader, *protocol.RegisterBrokerBody) {
	t.Helper()
	var h protocol.RegisterBrokerRequestHeader
	require.NoError(t, protocol.DecodeHeader(req.ExtFields, &h))
	require.False(t, h.Compressed)
	require.Equal(t, int32(crc32.ChecksumIEEE(req.Body)&0x7FFFFFFF), h.BodyCrc32, "bodyCrc32 = CRC-32 IEEE & 0x7FFFFFFF")
	body, err := protocol.DecodeRegisterBrokerBody(req.Body, false)
	require.NoError(t, err)
	return h, body
}

// TestRegisterBrokerAll pins BrokerController#registerBrokerAll and BrokerOuterAPI: Start
// registers at once with the port actually bound (the broker listens on port 0), the HA
// address is the HA service's bound port (ephemeral as well), the body holds TBW102 (8 queues, perm 7) and the built-in topics; a topic
// auto-created by a send is registered right away with a bumped dataVersion; Shutdown sends
// UNREGISTER_BROKER.
func TestRegisterBrokerAll(t *testing.T) {
	ns := startRecordingNamesrv(t)
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) { c.NamesrvAddr = ns.addr() })

	regs := ns.registrations()
	require.Len(t, regs, 1, "Start registers once, synchronously")
	h, body := decodeRegistration(t, regs[0])
	_, port, err := net.SplitHostPort(h.BrokerAddr)
	require.NoError(t, err)
	p, _ := strconv.Atoi(port)
	require.NotZero(t, p, "the bound port is registered, not 0")
	require.Equal(t, tb.b.BrokerAddr(), h.BrokerAddr)
	haPort := tb.b.HAService().AcceptSocketService().Port()
	require.NotZero(t, haPort, "the HA service listens on an ephemeral port too")
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(haPort), h.HaServerAddr, "the bound HA port is registered")
	require.Equal(t, "broker-a", h.BrokerName)
	require.Equal(t, "DefaultCluster", h.ClusterName)
	require.Equal(t, int64(0), h.BrokerID)

	table := body.TopicConfigSerializeWrapper.TopicConfigTable
	tbw := table[protocol.DefaultTopic]
	require.NotNil(t, tbw)
	require.Equal(t, int32(7), tbw.Perm)
	require.Equal(t, int32(8), tbw.ReadQueueNums)
	for _, topic := range []string{"SELF_TEST_TOPIC", "BenchmarkTest", "DefaultCluster", "broker-a",
		"OFFSET_MOVED_EVENT", "SCHEDULE_TOPIC_XXXX", "DefaultCluster_REPLY_TOPIC"} {
		require.Contains(t, table, topic)
	}
	require.Equal(t, int32(18), table["SCHEDULE_TOPIC_XXXX"].WriteQueueNums)
	require.Equal(t, int32(1), table["broker-a"].WriteQueueNums)
	firstVersion := body.TopicConfigSerializeWrapper.DataVersion

	tb.sendOK(t, "Fresh", 0, "", []byte("x"))
	require.Eventually(t, func() bool {
		regs := ns.registrations()
		b, err := protocol.DecodeRegisterBrokerBody(regs[len(regs)-1].Body, false)
		if err != nil {
			return false
		}
		_, ok := b.TopicConfigSerializeWrapper.TopicConfigTable["Fresh"]
		return ok && b.TopicConfigSerializeWrapper.DataVersion.Counter > firstVersion.Counter
	}, 5*time.Second, 5*time.Millisecond, "an auto-created topic is registered at once with a new dataVersion")
	regs = ns.registrations()
	decodeRegistration(t, regs[len(regs)-1])

	n := len(ns.registrations())
	tb.b.RegisterBrokerAll()
	require.Len(t, ns.registrations(), n+1, "RegisterBrokerAll is callable directly and synchronous")

	tb.b.Shutdown()
	unr := ns.unregistrations()
	require.Len(t, unr, 1)
	var u protocol.UnRegisterBrokerRequestHeader
	require.NoError(t, protocol.DecodeHeader(unr[0].ExtFields, &u))
	require.Equal(t, h.BrokerAddr, u.BrokerAddr)
	require.Equal(t, "broker-a", u.BrokerName)
}

// TestRegisterWithReadOnlyBroker: a broker that is not RW registers every topic with its own
// permission. Java: BrokerController#registerBrokerAll.
func TestRegisterWithReadOnlyBroker(t *testing.T) {
	ns := startRecordingNamesrv(t)
	startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
		c.NamesrvAddr = ns.addr()
		c.BrokerPermission = 4
	})
	_, body := decodeRegistration(t, ns.registrations()[0])
	for name, tc := range body.TopicConfigSerializeWrapper.TopicConfigTable {
		require.Equal(t, int32(4), tc.Perm, name)
	}
}

// TestLifeCycle: Start needs Initialize, Shutdown is idempotent and safe before Start, a
// second broker cannot open a store another one holds.
func TestLifeCycle(t *testing.T) {
	cfg := DefaultBrokerConfig()
	cfg.ListenPort = 0
	storeCfg := store.DefaultMessageStoreConfig()
	storeCfg.StorePathRootDir = t.TempDir()
	storeCfg.MappedFileSizeCommitLog = 64 << 10
	b, err := NewBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
	require.NoError(t, err)
	require.ErrorIs(t, b.Start(), ErrBrokerState)
	b.Shutdown()
	b.Shutdown()

	b1, err := CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
	require.NoError(t, err)
	defer b1.Shutdown()
	_, err = CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, nil)
	require.ErrorIs(t, err, store.ErrStoreLocked)
}

// TestTraceSteps: the broker writes its mind-map steps (labels exactly as in the chapters'
// .steps files) in the order the flow runs them.
func TestTraceSteps(t *testing.T) {
	rec := trace.NewRecorder()
	tb := startTestBroker(t, rec.Tracer("broker-a"))
	tb.sendOK(t, "TraceTopic", 0, "", []byte("x"))
	tb.waitDispatched(t, "TraceTopic", 0, 1)
	sub := protocol.SubscriptionData{Topic: "TraceTopic", SubString: "*", SubVersion: 1}
	heartbeat(t, tb.client, tb.addr, "10.0.0.1@1", "tg", sub)
	h := pullHeader("tg", "TraceTopic", 0, 0, 0, 0, "")
	resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)

	want := []string{
		"BrokerController#start",
		"BrokerController#registerBrokerAll",
		"SendMessageProcessor#processRequest",
		"SendMessageProcessor#asyncSendMessage",
		"DefaultMessageStore#asyncPutMessage",
		"ClientManageProcessor#heartBeat",
		"ConsumerManager#registerConsumer",
		"DefaultConsumerIdsChangeListener#handle",
		"PullMessageProcessor#processRequest",
	}
	labels := rec.Labels()
	i := 0
	for _, l := range labels {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	require.Equal(t, len(want), i, "steps in order; got %v", labels)
}
