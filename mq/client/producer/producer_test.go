package producer

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func startCluster(t testing.TB, brokers int) *embedded.Cluster {
	return clienttest.StartCluster(t, brokers, nil)
}

func testConfig(t testing.TB, namesrv string) Config {
	cfg := DefaultConfig("pg_" + clienttest.Name(t))
	cfg.NamesrvAddr = namesrv
	cfg.InstanceName = clienttest.InstanceName(t, "p")
	cfg.Options.DisableScheduledTasks = true
	return cfg
}

func startProducer(t testing.TB, cfg Config) *DefaultMQProducer {
	t.Helper()
	p := NewDefaultMQProducer(cfg)
	require.NoError(t, p.Start())
	t.Cleanup(p.Shutdown)
	return p
}

// storedMessage reads a sent message back from the broker's store through its offsetMsgId.
func storedMessage(t *testing.T, c *embedded.Cluster, res *SendResult) *primitive.MessageExt {
	t.Helper()
	host, offset, err := primitive.DecodeOffsetMsgID(res.OffsetMsgID)
	require.NoError(t, err)
	for _, b := range c.Brokers {
		if b.BrokerConfig().BrokerName == res.MessageQueue.BrokerName {
			require.Equal(t, b.BrokerAddr(), host, "the offsetMsgId names the broker's store host")
			m, err := b.MessageStore().LookMessageByOffset(store.CommitLogOffset(offset))
			require.NoError(t, err)
			return m
		}
	}
	t.Fatalf("no broker %s", res.MessageQueue.BrokerName)
	return nil
}

// A synchronous send stores the message as given: UNIQ_KEY (32 hex characters) set on the
// message and returned as MsgID, the offsetMsgId pointing at the stored record, tags, keys and
// user properties kept, queue offsets counting up per queue.
func TestSendStoresTheMessage(t *testing.T) {
	c := startCluster(t, 1)
	p := startProducer(t, testConfig(t, c.NamesrvAddr()))
	msg := &primitive.Message{Topic: "SendT", Flag: 9, Body: []byte("hello"),
		Properties: map[string]string{"TAGS": "TagA", "KEYS": "k1 k2", "color": "blue"}}
	res, err := p.Send(context.Background(), msg)
	require.NoError(t, err)
	require.Equal(t, SendOK, res.SendStatus)
	require.Len(t, res.MsgID, 32)
	require.Equal(t, res.MsgID, msg.GetProperty("UNIQ_KEY"))
	require.Equal(t, "DefaultRegion", res.RegionID)
	stored := storedMessage(t, c, res)
	require.Equal(t, []byte("hello"), stored.Body)
	require.Equal(t, int32(9), stored.Flag)
	require.Equal(t, res.MessageQueue.QueueID, stored.QueueID)
	for _, k := range []string{"TAGS", "KEYS", "color", "UNIQ_KEY"} {
		require.Equal(t, msg.GetProperty(k), stored.GetProperty(k), k)
	}
	res2, err := p.SendToQueue(context.Background(), &primitive.Message{Topic: "SendT", Body: []byte("again")}, res.MessageQueue)
	require.NoError(t, err)
	require.Equal(t, res.MessageQueue, res2.MessageQueue)
	require.Equal(t, res.QueueOffset+1, res2.QueueOffset)
}

// Bodies of at least compressMsgBodyOverHowmuch bytes travel and are stored zlib-compressed with
// sysFlag 0x301; smaller ones are not; the caller's message keeps its plain body.
func TestSendCompressesLargeBodies(t *testing.T) {
	c := startCluster(t, 1)
	p := startProducer(t, testConfig(t, c.NamesrvAddr()))
	for _, size := range []int{4095, 4096} {
		body := []byte(strings.Repeat("x", size))
		msg := &primitive.Message{Topic: "ZipT", Body: body}
		res, err := p.Send(context.Background(), msg)
		require.NoError(t, err)
		require.Equal(t, body, msg.Body)
		stored := storedMessage(t, c, res)
		if size < 4096 {
			require.Equal(t, int32(0), stored.SysFlag&0x301)
			require.Equal(t, body, stored.Body)
		} else {
			require.Equal(t, int32(0x301), stored.SysFlag&0x301)
			require.Less(t, len(stored.Body), 100)
		}
	}
}

