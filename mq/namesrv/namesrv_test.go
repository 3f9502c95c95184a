package namesrv

import (
	"bytes"
	"hash/crc32"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func startNamesrv(t *testing.T, tr *trace.Tracer) *NamesrvController {
	t.Helper()
	cfg := DefaultNamesrvConfig()
	cfg.KvConfigPath = filepath.Join(t.TempDir(), "kvConfig.json") // never the user's home
	sc := remoting.DefaultServerConfig()
	sc.ListenAddr = "127.0.0.1:0"
	c := NewNamesrvController(cfg, sc, tr)
	require.NoError(t, Start(c))
	t.Cleanup(c.Shutdown)
	return c
}

func call(t *testing.T, cl *remoting.Client, addr string, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	t.Helper()
	return remotingtest.Invoke(t, cl, addr, req)
}

func registerRequest(t *testing.T, brokerAddr string, counter int64) *remoting.RemotingCommand {
	body, err := (&protocol.RegisterBrokerBody{TopicConfigSerializeWrapper: *wrapper(counter, topic("TopicTest", 4, 6))}).Encode(false)
	require.NoError(t, err)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: "broker-a", BrokerAddr: brokerAddr, ClusterName: "DefaultCluster",
		HaServerAddr: "127.0.0.1:10912", BrokerID: 0, BodyCrc32: int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)}
	return remoting.NewRequest(protocol.RegisterBroker, protocol.EncodeHeader(&h), body)
}

// Over TCP: a broker registers, a client of the official client's version (317) gets the route
// as compact JSON with unquoted brokerAddrs keys, byte for byte
// (DefaultRequestProcessor#getRouteInfoByTopic, remoting-protocol.md §5.3).
func TestRegisterAndRouteOverTCP(t *testing.T) {
	rec := trace.NewRecorder()
	c := startNamesrv(t, rec.Tracer("namesrv"))
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()

	resp := call(t, cl, c.Addr(), registerRequest(t, "127.0.0.1:10911", 1))
	require.EqualValues(t, remoting.Success, resp.Code, resp.Remark)

	req := remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&protocol.GetRouteInfoRequestHeader{Topic: "TopicTest"}), nil)
	req.Version = 317
	resp = call(t, cl, c.Addr(), req)
	require.EqualValues(t, remoting.Success, resp.Code)
	require.Equal(t, `{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`,
		string(resp.Body))

	req = remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&protocol.GetRouteInfoRequestHeader{Topic: "TopicTest"}), nil)
	req.Version = 409
	resp = call(t, cl, c.Addr(), req)
	require.Contains(t, string(resp.Body), `"brokerAddrs":{"0":"127.0.0.1:10911"}`, "4.9.4+ requesters get standard JSON")

	req = remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&protocol.GetRouteInfoRequestHeader{Topic: "Nope"}), nil)
	resp = call(t, cl, c.Addr(), req)
	require.EqualValues(t, protocol.TopicNotExist, resp.Code)
	require.Contains(t, resp.Remark, "Nope")

	resp = call(t, cl, c.Addr(), remoting.NewRequest(protocol.GetBrokerClusterInfo, nil, nil))
	require.EqualValues(t, remoting.Success, resp.Code)
	require.Contains(t, string(resp.Body), `"clusterAddrTable":{"DefaultCluster":["broker-a"]}`)

	resp = call(t, cl, c.Addr(), remoting.NewRequest(9999, nil, nil))
	require.EqualValues(t, remoting.RequestCodeNotSupported, resp.Code)

	require.Contains(t, rec.Labels(), "RouteInfoManager#registerBroker")
	require.Contains(t, rec.Labels(), "RouteInfoManager#pickupTopicRouteData")
}

// A corrupted body is refused by its CRC and nothing is registered.
func TestRegisterBadCRCRefused(t *testing.T) {
	c := startNamesrv(t, nil)
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()
	req := registerRequest(t, "127.0.0.1:10911", 1)
	req.Body = bytes.Replace(req.Body, []byte("TopicTest"), []byte("TopicTesX"), 1)
	resp := call(t, cl, c.Addr(), req)
	require.EqualValues(t, remoting.SystemError, resp.Code)
	require.True(t, strings.Contains(resp.Remark, "crc32"), resp.Remark)
	require.Nil(t, c.RouteInfoManager.PickupTopicRouteData("TopicTest"))
}

// When the broker's connection closes, its routes go at once
// (BrokerHousekeepingService → RouteInfoManager#onChannelDestroy).
func TestChannelCloseRemovesBroker(t *testing.T) {
	c := startNamesrv(t, nil)
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	resp := call(t, cl, c.Addr(), registerRequest(t, "127.0.0.1:10911", 1))
	require.EqualValues(t, remoting.Success, resp.Code)
	require.NotNil(t, c.RouteInfoManager.PickupTopicRouteData("TopicTest"))
	cl.Shutdown()
	require.Eventually(t, func() bool { return c.RouteInfoManager.PickupTopicRouteData("TopicTest") == nil },
		5*time.Second, 10*time.Millisecond)
}

// -p prints the effective config in properties syntax and starts nothing (NamesrvStartup -p).
func TestStartupPrintConfig(t *testing.T) {
	var out bytes.Buffer
	c, err := CreateNamesrvController([]string{"-p"}, &out, io.Discard, nil)
	require.ErrorIs(t, err, ErrPrintedConfig)
	require.Nil(t, c)
	require.Contains(t, out.String(), "listenPort=9876\n")
	require.Contains(t, out.String(), "brokerChannelExpiredTime=120000\n")
}

// logLevel (DEBUG, INFO, WARN, ERROR) sets the operating log level; anything else is refused at
// start with a message naming the key.
func TestLogLevelValidated(t *testing.T) {
	cfg := DefaultNamesrvConfig()
	require.NoError(t, cfg.Validate())
	cfg.LogLevel = "warn"
	require.NoError(t, cfg.Validate())
	cfg.LogLevel = "LOUD"
	require.ErrorContains(t, cfg.Validate(), "logLevel")
}
