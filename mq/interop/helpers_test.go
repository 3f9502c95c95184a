package interop

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// quietWindow is how long "nothing more arrives" is watched for after every expected message
// arrived: the "exactly once" half of the consumer checks.
const quietWindow = 3 * time.Second

// consumeTimeout bounds the wait for expected messages (the client's rebalance and pull
// scheduling take a second or two; the rest is margin for a loaded machine).
const consumeTimeout = 60 * time.Second

// TestMain has a child mode: the restart test re-runs this binary as a broker process it can
// SIGTERM (runChildBroker).
func TestMain(m *testing.M) {
	rlog.SetLogLevel("fatal")
	mqtest.ChildMain(m, childEnv, runChildBroker)
}

var instanceSeq atomic.Int64

// instance gives each official client a unique instance name: the client keeps one instance per
// ip@instanceName, process-wide, and would otherwise reuse one bound to another test's name server.
func instance(t testing.TB) string {
	return fmt.Sprintf("%s-%d-%d", t.Name(), os.Getpid(), instanceSeq.Add(1))
}

// startCluster starts a name server and one broker (broker-a) with small CommitLog (64 KiB) and
// ConsumeQueue (100 units) files, so the tests roll files, then applies more to the store
// config; it is shut down at cleanup.
func startCluster(t *testing.T, more ...func(*store.MessageStoreConfig)) *embedded.Cluster {
	t.Helper()
	return mqtest.StartCluster(t, embedded.Config{Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		for _, f := range more {
			f(sc)
		}
	}})
}

// startWithProducer starts a cluster (startCluster) and an official producer of group on it.
func startWithProducer(t *testing.T, group string) (*embedded.Cluster, rocketmq.Producer) {
	t.Helper()
	c := startCluster(t)
	return c, newProducer(t, c.NamesrvAddr(), group)
}

// newProducer starts an official producer with a unique instance name; shut down at cleanup.
func newProducer(t testing.TB, namesrv, group string, opts ...producer.Option) rocketmq.Producer {
	t.Helper()
	all := append([]producer.Option{producer.WithNameServer(primitive.NamesrvAddr{namesrv}),
		producer.WithGroupName(group), producer.WithInstanceName(instance(t)), producer.WithRetry(2)}, opts...)
	p, err := rocketmq.NewProducer(all...)
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// sendSync sends msgs (one message, or a batch) and requires SEND_OK.
func sendSync(t testing.TB, p rocketmq.Producer, msgs ...*primitive.Message) *primitive.SendResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, msgs...)
	require.NoError(t, err)
	require.Equal(t, primitive.SendOK, res.Status)
	return res
}

// delivery is what a collector keeps of one delivered message.
type delivery struct {
	tag   string
	count int
}

// collector records what a push consumer was given, by body.
type collector struct {
	mu  sync.Mutex
	got map[string]*delivery
}

func newCollector() *collector { return &collector{got: map[string]*delivery{}} }

func (c *collector) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		d := c.got[string(m.Body)]
		if d == nil {
			d = &delivery{tag: m.GetTags()}
			c.got[string(m.Body)] = d
		}
		d.count++
	}
	return consumer.ConsumeSuccess, nil
}

// has reports whether every body in want was delivered.
func (c *collector) has(want []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range want {
		if c.got[b] == nil {
			return false
		}
	}
	return true
}

// requireExactly checks that the delivered bodies are exactly want, each delivered once, and
// (when tags is not nil) with the tag tags[body].
func (c *collector) requireExactly(t *testing.T, name string, want []string, tags map[string]string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing, extra, dups []string
	for _, b := range want {
		if c.got[b] == nil {
			missing = append(missing, b)
		}
	}
	for b, d := range c.got {
		if !slices.Contains(want, b) {
			extra = append(extra, b)
		}
		if d.count > 1 {
			dups = append(dups, b)
		}
		if tags != nil && slices.Contains(want, b) {
			require.Equal(t, tags[b], d.tag, "%s: tag of %q", name, b)
		}
	}
	sort.Strings(extra)
	sort.Strings(dups)
	require.Empty(t, missing, "%s: messages never delivered", name)
	require.Empty(t, extra, "%s: messages delivered that it should not get", name)
	require.Empty(t, dups, "%s: messages delivered more than once", name)
}