// Async, oneway, batch, selector and queue sends all store their messages; a batch's result
// lists every UNIQ_KEY and offsetMsgId, its queue offset is the first message's.
func TestSendModes(t *testing.T) {
	c := startCluster(t, 1)
	p := startProducer(t, testConfig(t, c.NamesrvAddr()))
	ctx := context.Background()
	msg := func(s string) *primitive.Message { return &primitive.Message{Topic: "ModeT", Body: []byte(s)} }

	done := make(chan *SendResult, 1)
	require.NoError(t, p.SendAsync(ctx, msg("async"), func(r *SendResult, err error) {
		require.NoError(t, err)
		done <- r
	}))
	ar := <-done
	require.Equal(t, []byte("async"), storedMessage(t, c, ar).Body)

	batch := []*primitive.Message{msg("b1"), msg("b2"), msg("b3")}
	br, err := p.SendBatch(ctx, batch)
	require.NoError(t, err)
	ids := strings.Split(br.MsgID, ",")
	require.Len(t, ids, 3)
	for i, m := range batch {
		require.Equal(t, m.GetProperty("UNIQ_KEY"), ids[i])
	}
	offIDs := strings.Split(br.OffsetMsgID, ",")
	require.Len(t, offIDs, 3)
	first := storedMessage(t, c, &SendResult{OffsetMsgID: offIDs[0], MessageQueue: br.MessageQueue})
	require.Equal(t, []byte("b1"), first.Body)
	require.Equal(t, br.QueueOffset, first.QueueOffset)
	last := storedMessage(t, c, &SendResult{OffsetMsgID: offIDs[2], MessageQueue: br.MessageQueue})
	require.Equal(t, br.QueueOffset+2, last.QueueOffset)
	require.Equal(t, ids[2], last.GetProperty("UNIQ_KEY"))

	sel := SelectMessageQueueByHash{}
	s1, err := p.SendWithSelector(ctx, msg("order-1"), sel, "order-42")
	require.NoError(t, err)
	s2, err := p.SendWithSelector(ctx, msg("order-2"), sel, "order-42")
	require.NoError(t, err)
	require.Equal(t, s1.MessageQueue, s2.MessageQueue, "same arg, same queue")
	require.Equal(t, s1.QueueOffset+1, s2.QueueOffset)

	mq := primitive.MessageQueue{Topic: "OnewayT", BrokerName: "broker-a", QueueID: 3}
	st := c.Brokers[0].MessageStore()
	require.NoError(t, p.SendOnewayToQueue(ctx, &primitive.Message{Topic: "OnewayT", Body: []byte("oneway")}, mq))
	require.Eventually(t, func() bool { return st.GetMaxOffsetInQueue("OnewayT", 3) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, p.SendOneway(ctx, msg("oneway2")))

	q, err := p.FetchPublishMessageQueues("ModeT")
	require.NoError(t, err)
	require.Len(t, q, 4)
	_, err = p.SendToQueue(ctx, msg("x"), primitive.MessageQueue{Topic: "Other", BrokerName: "broker-a"})
	require.ErrorIs(t, err, client.ErrMessageIllegal)
	_, err = p.SendBatch(ctx, []*primitive.Message{msg("a"), {Topic: "Other", Body: []byte("b")}})
	require.ErrorIs(t, err, client.ErrMessageIllegal)
	require.ErrorIs(t, p.SendAsync(ctx, msg("x"), nil), ErrNilCallback)
}

// Start refuses DEFAULT_PRODUCER, invalid group names, a group already registered with the same
// client instance, and a second Start; sends need a running producer; Shutdown is idempotent.
func TestStartAndShutdownRules(t *testing.T) {
	c := startCluster(t, 1)
	cfg := testConfig(t, c.NamesrvAddr())
	for _, g := range []string{"DEFAULT_PRODUCER", "", "bad group"} {
		bad := cfg
		bad.ProducerGroup = g
		require.ErrorIs(t, NewDefaultMQProducer(bad).Start(), client.ErrIllegalConfig, "group %q", g)
	}
	p := NewDefaultMQProducer(cfg)
	_, err := p.Send(context.Background(), &primitive.Message{Topic: "T", Body: []byte("x")})
	require.ErrorIs(t, err, client.ErrServiceState)
	require.NoError(t, p.Start())
	require.ErrorIs(t, p.Start(), client.ErrServiceState)
	require.ErrorIs(t, NewDefaultMQProducer(cfg).Start(), client.ErrGroupExists, "same group, same instance")
	other := cfg
	other.ProducerGroup = cfg.ProducerGroup + "_2"
	p2 := startProducer(t, other)
	require.Same(t, p.MQClientInstance(), p2.MQClientInstance(), "one instance per clientId")
	p.Shutdown()
	p.Shutdown()
	_, err = p.Send(context.Background(), &primitive.Message{Topic: "T", Body: []byte("x")})
	require.ErrorIs(t, err, client.ErrServiceState)
	require.Equal(t, client.Running, p2.MQClientInstance().State(), "the instance lives on for p2")
	_, err = p2.Send(context.Background(), &primitive.Message{Topic: "T", Body: []byte("x")})
	require.NoError(t, err)
}

// Hooks see every attempt, before and after, with its queue, broker address and outcome.
func TestSendMessageHook(t *testing.T) {
	c := startCluster(t, 1)
	p := startProducer(t, testConfig(t, c.NamesrvAddr()))
	h := &recordingHook{}
	p.RegisterSendMessageHook(h)
	res, err := p.Send(context.Background(), &primitive.Message{Topic: "HookT", Body: []byte("x")})
	require.NoError(t, err)
	done := make(chan struct{})
	require.NoError(t, p.SendAsync(context.Background(), &primitive.Message{Topic: "HookT", Body: []byte("y")},
		func(*SendResult, error) { close(done) }))
	<-done
	h.mu.Lock()
	defer h.mu.Unlock()
	require.Equal(t, []string{"before SYNC", "after SYNC SEND_OK", "before ASYNC", "after ASYNC SEND_OK"}, h.events)
	require.Equal(t, res.MessageQueue, h.ctxs[0].MQ)
	require.Equal(t, c.Brokers[0].BrokerAddr(), h.ctxs[0].BrokerAddr)
}

type recordingHook struct {
	mu     sync.Mutex
	events []string
	ctxs   []*SendMessageContext
}

func (h *recordingHook) HookName() string { return "recording" }
func (h *recordingHook) SendMessageBefore(c *SendMessageContext) {
	h.mu.Lock()
	h.events = append(h.events, "before "+c.CommunicationMode.String())
	h.ctxs = append(h.ctxs, c)
	h.mu.Unlock()
}
func (h *recordingHook) SendMessageAfter(c *SendMessageContext) {
	h.mu.Lock()
	h.events = append(h.events, "after "+c.CommunicationMode.String()+" "+c.SendResult.SendStatus.String())
	h.mu.Unlock()
}

// Concurrent senders share one producer safely (run with -race) and lose nothing.
func TestConcurrentSends(t *testing.T) {
	c := startCluster(t, 2)
	rec := trace.NewRecorder()
	cfg := testConfig(t, c.NamesrvAddr())
	cfg.Options.Logger = slog.New(rec)
	cfg.SendLatencyFaultEnable = true
	p := startProducer(t, cfg)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				m := &primitive.Message{Topic: "ConcT", Body: []byte(fmt.Sprintf("%d-%d", g, i))}
				if _, err := p.Send(context.Background(), m); err == nil {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(200), ok.Load())
	stored := func() int64 {
		var total int64
		for _, b := range c.Brokers {
			for q := range int32(4) {
				total += int64(b.MessageStore().GetMaxOffsetInQueue("ConcT", q))
			}
		}
		return total
	}
	// The ConsumeQueue is built behind the CommitLog (reput): wait for it to catch up.
	require.Eventually(t, func() bool { return stored() == 200 }, 5*time.Second, 5*time.Millisecond)
	require.NotEmpty(t, rec.Labels())
}
