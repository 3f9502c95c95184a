package interop

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// childEnv, when set, makes the test binary a broker (TestMain's child mode): it holds the
// broker's command-line arguments, one per line.
const childEnv = "ROCKETMQ_GO_INTEROP_BROKER_ARGS"

// runChildBroker starts a broker through broker.BrokerStartup (the mqbroker command line) with
// args, reports its address (mqtest.ReportAddr), waits for SIGTERM or SIGINT, shuts the broker
// down and returns the exit code (0 after a clean shutdown).
func runChildBroker(args string) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	b, err := broker.BrokerStartup(strings.Split(args, "\n"), os.Stdout, os.Stderr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child broker:", err)
		return 1
	}
	if b == nil {
		fmt.Fprintln(os.Stderr, "child broker: nothing started")
		return 1
	}
	mqtest.ReportAddr(b.BrokerAddr())
	<-sig
	b.Shutdown()
	fmt.Println("INTEROP_BROKER_STOPPED")
	return 0
}

// startChildBroker runs this test binary in child mode with a broker.conf holding props, and
// waits for the broker's address. At cleanup a still-running child is killed.
func startChildBroker(t *testing.T, dir string, props map[string]string) *mqtest.Child {
	t.Helper()
	p, err := tryStartChildBroker(t, dir, props)
	require.NoError(t, err)
	return p
}

// tryStartChildBroker is startChildBroker returning an error when the child exits before it
// reports its address (its output is in the error).
func tryStartChildBroker(t *testing.T, dir string, props map[string]string) (*mqtest.Child, error) {
	t.Helper()
	var conf strings.Builder
	for k, v := range props {
		fmt.Fprintf(&conf, "%s=%s\n", k, v)
	}
	confPath := filepath.Join(dir, "broker.conf")
	require.NoError(t, os.WriteFile(confPath, []byte(conf.String()), 0o644))
	return mqtest.StartChild(t, childEnv+"=-c\n"+confPath)
}

// stopChildBroker sends SIGTERM and requires a clean exit (status 0) within 30 s.
func stopChildBroker(t *testing.T, c *mqtest.Child) {
	t.Helper()
	require.NoError(t, c.Signal(syscall.SIGTERM))
	err := c.Wait(30 * time.Second)
	require.NotErrorIs(t, err, mqtest.ErrChildRunning, "child broker did not exit within 30 s of SIGTERM\n%s", c.Output())
	require.NoError(t, err, "child broker's exit status\n%s", c.Output())
	require.Contains(t, c.Output(), "INTEROP_BROKER_STOPPED")
}

// committedOffsets asks the broker at addr for group's committed offset of each queue of topic
// (-1: none), over our own remoting client (QUERY_CONSUMER_OFFSET).
func committedOffsets(cli *remoting.Client, addr, group, topic string, queues int) (map[int]int64, error) {
	out := map[int]int64{}
	for q := 0; q < queues; q++ {
		req := remoting.NewRequest(protocol.QueryConsumerOffset,
			protocol.EncodeHeader(&protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: int32(q)}), nil)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		resp, err := cli.InvokeSync(ctx, addr, req)
		cancel()
		if err != nil {
			return nil, err
		}
		switch resp.Code {
		case protocol.QueryNotFound:
			out[q] = -1
		case remoting.Success:
			var h protocol.QueryConsumerOffsetResponseHeader
			if err := protocol.DecodeHeader(resp.ExtFields, &h); err != nil {
				return nil, err
			}
			out[q] = h.Offset
		default:
			return nil, errors.New("QUERY_CONSUMER_OFFSET: " + resp.Remark)
		}
	}
	return out, nil
}

// requireCommittedOffsets waits until the broker reports want as group's committed offsets.
func requireCommittedOffsets(t *testing.T, cli *remoting.Client, addr, group, topic string, want map[int]int64, msg string) {
	t.Helper()
	var last map[int]int64
	var lastErr error
	ok := assert.Eventually(t, func() bool {
		last, lastErr = committedOffsets(cli, addr, group, topic, len(want))
		return lastErr == nil && maps.Equal(last, want)
	}, 15*time.Second, 50*time.Millisecond)
	require.True(t, ok, "%s: want %v, last answer %v (err %v)", msg, want, last, lastErr)
}

