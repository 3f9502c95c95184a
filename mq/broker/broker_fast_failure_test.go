package broker

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// stuckPut makes the store's next put hang inside the put lock (as a put stuck in a slow page
// fault would) until released, on a store clock the test moves by hand.
type stuckPut struct {
	clock   *clock.Manual
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

// unblock lets the stuck put go on; call it at cleanup too (before the broker's Shutdown),
// so a failed test does not hang the broker.
func (p *stuckPut) unblock() { p.once.Do(func() { close(p.release) }) }

func newStuckPut() *stuckPut {
	p := &stuckPut{clock: clock.NewManualMillis(1700000000000), entered: make(chan struct{}, 1), release: make(chan struct{})}
	return p
}

func (p *stuckPut) option(fastFailureEnable bool) testOption {
	return func(c *BrokerConfig, s storeSetup) {
		c.BrokerFastFailureEnable = fastFailureEnable
		s.Clock = p.clock
		s.Events.PutInLock = func() {
			if p.armed.CompareAndSwap(true, false) {
				p.entered <- struct{}{}
				<-p.release
			}
		}
	}
}

// asyncSend sends one message without waiting; the answer arrives on the returned channel.
func (tb *testBroker) asyncSend(t *testing.T, body string) <-chan *remoting.RemotingCommand {
	t.Helper()
	out := make(chan *remoting.RemotingCommand, 1)
	h := sendHeader("FF", 0, nil)
	err := tb.client.InvokeAsync(context.Background(), tb.addr, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(h), []byte(body)),
		func(resp *remoting.RemotingCommand, err error) {
			require.NoError(t, err)
			out <- resp
		})
	require.NoError(t, err)
	return out
}

func (tb *testBroker) sendQueueLen() int {
	n := 0
	for _, p := range tb.b.fastFailurePools.send {
		n += p.QueueLen()
	}
	return n
}

// TestFastFailurePageCacheBusy: while a put holds the put lock longer than
// osPageCacheBusyTimeOutMills (1 s), sends already queued are answered SYSTEM_BUSY
// "[PCBUSY_CLEAN_QUEUE]..." by the sweep, new sends are refused at the door with
// "[REJECTREQUEST]...", and none of them reaches the store; the stuck put completes.
// Java: BrokerFastFailure#cleanExpiredRequest, SendMessageProcessor#rejectRequest,
// DefaultMessageStore#isOSPageCacheBusy.
func TestFastFailurePageCacheBusy(t *testing.T) {
	p := newStuckPut()
	tb := startTestBroker(t, nil, p.option(false))
	t.Cleanup(p.unblock)
	tb.sendOK(t, "FF", 0, "", []byte("warm-up")) // creates the topic
	p.armed.Store(true)
	stuck := tb.asyncSend(t, "stuck")
	<-p.entered
	queued := []<-chan *remoting.RemotingCommand{tb.asyncSend(t, "q1"), tb.asyncSend(t, "q2")}
	require.Eventually(t, func() bool { return tb.sendQueueLen() == 2 }, 5*time.Second, time.Millisecond)

	require.Zero(t, tb.b.BrokerFastFailure().CleanExpiredRequest(), "not busy yet, not old yet")
	p.clock.Advance(1500 * time.Millisecond) // the put has held the lock 1.5 s: the page cache is busy
	require.True(t, tb.b.MessageStore().IsOSPageCacheBusy())
	resp := tb.send(t, "FF", 0, "", []byte("new"))
	require.Equal(t, remoting.SystemBusy, resp.Code)
	require.Equal(t, "[REJECTREQUEST]system busy, start flow control for a while", resp.Remark)

	require.Equal(t, 2, tb.b.BrokerFastFailure().CleanExpiredRequest())
	for _, ch := range queued {
		r := <-ch
		require.Equal(t, remoting.SystemBusy, r.Code)
		require.True(t, strings.HasPrefix(r.Remark, "[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "), r.Remark)
	}
	p.unblock()
	r := <-stuck
	require.Equal(t, int32(protocol.Success), r.Code, r.Remark)
	tb.waitDispatched(t, "FF", 0, 2)
	time.Sleep(10 * time.Millisecond) // nothing else arrives
	require.Equal(t, store.QueueOffset(2), tb.b.MessageStore().GetMaxOffsetInQueue("FF", 0), "only warm-up and stuck were stored")
}

// TestFastFailureTimeout: a send that waited in the send queue at least
// waitTimeMillsInSendQueue (200 ms) is answered SYSTEM_BUSY "[TIMEOUT_CLEAN_QUEUE]..."; a
// younger one stays queued and is stored later. The wait is measured on the broker's clock, the
// one its send pool stamps queued requests with. Java: BrokerFastFailure#cleanExpiredRequestInQueue.
func TestFastFailureTimeout(t *testing.T) {
	p := newStuckPut()
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	tb := startTestBrokerOn(t, clk, nil, p.option(false))
	t.Cleanup(p.unblock)
	tb.sendOK(t, "FF", 0, "", []byte("warm-up"))
	p.armed.Store(true)
	stuck := tb.asyncSend(t, "stuck")
	<-p.entered
	old := tb.asyncSend(t, "old")
	require.Eventually(t, func() bool { return tb.sendQueueLen() == 1 }, 5*time.Second, time.Millisecond)
	clk.Advance(200 * time.Millisecond) // "old" has waited 200 ms; "young" is queued now
	young := tb.asyncSend(t, "young")
	require.Eventually(t, func() bool { return tb.sendQueueLen() == 2 }, 5*time.Second, time.Millisecond)
	require.Equal(t, 2, brokerState{tb.b}.MetricsSnapshot().SendQueueLength, "a scrape sees the queued sends")
	busy := tb.b.Metrics().Responses(remoting.SystemBusy)
	ff := tb.b.BrokerFastFailure()
	require.Equal(t, 1, ff.CleanExpiredRequest())
	require.Equal(t, uint64(1), tb.b.Metrics().FastFailures(), "rocketmq_fast_failure_total counts the answer")
	r := <-old
	require.Equal(t, remoting.SystemBusy, r.Code)
	require.Equal(t, busy+1, tb.b.Metrics().Responses(remoting.SystemBusy), "and the SYSTEM_BUSY response code")
	require.True(t, strings.HasPrefix(r.Remark, "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "), r.Remark)
	require.Equal(t, "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: 200ms, size of queue: 1", r.Remark)
	p.unblock()
	require.Equal(t, int32(protocol.Success), (<-stuck).Code)
	require.Equal(t, int32(protocol.Success), (<-young).Code)
}

