package interop

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// TestOfficialProducerSyncMaster: the official client, unmodified, sends to a SYNC_MASTER with
// a live slave and gets SEND_OK, the message being on the slave when it returns; the route
// from the name server lists the slave (brokerAddrs id 1) under the same brokerName; with the
// slave stopped the same send gets SEND_SLAVE_NOT_AVAILABLE — RocketMQ's SLAVE_NOT_AVAILABLE
// (code 11), which the client maps to that status (it maps FLUSH_SLAVE_TIMEOUT, code 12, to
// SEND_FLUSH_SLAVE_TIMEOUT) and returns without error. Java: CommitLog#submitReplicaRequest,
// SendMessageProcessor#handlePutMessageResult.
func TestOfficialProducerSyncMaster(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{Slaves: true,
		Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) { sc.BrokerRole = store.SyncMaster }})
	master, slave := c.Brokers[0], c.Slaves[0]
	require.Eventually(t, func() bool { return master.HAService().ConnectionCount() == 1 }, 10*time.Second, 10*time.Millisecond)

	const topic = "HaInteropTopic"
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(admin.Shutdown)
	require.NoError(t, mqtest.CreateTopic(admin, master.BrokerAddr(), topic, 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, mqtest.WaitRouted(admin, c.NamesrvAddr(), topic, 1))
	route, err := mqtest.QueryRoute(admin, c.NamesrvAddr(), topic)
	require.NoError(t, err)
	require.Len(t, route.BrokerDatas, 1)
	require.Equal(t, map[int64]string{0: master.BrokerAddr(), 1: slave.BrokerAddr()}, route.BrokerDatas[0].BrokerAddrs)

	p := newProducer(t, c.NamesrvAddr(), "ha-interop-producer")
	res := sendSync(t, p, primitive.NewMessage(topic, []byte("replicated")))
	require.GreaterOrEqual(t, int64(slave.MessageStore().GetMaxPhyOffset()), int64(master.MessageStore().GetMaxPhyOffset()),
		"SEND_OK from a SYNC_MASTER: the slave holds the message")
	require.Eventually(t, func() bool {
		return slave.MessageStore().GetMaxOffsetInQueue(topic, int32(res.MessageQueue.QueueId)) == store.QueueOffset(res.QueueOffset+1)
	}, 5*time.Second, 10*time.Millisecond)

	c.StopSlave(0)
	require.Eventually(t, func() bool { return master.HAService().ConnectionCount() == 0 }, 10*time.Second, 10*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err = p.SendSync(ctx, primitive.NewMessage(topic, []byte("no slave")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendSlaveNotAvailable, res.Status)
}

// TestOfficialProducerFlushSlaveTimeout: with a slave that connected and reported but stopped
// reading, the official client's send to a SYNC_MASTER is answered after syncFlushTimeout (1 s
// here) with FLUSH_SLAVE_TIMEOUT (code 12), which the client returns as
// SEND_FLUSH_SLAVE_TIMEOUT without error. Java: GroupTransferService#doWaitTransfer.
func TestOfficialProducerFlushSlaveTimeout(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		sc.BrokerRole = store.SyncMaster
		sc.SyncFlushTimeout = time.Second
	}})
	master := c.Brokers[0]
	const topic = "HaTimeoutTopic"
	admin := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(admin.Shutdown)
	require.NoError(t, mqtest.CreateTopic(admin, master.BrokerAddr(), topic, 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, mqtest.WaitRouted(admin, c.NamesrvAddr(), topic, 1))

	// a slave that reports offset 0 once, then never reads nor reports again
	stuck, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(master.HAService().AcceptSocketService().Port())))
	require.NoError(t, err)
	t.Cleanup(func() { _ = stuck.Close() })
	_, err = stuck.Write(make([]byte, 8))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return master.HAService().ConnectionCount() == 1 }, 5*time.Second, 10*time.Millisecond)

	p := newProducer(t, c.NamesrvAddr(), "ha-timeout-producer")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := p.SendSync(ctx, primitive.NewMessage(topic, []byte("never on a slave")))
	require.NoError(t, err)
	require.Equal(t, primitive.SendFlushSlaveTimeout, res.Status)
	require.GreaterOrEqual(t, time.Since(start), time.Second)
}
