package broker

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// testBroker is a started broker on 127.0.0.1:0 over a temp store, plus a client to talk to it.
type testBroker struct {
	b      *BrokerController
	addr   string
	client *remoting.Client
}

// testOption adjusts the configs before the broker starts.
type testOption func(*BrokerConfig, storeSetup)

// storeSetup is the store's side of a testOption: RocketMQ's config and the Go-only options.
type storeSetup struct {
	*store.MessageStoreConfig
	*store.Options
}

// startTestBroker starts a broker with small store files and no name server; Shutdown runs at
// cleanup.
func startTestBroker(t testing.TB, tr *trace.Tracer, opts ...testOption) *testBroker {
	t.Helper()
	return startTestBrokerOn(t, nil, tr, opts...)
}

// startTestBrokerOn is startTestBroker with the broker's clock (nil: the system clock).
func startTestBrokerOn(t testing.TB, clk clock.Clock, tr *trace.Tracer, opts ...testOption) *testBroker {
	t.Helper()
	cfg := DefaultBrokerConfig()
	cfg.BrokerName = "broker-a"
	cfg.ListenPort = 0
	cfg.NamesrvAddr = ""
	storeCfg := store.DefaultMessageStoreConfig()
	storeCfg.StorePathRootDir = t.TempDir()
	storeCfg.MappedFileSizeCommitLog = 256 << 10
	storeCfg.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	var storeOpts store.Options
	for _, o := range opts {
		o(&cfg, storeSetup{&storeCfg, &storeOpts})
	}
	b, err := CreateBrokerController(cfg, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, storeCfg, tr, WithClock(clk), WithStoreOptions(storeOpts))
	require.NoError(t, err)
	_, err = Start(b)
	require.NoError(t, err)
	t.Cleanup(b.Shutdown)
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(c.Shutdown)
	return &testBroker{b: b, addr: b.BrokerAddr(), client: c}
}

// invoke sends req and returns the response (transport errors fail the test).
func (tb *testBroker) invoke(t testing.TB, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	t.Helper()
	return invokeWith(t, tb.client, tb.addr, req)
}

func invokeWith(t testing.TB, c *remoting.Client, addr string, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	t.Helper()
	return remotingtest.Invoke(t, c, addr, req)
}

// sendHeader is client-go's V1 send header for one message (defaultTopic TBW102, 4 queues).
func sendHeader(topic string, queueID int32, props map[string]string) *protocol.SendMessageRequestHeader {
	return &protocol.SendMessageRequestHeader{
		ProducerGroup:         "pg",
		Topic:                 topic,
		DefaultTopic:          protocol.DefaultTopic,
		DefaultTopicQueueNums: 4,
		QueueID:               queueID,
		BornTimestamp:         time.Now().UnixMilli(),
		Properties:            primitive.MarshalProperties(props),
		HasMaxReconsumeTimes:  true,
	}
}

// send sends body to topic/queueID with tags (may be "") and returns the response.
func (tb *testBroker) send(t *testing.T, topic string, queueID int32, tags string, body []byte) *remoting.RemotingCommand {
	t.Helper()
	return tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(sendTagsHeader(topic, queueID, tags, body)), body))
}

// sendTagsHeader is send's header: a UNIQ_KEY from the body's length and TAGS when tags is set.
func sendTagsHeader(topic string, queueID int32, tags string, body []byte) *protocol.SendMessageRequestHeader {
	props := map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "UNIQ" + strconv.Itoa(len(body))}
	if tags != "" {
		props[primitive.PropertyTags] = tags
	}
	return sendHeader(topic, queueID, props)
}

// sendOK sends and requires SUCCESS; it returns the response header.
func (tb *testBroker) sendOK(t *testing.T, topic string, queueID int32, tags string, body []byte) protocol.SendMessageResponseHeader {
	t.Helper()
	rh, _ := tb.sendStored(t, sendTagsHeader(topic, queueID, tags, body), body)
	return rh
}

// sendStored sends SEND_MESSAGE with h and body and requires SUCCESS; it returns the response
// header and the stored record's CommitLog offset (bytes), read from its offsetMsgId.
func (tb *testBroker) sendStored(t *testing.T, h *protocol.SendMessageRequestHeader, body []byte) (protocol.SendMessageResponseHeader, int64) {
	t.Helper()
	resp := tb.invoke(t, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), body))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	var rh protocol.SendMessageResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh))
	_, off, err := primitive.DecodeOffsetMsgID(rh.MsgID)
	require.NoError(t, err)
	return rh, off
}