// TestFastFailureServiceRuns: with brokerFastFailureEnable the sweep runs by itself (every
// 10 ms, first after 1 s). Java: BrokerFastFailure#start.
func TestFastFailureServiceRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the sweep's first run (1 s)")
	}
	p := newStuckPut()
	tb := startTestBroker(t, nil, p.option(true), func(c *BrokerConfig, _ storeSetup) {
		c.WaitTimeMillsInSendQueue = 20 * time.Millisecond
	})
	t.Cleanup(p.unblock)
	tb.sendOK(t, "FF", 0, "", []byte("warm-up"))
	p.armed.Store(true)
	stuck := tb.asyncSend(t, "stuck")
	<-p.entered
	select {
	case r := <-tb.asyncSend(t, "queued"):
		require.Equal(t, remoting.SystemBusy, r.Code)
		require.Contains(t, r.Remark, "[TIMEOUT_CLEAN_QUEUE]")
	case <-time.After(10 * time.Second):
		t.Fatal("the sweep did not answer the queued send")
	}
	p.unblock()
	require.Equal(t, int32(protocol.Success), (<-stuck).Code)
}

// TestFastFailureConfigKeys: the keys are read from broker.conf with Java's defaults.
func TestFastFailureConfigKeys(t *testing.T) {
	c := DefaultBrokerConfig()
	require.True(t, c.BrokerFastFailureEnable)
	require.Equal(t, 200*time.Millisecond, c.WaitTimeMillsInSendQueue)
	require.Equal(t, 5*time.Second, c.WaitTimeMillsInPullQueue)
	require.Equal(t, 31*time.Second, c.WaitTimeMillsInHeartbeatQueue)
	require.Equal(t, 3*time.Second, c.WaitTimeMillsInTransactionQueue)
	s := store.DefaultMessageStoreConfig()
	unknown, _, err := applyProperties("brokerFastFailureEnable=false\nwaitTimeMillsInSendQueue=500\n", &c, &s)
	require.NoError(t, err)
	require.Empty(t, unknown)
	require.False(t, c.BrokerFastFailureEnable)
	require.Equal(t, 500*time.Millisecond, c.WaitTimeMillsInSendQueue)
}

// TestFastFailureEndTransaction: an END_TRANSACTION that waited in its queue at least
// waitTimeMillsInTransactionQueue (3 s) behind a stuck commit is answered SYSTEM_BUSY
// "[TIMEOUT_CLEAN_QUEUE]..." and never processed; the stuck one completes once the put goes on.
// Java: BrokerFastFailure#cleanExpiredRequest (endTransactionThreadPoolQueue).
func TestFastFailureEndTransaction(t *testing.T) {
	p := newStuckPut()
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	tb := startTestBrokerOn(t, clk, nil, p.option(false), func(c *BrokerConfig, _ storeSetup) { c.EndTransactionThreadPoolNums = 1 })
	t.Cleanup(p.unblock)
	rh1, off1 := tb.sendHalf(t, "TxTopic", "first")
	rh2, off2 := tb.sendHalf(t, "TxTopic", "second")
	end := func(rh protocol.SendMessageResponseHeader, off int64) <-chan *remoting.RemotingCommand {
		out := make(chan *remoting.RemotingCommand, 1)
		h := protocol.EndTransactionRequestHeader{ProducerGroup: "pg", TranStateTableOffset: rh.QueueOffset,
			CommitLogOffset: off, CommitOrRollback: primitive.TransactionCommitType, MsgID: rh.MsgID}
		require.NoError(t, tb.client.InvokeAsync(context.Background(), tb.addr,
			remoting.NewRequest(protocol.EndTransaction, protocol.EncodeHeader(&h), nil),
			func(resp *remoting.RemotingCommand, err error) {
				require.NoError(t, err)
				out <- resp
			}))
		return out
	}
	p.armed.Store(true)
	stuck := end(rh1, off1)
	<-p.entered
	old := end(rh2, off2)
	require.Eventually(t, func() bool { return tb.b.fastFailurePools.endTransaction[0].QueueLen() == 1 }, 5*time.Second, time.Millisecond)
	ff := tb.b.BrokerFastFailure()
	clk.Advance(2999 * time.Millisecond)
	require.Zero(t, ff.CleanExpiredRequest(), "younger than 3 s")
	clk.Advance(time.Millisecond)
	require.Equal(t, 1, ff.CleanExpiredRequest())
	r := <-old
	require.Equal(t, remoting.SystemBusy, r.Code)
	require.Equal(t, "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: 3000ms, size of queue: 0", r.Remark)
	p.unblock()
	require.Equal(t, int32(protocol.Success), (<-stuck).Code)
	tb.waitDispatched(t, "TxTopic", 1, 1)
	require.Len(t, tb.readQueue(t, "TxTopic", 1), 1, "only the first was committed")
}
