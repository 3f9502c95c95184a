package command_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// result is one mqadmin run: its exit code and what it printed.
type result struct {
	code        int
	out, errOut string
}

// mqadmin runs the subcommand sub with -n pointing at c's name server and args after it.
func mqadmin(t testing.TB, c *embedded.Cluster, sub string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	all := append([]string{sub, "-n", c.NamesrvAddr()}, args...)
	code := command.Main(all, command.Env{Stdout: &out, Stderr: &errOut, Timeout: 10 * time.Second})
	return result{code: code, out: out.String(), errOut: errOut.String()}
}

// ok runs mqadmin and requires exit code 0, returning stdout.
func ok(t testing.TB, c *embedded.Cluster, sub string, args ...string) string {
	t.Helper()
	r := mqadmin(t, c, sub, args...)
	require.Equal(t, command.ExitOK, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	return r.out
}

// keyValues parses "key<sep>value" lines (brokerStatus's "key: value", queryMsgById's
// "Name: value"), both sides trimmed.
func keyValues(out, sep string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, sep)
		kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return kv
}

// rows parses the box-drawn tables of out: every line that starts with "│", split into its
// trimmed cells (the header row included, first).
func rows(out string) [][]string {
	var t [][]string
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "│") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "│"), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		t = append(t, cells)
	}
	return t
}

// name is prefix followed by t's name as a topic or group may spell it (clienttest.Name).
func name(t testing.TB, prefix string) string { return prefix + clienttest.Name(t) }

// startCluster starts brokers brokers (broker-a, broker-b, ...) with a name server.
func startCluster(t testing.TB, brokers int) *embedded.Cluster {
	return clienttest.StartCluster(t, brokers, nil)
}

// createTopic creates topic with queues queues on every broker of c through mqadmin.
func createTopic(t testing.TB, c *embedded.Cluster, topic string, queues int) {
	t.Helper()
	q := fmt.Sprint(queues)
	ok(t, c, "updateTopic", "-c", c.Brokers[0].BrokerConfig().BrokerClusterName, "-t", topic, "-r", q, "-w", q)
}

// startProducer starts a producer of group (heartbeats and route polling off).
func startProducer(t testing.TB, c *embedded.Cluster, group string) *producer.DefaultMQProducer {
	t.Helper()
	return mqtest.MustStartProducer(t, mqtest.ProducerConfig(group, c.NamesrvAddr(), clienttest.InstanceName(t, "p")))
}

// sendTo sends n messages with body prefix-i, keys key and tag to mq, returning the results.
func sendTo(t testing.TB, p *producer.DefaultMQProducer, mq primitive.MessageQueue, prefix, key, tag string, n int) []*producer.SendResult {
	t.Helper()
	var out []*producer.SendResult
	for i := range n {
		m := &primitive.Message{Topic: mq.Topic, Body: []byte(fmt.Sprintf("%s-%d", prefix, i)), Properties: map[string]string{}}
		if key != "" {
			m.Properties[primitive.PropertyKeys] = key
		}
		if tag != "" {
			m.Properties[primitive.PropertyTags] = tag
		}
		res, err := p.SendToQueue(context.Background(), m, mq)
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, res.SendStatus)
		out = append(out, res)
	}
	return out
}

// received collects the bodies a push consumer got, by body.
type received struct {
	ch chan string
}

// startConsumer starts a push consumer of group on topic from the first offset that records
// every body it consumes.
func startConsumer(t testing.TB, c *embedded.Cluster, group, topic string) (*consumer.DefaultMQPushConsumer, *received) {
	t.Helper()
	cfg := consumer.DefaultConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "c")
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 200 * time.Millisecond
	cfg.PersistConsumerOffsetInterval = 200 * time.Millisecond
	cfg.HeartbeatBrokerInterval = 200 * time.Millisecond
	rec := &received{ch: make(chan string, 1000)}
	cons := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		for _, m := range msgs {
			rec.ch <- string(m.Body)
		}
		return consumer.ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	return cons, rec
}

// take waits for n bodies (10 s at most) and returns them.
func (r *received) take(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	deadline := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case b := <-r.ch:
			out = append(out, b)
		case <-deadline:
			t.Fatalf("got %d of %d messages: %v", len(out), n, out)
		}
	}
	return out
}