// startPushConsumer starts an official push consumer of group on topic with selector, from the
// first offset when the group has none, feeding a new collector. The consumer is shut down at
// cleanup (Shutdown is idempotent, so tests may stop it earlier).
func startPushConsumer(t *testing.T, namesrv, group, topic string, sel consumer.MessageSelector) (*collector, rocketmq.PushConsumer) {
	t.Helper()
	col := newCollector()
	return col, newPushConsumer(t, namesrv, group, topic, sel, col.consume)
}

// consumeFunc is an official push consumer's listener.
type consumeFunc = func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error)

// newPushConsumer starts an official push consumer of group, with a unique instance name, on
// topic with selector, from the first offset when the group has none, calling fn; opts are
// appended to those options. It is shut down at cleanup (Shutdown is idempotent).
//
// The official client's Start fails at once with "route info not found" while the name server
// has no route for topic yet — a topic a send just auto-created reaches the name server with the
// broker's next registration, a moment later — so a Start that fails so is retried with a new
// consumer every 100 ms for up to 10 s, as the quickstart does; any other error fails the test.
func newPushConsumer(t testing.TB, namesrv, group, topic string, sel consumer.MessageSelector, fn consumeFunc,
	opts ...consumer.Option) rocketmq.PushConsumer {
	t.Helper()
	all := append([]consumer.Option{consumer.WithNameServer(primitive.NamesrvAddr{namesrv}),
		consumer.WithGroupName(group), consumer.WithInstance(instance(t)),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset)}, opts...)
	deadline := time.Now().Add(10 * time.Second)
	for {
		pc, err := rocketmq.NewPushConsumer(all...)
		require.NoError(t, err)
		require.NoError(t, pc.Subscribe(topic, sel, fn))
		err = pc.Start()
		if err == nil {
			t.Cleanup(func() { _ = pc.Shutdown() })
			return pc
		}
		_ = pc.Shutdown()
		if !strings.Contains(err.Error(), "route info not found") || time.Now().After(deadline) {
			require.NoError(t, err, "start the official push consumer of %s on %s", group, topic)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// expectation is one collector and the bodies (and tags) it must end up with.
type expectation struct {
	name string
	col  *collector
	want []string
	tags map[string]string
}

// requireExactlyOnce waits until every collector has all its bodies, then watches a quiet window,
// then requires each to hold exactly its bodies, each once.
func requireExactlyOnce(t *testing.T, exps ...expectation) {
	t.Helper()
	for _, e := range exps {
		require.Eventually(t, func() bool { return e.col.has(e.want) }, consumeTimeout, 20*time.Millisecond,
			"%s: not all %d messages delivered", e.name, len(e.want))
	}
	time.Sleep(quietWindow) // nothing more may arrive
	for _, e := range exps {
		e.col.requireExactly(t, e.name, e.want, e.tags)
	}
}

// rawConn is a plain TCP connection speaking the remoting frame format by hand.
type rawConn struct {
	net.Conn
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 3*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return &rawConn{conn}
}

// invoke writes req as a frame and reads frames until the response to it (same opaque).
func (c *rawConn) invoke(t *testing.T, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	t.Helper()
	_, err := c.Write(remoting.EncodeFrame(nil, req))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	for {
		var lenBuf [4]byte
		_, err := io.ReadFull(c, lenBuf[:])
		require.NoError(t, err, "reading the response's length field")
		frame := make([]byte, binary.BigEndian.Uint32(lenBuf[:]))
		_, err = io.ReadFull(c, frame)
		require.NoError(t, err, "reading the response frame")
		resp, err := remoting.DecodeFrame(frame)
		require.NoError(t, err)
		if resp.IsResponse() && resp.Opaque == req.Opaque {
			return resp
		}
	}
}
