package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// overlay writes the example file conf/name followed by lines (later keys win) into a temp
// file: the example keeps its standard values, the test moves the store and the ports.
func overlay(t *testing.T, name string, lines ...string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "conf", name))
	require.NoError(t, err)
	text = append(text, "\n# test overlay\n"...)
	for _, l := range lines {
		text = append(text, l+"\n"...)
	}
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, text, 0o644))
	return p
}

// storeOverlay is the part of every broker overlay: a temp store with small files, ephemeral
// loopback ports.
func storeOverlay(t *testing.T) []string {
	return []string{"listenPort=0", "bindAddress=127.0.0.1", "storePathRootDir=" + t.TempDir(),
		"mappedFileSizeCommitLog=1048576", "mappedFileSizeConsumeQueue=6000"}
}

// runBroker runs mqbroker's run with args until the test ends (SIGINT then) and returns the
// name server the boot banner names and the output.
func runBroker(t *testing.T, args ...string) (nsAddr string, out, errOut *trace.SyncWriter) {
	t.Helper()
	out, errOut = &trace.SyncWriter{W: new(bytes.Buffer)}, &trace.SyncWriter{W: new(bytes.Buffer)}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run(args, out, errOut, stop) }()
	banner := regexp.MustCompile(`The broker\[broker-a, [0-9.:]+\] boot success\. serializeType=JSON and name server is ([0-9.]+:[0-9]+)`)
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		return banner.MatchString(out.String())
	}, 20*time.Second, 10*time.Millisecond)
	m := banner.FindStringSubmatch(out.String())
	require.NotNil(t, m, "boot banner; stdout:\n%s\nstderr:\n%s", out, errOut)
	t.Cleanup(func() {
		stop <- syscall.SIGINT
		require.NoError(t, <-done)
		require.Contains(t, out.String(), "shutdown OK")
	})
	return m[1], out, errOut
}

// sendOne sends one message through the name server nsAddr with our own producer and requires
// SEND_OK.
func sendOne(t *testing.T, nsAddr, instance string) {
	t.Helper()
	cfg := producer.DefaultConfig("example-producer")
	cfg.NamesrvAddr = nsAddr
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = instance
	p := producer.NewDefaultMQProducer(cfg)
	require.NoError(t, p.Start())
	defer p.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := p.Send(ctx, &primitive.Message{Topic: "ExampleTopic", Body: []byte("hello from " + instance)})
	require.NoError(t, err)
	require.Equal(t, client.SendOK, res.SendStatus)
}

// TestExampleSingleBroker: conf/broker.conf, the README's example, is a broker with its own
// name server in the process (no namesrvAddr): a producer that knows only the name server
// sends through it.
func TestExampleSingleBroker(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "")
	nsAddr, out, _ := runBroker(t, "-c", overlay(t, "broker.conf", storeOverlay(t)...))
	require.Contains(t, out.String(), "The Name Server boot success (in-process)")
	sendOne(t, nsAddr, "example-single")
}

// startExampleNamesrv runs conf/namesrv.conf (overlaid with an ephemeral loopback port and a
// temp kvConfig.json) until the test ends and returns its "127.0.0.1:port".
func startExampleNamesrv(t *testing.T) string {
	t.Helper()
	t.Setenv("NAMESRV_ADDR", "")
	var nsOut bytes.Buffer
	ns, err := namesrv.Main([]string{"-c", overlay(t, "namesrv.conf", "listenPort=0", "bindAddress=127.0.0.1",
		"kvConfigPath="+filepath.Join(t.TempDir(), "kvConfig.json"))}, &nsOut, io.Discard, nil)
	require.NoError(t, err, nsOut.String())
	t.Cleanup(ns.Shutdown)
	require.Contains(t, nsOut.String(), "The Name Server boot success")
	return fmt.Sprintf("127.0.0.1:%d", ns.Port())
}

// TestExampleNamesrvAndMaster: conf/namesrv.conf runs a name server alone, conf/broker-a.conf
// a master that registers with it (and starts no name server of its own); a producer sends
// through the name server.
func TestExampleNamesrvAndMaster(t *testing.T) {
	addr := startExampleNamesrv(t)
	got, out, _ := runBroker(t, "-c", overlay(t, "broker-a.conf", append(storeOverlay(t), "namesrvAddr="+addr)...))
	require.Equal(t, addr, got)
	require.NotContains(t, out.String(), "in-process")
	sendOne(t, addr, "example-master")
}