// A broker in its own process is stopped with SIGTERM and started again on the same store (and
// port): it left no abort file (clean shutdown), it kept the topic and the group's committed
// offsets (config/topics.json, config/consumerOffset.json; Java: ConfigManager#persist at
// BrokerController#shutdown, load at initialize), so a fresh consumer of the same group gets
// none of the 100 messages the group had acknowledged, then exactly the 100 sent after the
// restart; their queue offsets continue where each queue stopped (Java:
// DefaultMessageStore#recoverTopicQueueTable rebuilds the next offsets from the ConsumeQueues),
// and the group's committed offsets reach the new ends.
func TestBrokerRestartKeepsOffsets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ns, err := embedded.StartNamesrv(dir, "", nil, nil)
	require.NoError(t, err)
	t.Cleanup(ns.Shutdown)
	nsAddr := ns.Addr()

	storeDir := filepath.Join(dir, "store")
	props := map[string]string{
		"brokerClusterName":          "DefaultCluster",
		"brokerName":                 "broker-r",
		"brokerIP1":                  "127.0.0.1",
		"brokerIP2":                  "127.0.0.1",
		"listenPort":                 "0",
		"namesrvAddr":                nsAddr,
		"storePathRootDir":           storeDir,
		"storePathCommitLog":         filepath.Join(storeDir, "commitlog"),
		"mappedFileSizeCommitLog":    strconv.Itoa(64 * 1024),
		"mappedFileSizeConsumeQueue": strconv.Itoa(100 * 20),
	}
	const topic, group, n, queues = "RestartTopic", "restart-consumer", 100, 4
	b1 := startChildBroker(t, dir, props)

	sendBatch := func(producerGroup, prefix string) (bodies []string, perQueue map[int][]int64) {
		p := newProducer(t, nsAddr, producerGroup)
		defer func() { _ = p.Shutdown() }()
		perQueue = map[int][]int64{}
		for i := 0; i < n; i++ {
			body := fmt.Sprintf("%s-%03d", prefix, i)
			res := sendSync(t, p, primitive.NewMessage(topic, []byte(body)))
			perQueue[res.MessageQueue.QueueId] = append(perQueue[res.MessageQueue.QueueId], res.QueueOffset)
			bodies = append(bodies, body)
		}
		return bodies, perQueue
	}

	// Before: 100 messages, consumed and acknowledged by the group.
	oldBodies, oldOffsets := sendBatch("restart-producer-1", "old")
	require.Len(t, oldOffsets, queues)
	ends := map[int]int64{}
	for q, offs := range oldOffsets {
		for j, off := range offs {
			require.Equal(t, int64(j), off, "queue %d before the restart", q)
		}
		ends[q] = int64(len(offs))
	}
	col1, pc1 := startPushConsumer(t, nsAddr, group, topic, consumer.MessageSelector{})
	requireExactlyOnce(t, expectation{"before the restart", col1, oldBodies, nil})
	require.NoError(t, pc1.Shutdown()) // persists its offsets (oneway UPDATE_CONSUMER_OFFSET)

	cli := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cli.Shutdown)
	requireCommittedOffsets(t, cli, b1.Addr, group, topic, ends, "the group's offsets are committed to the broker before it stops")
	cli.CloseChannel(b1.Addr)

	// SIGTERM, then the same store and port again.
	stopChildBroker(t, b1)
	require.NoFileExists(t, filepath.Join(storeDir, "abort"), "a clean shutdown removes the abort file")
	require.FileExists(t, filepath.Join(storeDir, "config", "topics.json"), "topics are persisted at shutdown")
	require.FileExists(t, filepath.Join(storeDir, "config", "consumerOffset.json"), "consumer offsets are persisted at shutdown")
	_, port, _ := strings.Cut(b1.Addr, ":")
	props["listenPort"] = port
	b2, err := tryStartChildBroker(t, dir, props)
	if err != nil {
		// The freed port can be taken meanwhile (another test's outgoing connection may get it
		// as its ephemeral port): restart on a new port; clients find it through the name server.
		t.Logf("restart on port %s failed, using a new port: %v", port, err)
		props["listenPort"] = "0"
		b2 = startChildBroker(t, dir, props)
	}
	got, err := committedOffsets(cli, b2.Addr, group, topic, queues)
	require.NoError(t, err)
	require.Equal(t, ends, got, "committed offsets right after the restart (config/consumerOffset.json loaded)")

	// After: a fresh consumer of the same group, then 100 new messages.
	col2, pc2 := startPushConsumer(t, nsAddr, group, topic, consumer.MessageSelector{})
	newBodies, newOffsets := sendBatch("restart-producer-2", "new")
	for q, offs := range newOffsets {
		for j, off := range offs {
			require.Equal(t, ends[q]+int64(j), off, "queue %d after the restart continues at %d", q, ends[q])
		}
	}
	requireExactlyOnce(t, expectation{"after the restart", col2, newBodies, nil})
	for q, offs := range newOffsets {
		ends[q] += int64(len(offs))
	}
	requireCommittedOffsets(t, cli, b2.Addr, group, topic, ends, "the group's offsets reach the new ends")
	require.NoError(t, pc2.Shutdown())
	stopChildBroker(t, b2)
}
