package interop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// txListener answers the official producer by body: the local transaction's state, and the
// check-backs' states in turn (the last one repeats); it counts the check-backs per body.
type txListener struct {
	mu     sync.Mutex
	local  map[string]primitive.LocalTransactionState
	check  map[string][]primitive.LocalTransactionState
	checks map[string]int
	topics map[string]string // body → the topic a check-back saw
}

func (l *txListener) ExecuteLocalTransaction(m *primitive.Message) primitive.LocalTransactionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.local[string(m.Body)]
}

func (l *txListener) CheckLocalTransaction(m *primitive.MessageExt) primitive.LocalTransactionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := string(m.Body)
	l.checks[b]++
	l.topics[b] = m.Topic
	q := l.check[b]
	if len(q) == 0 {
		return primitive.UnkonwnState
	}
	if len(q) > 1 {
		l.check[b] = q[1:]
	}
	return q[0]
}

func (l *txListener) checked(body string) (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checks[body], l.topics[body]
}

// TestOfficialTransactionProducer: the official client's transaction producer against our broker
// (transactionTimeOut 1 s, transactionCheckInterval 2 s). A committed transaction reaches the
// consumer; a rolled-back one never does; one left UNKNOW is checked back — CHECK_TRANSACTION_STATE
// carries the message with its real topic — answered UNKNOW once, then COMMIT_MESSAGE, after
// which it is delivered once and no longer checked. Decided transactions are never checked. A
// transaction's message with a delay level (the official client keeps it) is a half message like
// the others: its commit is delivered once.
func TestOfficialTransactionProducer(t *testing.T) {
	t.Parallel()
	c := mqtest.StartCluster(t, embedded.Config{Customize: func(_ int, bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
		bc.TransactionTimeOut = time.Second
		bc.TransactionCheckInterval = 2 * time.Second // room for a loaded machine: an answer later than one interval would be asked again
	}})
	const topic = "InteropTxTopic"
	l := &txListener{
		local: map[string]primitive.LocalTransactionState{"commit": primitive.CommitMessageState,
			"rollback": primitive.RollbackMessageState, "unknown": primitive.UnkonwnState, "delayed": primitive.CommitMessageState},
		check:  map[string][]primitive.LocalTransactionState{"unknown": {primitive.UnkonwnState, primitive.CommitMessageState}},
		checks: map[string]int{}, topics: map[string]string{},
	}
	p, err := rocketmq.NewTransactionProducer(l, producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName("interop-tx-producer"), producer.WithInstanceName(instance(t)), producer.WithRetry(2))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })

	for _, body := range []string{"commit", "rollback", "unknown", "delayed"} {
		msg := primitive.NewMessage(topic, []byte(body))
		if body == "delayed" {
			msg.WithDelayTimeLevel(1) // the official client keeps it; our broker drops it from the half message
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := p.SendMessageInTransaction(ctx, msg)
		cancel()
		require.NoError(t, err, body)
		require.Equal(t, primitive.SendOK, res.Status, body)
		require.Equal(t, l.local[body], res.State, body)
	}

	col := newCollector()
	newPushConsumer(t, c.NamesrvAddr(), "interop-tx-consumer", topic, consumer.MessageSelector{}, col.consume)
	requireExactlyOnce(t, expectation{name: "tx consumer", col: col, want: []string{"commit", "unknown", "delayed"}})

	n, seenTopic := l.checked("unknown")
	require.Equal(t, 2, n, "checked back until it committed, then not again")
	require.Equal(t, topic, seenTopic, "the check-back names the real topic")
	for _, body := range []string{"commit", "rollback", "delayed"} {
		n, _ := l.checked(body)
		require.Zero(t, n, "%s was decided at once: never checked", body)
	}
}
