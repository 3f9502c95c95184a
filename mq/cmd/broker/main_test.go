package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// childArgsEnv makes the test binary run mqbroker's main with these (JSON) arguments: the
// signal test runs the real binary's code in a child process it can send SIGINT to.
const childArgsEnv = "MQBROKER_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgsEnv); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			panic(err)
		}
		os.Args = append([]string{"mqbroker"}, list...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// syncBuffer is a bytes.Buffer safe for the child's stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
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
	conf := filepath.Join(dir, "broker.conf")
	require.NoError(t, os.WriteFile(conf, []byte(strings.Join([]string{
		"brokerName=broker-sig", "listenPort=0", "storePathRootDir=" + storeDir,
		"mappedFileSizeCommitLog=65536", "mappedFileSizeConsumeQueue=2000", "logLevel=INFO",
	}, "\n")+"\n"), 0o644))
	args, err := json.Marshal([]string{"-c", conf, "-n", ns.Addr()})
	require.NoError(t, err)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(args))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	// The boot banner names the bound address: "The broker[broker-sig, 127.0.0.1:PORT] boot success".
	lines := bufio.NewScanner(stdout)
	banner := regexp.MustCompile(`The broker\[broker-sig, ([0-9.]+:[0-9]+)\] boot success`)
	var addr string
	for addr == "" && lines.Scan() {
		if m := banner.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	require.NotEmpty(t, addr, "boot banner; stderr:\n%s", stderr.String())
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&rest, stdout); close(copied) }()

	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer c.Shutdown()
	invoke := func(req *remoting.RemotingCommand) *remoting.RemotingCommand {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := c.InvokeSync(ctx, addr, req)
		require.NoError(t, err)
		return resp
	}
	sh := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "SigTopic", DefaultTopic: protocol.DefaultTopic,
		DefaultTopicQueueNums: 4, BornTimestamp: time.Now().UnixMilli(),
		Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "U1"})}
	resp := invoke(remoting.NewRequest(protocol.SendMessage, sh.Encode(), []byte("hello")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	uh := protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "g", Topic: "SigTopic", QueueID: 0, CommitOffset: 1}
	resp = invoke(remoting.NewRequest(protocol.UpdateConsumerOffset, uh.Encode(), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Eventually(t, func() bool { return ns.RouteInfoManager.PickupTopicRouteData("SigTopic") != nil },
		10*time.Second, 10*time.Millisecond, "the broker registered the new topic")

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait(), "exit status 0; stderr:\n%s", stderr.String())
	<-copied
	t.Logf("child stderr:\n%s", stderr.String())
	require.Nil(t, ns.RouteInfoManager.PickupTopicRouteData("SigTopic"), "unregistered from the name server")
	require.Contains(t, rest.String(), "The broker[broker-sig, "+addr+"] shutdown OK")
	require.Contains(t, stderr.String(), `msg="shutdown requested" signal=interrupt`)

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