// pullHeader is a pull of up to 32 messages with the given sysFlag.
func pullHeader(group, topic string, queueID int32, offset int64, sysFlag int32, suspend time.Duration, sub string) *protocol.PullMessageRequestHeader {
	return &protocol.PullMessageRequestHeader{
		ConsumerGroup:        group,
		Topic:                topic,
		QueueID:              queueID,
		QueueOffset:          offset,
		MaxMsgNums:           32,
		SysFlag:              sysFlag,
		SuspendTimeoutMillis: suspend.Milliseconds(),
		Subscription:         sub,
		ExpressionType:       "TAG",
	}
}

// pull sends a pull that carries its subscription and does not suspend.
func (tb *testBroker) pull(t *testing.T, group, topic string, queueID int32, offset int64, sub string) *remoting.RemotingCommand {
	t.Helper()
	h := pullHeader(group, topic, queueID, offset, protocol.PullFlagSubscription, 0, sub)
	return tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
}

// pullResponseHeader decodes the four always-present pull response fields.
func pullResponseHeader(t *testing.T, resp *remoting.RemotingCommand) protocol.PullMessageResponseHeader {
	t.Helper()
	var rh protocol.PullMessageResponseHeader
	require.NoError(t, protocol.DecodeHeader(resp.ExtFields, &rh), "pull responses always carry the offsets")
	return rh
}

// heartbeat sends a heartbeat of clientID with one consumer group subscribing subs, on c.
func heartbeat(t *testing.T, c *remoting.Client, addr, clientID, group string, subs ...protocol.SubscriptionData) *remoting.RemotingCommand {
	t.Helper()
	hb := protocol.HeartbeatData{
		ClientID: clientID,
		ConsumerDataSet: []protocol.ConsumerData{{
			GroupName:           group,
			ConsumeType:         protocol.ConsumePassively,
			MessageModel:        protocol.Clustering,
			ConsumeFromWhere:    protocol.ConsumeFromLastOffset,
			SubscriptionDataSet: subs,
		}},
		ProducerDataSet: []protocol.ProducerData{{GroupName: "pg-" + group}},
	}
	body, err := json.Marshal(&hb)
	require.NoError(t, err)
	return invokeWith(t, c, addr, remoting.NewRequest(protocol.HeartBeat, nil, body))
}

// recordingNamesrv is a remoting server that records the REGISTER_BROKER and
// UNREGISTER_BROKER requests it gets (a stand-in for a name server).
type recordingNamesrv struct {
	srv *remoting.Server
	mu  sync.Mutex
	reg []*remoting.RemotingCommand
	unr []*remoting.RemotingCommand
}

func startRecordingNamesrv(t *testing.T) *recordingNamesrv {
	t.Helper()
	n := &recordingNamesrv{srv: remoting.NewServer(remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, nil, nil)}
	record := func(into *[]*remoting.RemotingCommand) remoting.ProcessorFunc {
		return func(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			n.mu.Lock()
			*into = append(*into, req)
			n.mu.Unlock()
			return remoting.NewResponse(protocol.Success, ""), nil
		}
	}
	n.srv.RegisterProcessor(protocol.RegisterBroker, record(&n.reg), 1)
	n.srv.RegisterProcessor(protocol.UnregisterBroker, record(&n.unr), 1)
	require.NoError(t, n.srv.Start())
	t.Cleanup(n.srv.Shutdown)
	return n
}

func (n *recordingNamesrv) addr() string { return n.srv.Addr().String() }

func (n *recordingNamesrv) registrations() []*remoting.RemotingCommand {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*remoting.RemotingCommand(nil), n.reg...)
}

func (n *recordingNamesrv) unregistrations() []*remoting.RemotingCommand {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*remoting.RemotingCommand(nil), n.unr...)
}

// waitDispatched waits until the reput service has built n ConsumeQueue units for the queue
// (a send is answered once it is in the CommitLog; the ConsumeQueue follows a moment later).
func (tb *testBroker) waitDispatched(t *testing.T, topic string, queueID int32, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return tb.b.MessageStore().GetMaxOffsetInQueue(topic, queueID) == store.QueueOffset(n) },
		5*time.Second, time.Millisecond, "dispatch of %s/%d to %d", topic, queueID, n)
}