// TestExampleFilesKeepStandardValues: the example files themselves hold RocketMQ's standard
// ports and the default store, so they work as shown (the tests above only overlay them).
func TestExampleFilesKeepStandardValues(t *testing.T) {
	for name, want := range map[string][]string{
		"broker.conf":   {"listenPort=10911", "bindAddress=0.0.0.0", "brokerIP1=127.0.0.1", "#storePathRootDir="},
		"broker-a.conf": {"listenPort=10911", "namesrvAddr=127.0.0.1:9876", "#storePathRootDir="},
		"namesrv.conf":  {"listenPort=9876", "bindAddress=0.0.0.0"},
		"broker-a-master.conf": {"brokerId=0", "brokerRole=SYNC_MASTER", "listenPort=10911", "namesrvAddr=127.0.0.1:9876",
			"storePathRootDir=store/broker-a-master"},
		"broker-a-slave.conf": {"brokerName=broker-a", "brokerId=1", "brokerRole=SLAVE", "listenPort=10921",
			"namesrvAddr=127.0.0.1:9876", "storePathRootDir=store/broker-a-slave"},
	} {
		text, err := os.ReadFile(filepath.Join("..", "..", "..", "conf", name))
		require.NoError(t, err)
		for _, w := range want {
			require.Regexp(t, "(?m)^"+regexp.QuoteMeta(w), string(text), name)
		}
	}
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "conf", "broker.conf"))
	require.NoError(t, err)
	require.NotRegexp(t, `(?m)^namesrvAddr=`, string(text), "a namesrvAddr would turn the in-process name server off")

	// The SYNC_MASTER's wait for its slave stays below the official client's 3 s send timeout, so
	// that a stalled slave gives the client FLUSH_SLAVE_TIMEOUT, not a timeout and a retry.
	text, err = os.ReadFile(filepath.Join("..", "..", "..", "conf", "broker-a-master.conf"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^syncFlushTimeout=([0-9]+)$`).FindStringSubmatch(string(text))
	require.NotNil(t, m, "broker-a-master.conf sets syncFlushTimeout")
	ms, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.Less(t, ms, 3000, "syncFlushTimeout below the client's send timeout")
}

// TestExampleMasterAndSlave: conf/broker-a-master.conf (SYNC_MASTER) and
// conf/broker-a-slave.conf (brokerId=1, SLAVE) run on one machine against the name server of
// conf/namesrv.conf; the slave learns the master's HA address from the name server and logs
// whom it replicates from; a send to the master answers SEND_OK only once the slave holds the
// message, which is then in the slave's CommitLog on disk.
func TestExampleMasterAndSlave(t *testing.T) {
	addr := startExampleNamesrv(t)

	runBroker(t, "-c", overlay(t, "broker-a-master.conf", append(storeOverlay(t), "namesrvAddr="+addr)...))
	slaveStore := t.TempDir()
	_, _, slaveErr := runBroker(t, "-c", overlay(t, "broker-a-slave.conf",
		"listenPort=0", "bindAddress=127.0.0.1", "storePathRootDir="+slaveStore,
		"mappedFileSizeCommitLog=1048576", "mappedFileSizeConsumeQueue=6000", "namesrvAddr="+addr))
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`HAClient connected to master.*master=127\.0\.0\.1:[0-9]+`).MatchString(slaveErr.String())
	}, 20*time.Second, 10*time.Millisecond, "the slave's log names its master; stderr:\n%s", slaveErr)

	sendOne(t, addr, "example-slave") // SYNC_MASTER: SEND_OK means the slave has it
	body := []byte("hello from example-slave")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(slaveStore, "commitlog", "00000000000000000000"))
		return err == nil && bytes.Contains(b, body)
	}, 10*time.Second, 10*time.Millisecond, "the message is in the slave's CommitLog")
}

// TestExampleSlaveStartedBeforeMaster: conf/broker-a-slave.conf started before its master says
// at INFO, once, that no master of broker-a is registered yet and when it asks again; it then
// registers every 5 s until it learns the master's HA address, so it connects within about 5 s
// of the master's start (not at its next periodic registration, 10 s after its own start and
// every 30 s after that).
func TestExampleSlaveStartedBeforeMaster(t *testing.T) {
	addr := startExampleNamesrv(t)
	slaveStore := t.TempDir()
	_, _, slaveErr := runBroker(t, "-c", overlay(t, "broker-a-slave.conf",
		"listenPort=0", "bindAddress=127.0.0.1", "storePathRootDir="+slaveStore,
		"mappedFileSizeCommitLog=1048576", "mappedFileSizeConsumeQueue=6000", "namesrvAddr="+addr))
	const wait = `level=INFO msg="no master of this brokerName is registered with the name server yet; replication starts once one is" brokerName=broker-a following="" retryIn=5s`
	require.Eventually(t, func() bool { return strings.Contains(slaveErr.String(), wait) }, 10*time.Second, 10*time.Millisecond,
		"stderr:\n%s", slaveErr)

	runBroker(t, "-c", overlay(t, "broker-a-master.conf", append(storeOverlay(t), "namesrvAddr="+addr)...))
	masterUp := time.Now()
	require.Eventually(t, func() bool { return strings.Contains(slaveErr.String(), "HAClient connected to master") },
		8*time.Second, 10*time.Millisecond, "stderr:\n%s", slaveErr)
	t.Logf("the slave connected %v after the master started", time.Since(masterUp).Round(time.Millisecond))
	require.Equal(t, 1, strings.Count(slaveErr.String(), "no master of this brokerName"), "said once; stderr:\n%s", slaveErr)
}
