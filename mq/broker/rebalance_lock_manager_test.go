package broker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

func lockMQs(n int) []primitive.MessageQueue {
	out := make([]primitive.MessageQueue, n)
	for i := range out {
		out[i] = primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: int32(i)}
	}
	return out
}

// RebalanceLockManager: a queue is held by one client of a group; its owner renews it by
// locking again; another client gets it only after RebalanceLockMaxLiveTime (60 s) without
// renewal, or after the owner unlocks it. Java: RebalanceLockManager#tryLockBatch, #unlockBatch.
func TestRebalanceLockManager(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	m := NewRebalanceLockManager(clk, nil)
	mqs := lockMQs(3)

	require.Equal(t, mqs[:2], m.TryLockBatch("g", mqs[:2], "c1"))
	require.Equal(t, []primitive.MessageQueue{mqs[2]}, m.TryLockBatch("g", mqs, "c2"), "c2 gets only the free queue")
	require.Equal(t, mqs[:2], m.TryLockBatch("other", mqs[:2], "c2"), "groups lock independently")

	clk.Advance(40 * time.Second)
	require.Equal(t, mqs[:2], m.TryLockBatch("g", mqs[:2], "c1"), "renewal")
	clk.Advance(40 * time.Second) // 80 s after the first lock, 40 s after the renewal
	require.Empty(t, m.TryLockBatch("g", mqs[:2], "c2"))
	require.Equal(t, "c1", m.Owner("g", mqs[0]))

	clk.Advance(20*time.Second + time.Millisecond) // 60 s + 1 ms after the renewal: expired
	require.Equal(t, "", m.Owner("g", mqs[0]))
	require.Equal(t, mqs[:1], m.TryLockBatch("g", mqs[:1], "c2"))

	m.UnlockBatch("g", mqs[1:2], "c2") // not c2's: no effect
	m.UnlockBatch("g", mqs[:1], "c1")  // not c1's any more: no effect
	require.Equal(t, "c2", m.Owner("g", mqs[0]))
	m.UnlockBatch("g", mqs[:1], "c2")
	require.Equal(t, mqs[:1], m.TryLockBatch("g", mqs[:1], "c3"), "free after unlock")
}

// LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) carry RocketMQ's JSON bodies, as the official
// client writes them; a body that does not decode is SYSTEM_ERROR, not a panic.
func TestLockBatchMQ(t *testing.T) {
	tb := startTestBroker(t, nil)
	lock := func(raw string) *remoting.RemotingCommand {
		return tb.invoke(t, remoting.NewRequest(protocol.LockBatchMQ, nil, []byte(raw)))
	}
	body := func(client string) string {
		return `{"consumerGroup":"g","clientId":"` + client + `","mqSet":[{"topic":"T","brokerName":"broker-a","queueId":0},{"topic":"T","brokerName":"broker-a","queueId":1}]}`
	}
	resp := lock(body("c1"))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.JSONEq(t, `{"lockOKMQSet":[{"topic":"T","brokerName":"broker-a","queueId":0},{"topic":"T","brokerName":"broker-a","queueId":1}]}`, string(resp.Body))
	resp = lock(body("c2"))
	require.Equal(t, int32(protocol.Success), resp.Code)
	require.JSONEq(t, `{"lockOKMQSet":[]}`, string(resp.Body))

	resp = tb.invoke(t, remoting.NewRequest(protocol.UnlockBatchMQ, nil, []byte(body("c1"))))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	resp = lock(body("c2"))
	var got protocol.LockBatchResponseBody
	require.NoError(t, protocol.DecodeJSONBody(resp.Body, &got))
	require.Len(t, got.LockOKMQSet, 2)

	for _, code := range []int32{protocol.LockBatchMQ, protocol.UnlockBatchMQ} {
		resp = tb.invoke(t, remoting.NewRequest(code, nil, []byte(`{"mqSet":[{"queueId":"x"`)))
		require.Equal(t, int32(protocol.SystemError), resp.Code)
	}

	// A body that decodes but names no group or no client is refused too: a lock held by
	// client "" would keep the group's real members off the queue for 60 s.
	q9 := `[{"topic":"T","brokerName":"broker-a","queueId":9}]`
	for _, raw := range []string{
		`{"consumerGroup":"g","clientId":"","mqSet":` + q9 + `}`,
		`{"consumerGroup":"","clientId":"c1","mqSet":` + q9 + `}`,
		`{"mqSet":` + q9 + `}`,
		`null`,
	} {
		for _, code := range []int32{protocol.LockBatchMQ, protocol.UnlockBatchMQ} {
			resp = tb.invoke(t, remoting.NewRequest(code, nil, []byte(raw)))
			require.Equal(t, int32(protocol.SystemError), resp.Code, raw)
			require.Contains(t, resp.Remark, "consumerGroup and clientId", raw)
		}
	}
	q := primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 9}
	require.Empty(t, tb.b.rebalanceLockManager.Owner("g", q))
	require.Empty(t, tb.b.rebalanceLockManager.Owner("", q))
}

// LockedQueues lists a group's unexpired locks with their owners (what the console shows as
// "orderly"); a group that locked nothing has none.
func TestRebalanceLockManagerLockedQueues(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	m := NewRebalanceLockManager(clk, nil)
	mqs := lockMQs(2)
	m.TryLockBatch("g", mqs[:1], "c1")
	clk.Advance(30 * time.Second)
	m.TryLockBatch("g", mqs[1:], "c2")
	require.Equal(t, map[primitive.MessageQueue]string{mqs[0]: "c1", mqs[1]: "c2"}, m.LockedQueues("g"))
	require.Empty(t, m.LockedQueues("other"))
	clk.Advance(31 * time.Second) // c1's lock is 61 s old
	require.Equal(t, map[primitive.MessageQueue]string{mqs[1]: "c2"}, m.LockedQueues("g"))
}
