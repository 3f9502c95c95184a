package dashboard

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// console is a name server and broker-a whose tracer writes to a hub, with a console over it.
type console struct {
	cluster *embedded.Cluster
	hub     *trace.Hub
	d       *Dashboard
	url     string // the console's base URL, no trailing slash
}

// startConsole starts the cluster (small files) and a console with writes enabled or not;
// started (listening on an ephemeral port through Start) or served by httptest.
func startConsole(t *testing.T, write, listen bool) *console {
	t.Helper()
	hub := trace.NewHub(nil)
	c := mqtest.StartCluster(t, embedded.Config{Logger: slog.New(hub),
		Customize: func(_ int, bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			bc.WaitTimeMillsInSendQueue = 10 * time.Second // a loaded machine may queue a send past 200 ms
		}})
	d, err := New(Config{Addr: "127.0.0.1:0", NamesrvAddr: c.NamesrvAddr(), Hub: hub, WriteEnable: write,
		Locks: c.Brokers[0].RebalanceLockManager(), Timeout: 10 * time.Second})
	require.NoError(t, err)
	cs := &console{cluster: c, hub: hub, d: d}
	if listen {
		require.NoError(t, d.Start())
		cs.url = strings.TrimSuffix(d.URL(), "/")
	} else {
		srv := httptest.NewServer(d.Handler())
		t.Cleanup(srv.Close)
		cs.url = srv.URL
	}
	t.Cleanup(d.Shutdown) // runs before the cluster's shutdown
	return cs
}

// get fetches path and returns the status and body.
func (c *console) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(c.url + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// page fetches path and requires 200.
func (c *console) page(t *testing.T, path string) string {
	t.Helper()
	code, body := c.get(t, path)
	require.Equal(t, http.StatusOK, code, body)
	return body
}

// eventually fetches path until its page contains want (10 s at most) and returns that page;
// it fails the test with the last page it got.
func (c *console) eventually(t *testing.T, path, want, why string) string {
	t.Helper()
	var last atomic.Pointer[string]
	if !assert.Eventually(t, func() bool {
		_, body := c.get(t, path)
		last.Store(&body)
		return strings.Contains(body, want)
	}, 10*time.Second, 50*time.Millisecond, why) {
		t.Fatalf("%s: %q not in the page:\n%s", path, want, *last.Load())
	}
	return *last.Load()
}

// post posts form to path (with headers) and returns the status and body.
func (c *console) post(t *testing.T, path string, form url.Values, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// startProducer starts a producer of our client (scheduled tasks off).
func startProducer(t *testing.T, c *console) *producer.DefaultMQProducer {
	t.Helper()
	p := producer.NewDefaultMQProducer(mqtest.ProducerConfig("console_test_producer", c.cluster.NamesrvAddr(), clienttest.InstanceName(t, "p")))
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	return p
}

// send sends one message with body and keys to topic.
func send(t *testing.T, p *producer.DefaultMQProducer, topic, body, keys string) *producer.SendResult {
	t.Helper()
	m := &primitive.Message{Topic: topic, Body: []byte(body), Properties: map[string]string{primitive.PropertyKeys: keys}}
	res, err := p.Send(context.Background(), m)
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, res.SendStatus)
	return res
}

// startConsumer starts a push consumer of group on topic from the first offset; bodies come
// out on the returned channel. orderly registers an orderly listener (the consumer locks its
// queues on the broker).
func startConsumer(t *testing.T, c *console, group, topic string, orderly bool) (<-chan string, *consumer.DefaultMQPushConsumer) {
	t.Helper()
	cfg := consumer.DefaultConfig(group)
	cfg.NamesrvAddr = c.cluster.NamesrvAddr()
	cfg.InstanceName = clienttest.InstanceName(t, "c")
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cfg.RebalanceInterval = 200 * time.Millisecond
	cfg.PersistConsumerOffsetInterval = 200 * time.Millisecond
	cfg.HeartbeatBrokerInterval = 200 * time.Millisecond
	got := make(chan string, 100)
	cons := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	if orderly {
		cons.RegisterMessageListenerOrderly(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeOrderlyContext) consumer.ConsumeOrderlyStatus {
			for _, m := range msgs {
				got <- string(m.Body)
			}
			return consumer.ConsumeOrderlySuccess
		})
	} else {
		cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
			for _, m := range msgs {
				got <- string(m.Body)
			}
			return consumer.ConsumeSuccess
		})
	}
	require.NoError(t, cons.Start())
	t.Cleanup(cons.Shutdown)
	return got, cons
}

// receive waits (10 s at most) for one body.
func receive(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no message consumed within 10 s")
		return ""
	}
}
