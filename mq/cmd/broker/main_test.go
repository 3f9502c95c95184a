package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

// childArgsEnv makes the test binary run mqbroker's runMain with these (JSON) arguments: the
// signal test runs the real binary's code in a child process it can send SIGINT to.
const childArgsEnv = "MQBROKER_TEST_CHILD_ARGS"

func TestMain(m *testing.M) { mqtest.ChildMain(m, childArgsEnv, brokerChild) }

// brokerChild is the child process: mqbroker with args, reporting the address its boot banner
// names ("The broker[broker-sig, 127.0.0.1:PORT] boot success") to mqtest.StartChild.
func brokerChild(args string) int {
	var list []string
	if err := json.Unmarshal([]byte(args), &list); err != nil {
		panic(err)
	}
	return runMain(list, bannerWatcher{os.Stdout}, os.Stderr)
}

var bootBanner = regexp.MustCompile(`The broker\[broker-sig, ([0-9.]+:[0-9]+)\] boot success`)

// bannerWatcher passes the child's stdout through and reports the boot banner's address.
type bannerWatcher struct{ w io.Writer }

func (b bannerWatcher) Write(p []byte) (int, error) {
	if m := bootBanner.FindSubmatch(p); m != nil {
		mqtest.ReportAddr(string(m[1]))
	}
	return b.w.Write(p)
}

// TestSignalShutdown runs mqbroker in a child process against a name server, sends it a
// message and an offset, then SIGINT: the process exits 0 after unregistering from the name
// server, persisting consumerOffset.json and topics.json, and closing the store cleanly (no
// abort file). Java: BrokerStartup's shutdown hook calling BrokerController#shutdown.
func TestSignalShutdown(t *testing.T) {
	dir := t.TempDir()
	nc := namesrv.DefaultNamesrvConfig()
	nc.KvConfigPath = filepath.Join(dir, "namesrv", "kvConfig.json")
	ns := namesrv.NewNamesrvController(nc, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, nil)
	require.NoError(t, namesrv.Start(ns))
	t.Cleanup(ns.Shutdown)

	storeDir := filepath.Join(dir, "store")
	conf := conftest.Write(t, "broker.conf", "brokerName=broker-sig", "listenPort=0", "storePathRootDir="+storeDir,
		"mappedFileSizeCommitLog=65536", "mappedFileSizeConsumeQueue=2000", "logLevel=INFO")
	args, err := json.Marshal([]string{"-c", conf, "-n", ns.Addr()})
	require.NoError(t, err)

	child := mqtest.MustStartChild(t, childArgsEnv+"="+string(args))
	addr := child.Addr

	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer c.Shutdown()
	invoke := func(req *remoting.RemotingCommand) *remoting.RemotingCommand {
		return remotingtest.Invoke(t, c, addr, req)
	}
	sh := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "SigTopic", DefaultTopic: protocol.DefaultTopic,
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli(),
		Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "U1"})}
	resp := invoke(remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(&sh), []byte("hello")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	uh := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "SigTopic", QueueID: 0, CommitOffset: 1}
	resp = invoke(remoting.NewRequest(protocol.UpdateConsumerOffset, protocol.EncodeHeader(&uh), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Eventually(t, func() bool { return ns.RouteInfoManager.PickupTopicRouteData("SigTopic") != nil },
		10*time.Second, 10*time.Millisecond, "the broker registered the new topic")

	require.NoError(t, child.Signal(syscall.SIGINT))
	require.NoError(t, child.Wait(30*time.Second), "exit status 0; output:\n%s", child.Output())
	out := child.Output()
	t.Logf("child output:\n%s", out)
	require.Nil(t, ns.RouteInfoManager.PickupTopicRouteData("SigTopic"), "unregistered from the name server")
	require.Contains(t, out, "The broker[broker-sig, "+addr+"] shutdown OK")
	require.Contains(t, out, `msg="shutdown requested" signal=interrupt`)

	offsets, err := os.ReadFile(filepath.Join(storeDir, "config", "consumerOffset.json"))
	require.NoError(t, err)
	require.Contains(t, string(offsets), `"SigTopic@g":{0:1`)
	topics, err := os.ReadFile(filepath.Join(storeDir, "config", "topics.json"))
	require.NoError(t, err)
	require.Contains(t, string(topics), `"SigTopic":{`)
	_, err = os.Stat(filepath.Join(storeDir, "abort"))
	require.ErrorIs(t, err, os.ErrNotExist, "a clean shutdown removes the abort file")
}

// TestRunPrintOnly: -p prints the configuration and starts nothing.
func TestRunPrintOnly(t *testing.T) {
	var out, errOut bytes.Buffer
	require.NoError(t, run([]string{"-p", "-n", "127.0.0.1:9876"}, &out, &errOut, nil))
	require.Contains(t, out.String(), "namesrvAddr=127.0.0.1:9876\n")
	require.Contains(t, out.String(), "logLevel=INFO\n")
	require.Error(t, run([]string{"-c", filepath.Join(t.TempDir(), "missing.conf")}, &out, &errOut, nil))
}
