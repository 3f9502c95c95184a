package mqtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// CreateTopic, WaitRouted and QueryRoute against a real cluster; a topic no broker has is a
// remote TOPIC_NOT_EXIST. Senders' acknowledged sends are in the store where their answers said.
func TestRemoteAndSenders(t *testing.T) {
	c := StartCluster(t, embedded.Config{})
	require.Equal(t, 64<<10, c.Brokers[0].MessageStore().Config().MappedFileSizeCommitLog, "small files")
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	b := c.Brokers[0]
	require.NoError(t, CreateTopic(cl, b.BrokerAddr(), "KitTopic", 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, WaitRouted(cl, c.NamesrvAddr(), "KitTopic", 1))
	route, err := QueryRoute(cl, c.NamesrvAddr(), "KitTopic")
	require.NoError(t, err)
	require.Equal(t, int32(4), route.QueueDatas[0].WriteQueueNums)
	_, err = QueryRoute(cl, c.NamesrvAddr(), "NoSuchTopic")
	var re *remoting.RemoteError
	require.ErrorAs(t, err, &re)
	require.EqualValues(t, protocol.TopicNotExist, re.Code)

	s := StartSenders(SendLoad{Addr: b.BrokerAddr(), Topic: "KitTopic", Goroutines: 2,
		Key: func(g, i int) string { return fmt.Sprintf("G%d-%d", g, i) }})
	require.NoError(t, WaitUntil(30*time.Second, func() bool { return s.Acked() >= 20 }))
	acked := s.Stop()
	require.GreaterOrEqual(t, len(acked), 20)
	ms := b.MessageStore()
	require.NoError(t, WaitUntil(10*time.Second, func() bool { return ms.GetMaxOffsetInQueue("KitTopic", 0) > 0 }))
	for key, a := range acked {
		require.NoError(t, WaitUntil(10*time.Second, func() bool {
			return ms.GetMessage("g", "KitTopic", a.QueueID, a.QueueOffset, 1, nil).Status == store.Found
		}), key)
		g := ms.GetMessage("g", "KitTopic", a.QueueID, a.QueueOffset, 1, nil)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, key, m.Properties[primitive.PropertyKeys])
		require.Equal(t, int64(a.CommitLogOffset), m.CommitLogOffset)
	}
}

// Servers starts a name server, brokers registered with it and producers, and stops them all.
func TestServers(t *testing.T) {
	s, err := StartServers(t.TempDir())
	require.NoError(t, err)
	bc := embedded.BrokerConfig("broker-s", "")
	bc.NamesrvAddr = s.Namesrv.Addr()
	b, err := s.StartBroker(bc, embedded.SmallStoreConfig(t.TempDir()), nil)
	require.NoError(t, err)
	require.NoError(t, CreateTopic(s.Client, b.BrokerAddr(), "ServersTopic", 2, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, WaitRouted(s.Client, s.Namesrv.Addr(), "ServersTopic", 1))
	pc := producer.DefaultConfig("servers_producer")
	pc.NamesrvAddr = s.Namesrv.Addr()
	pc.InstanceName = t.Name()
	pc.Options.DisableScheduledTasks = true
	p, err := s.StartProducer(pc)
	require.NoError(t, err)
	r, err := p.Send(context.Background(), &primitive.Message{Topic: "ServersTopic", Body: []byte("x")})
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, r.SendStatus)
	s.Shutdown()
	_, err = QueryRoute(remoting.NewClient(remoting.ClientConfig{}, nil), s.Namesrv.Addr(), "ServersTopic")
	require.Error(t, err, "the name server is down")
}

// A stage's servers stop when the stage closes; MustStartServers' stop at the test's cleanup.
func TestStageAndTestServers(t *testing.T) {
	stage, err := NewStage(io.Discard, t.TempDir(), "servers-", true)
	require.NoError(t, err)
	s, err := stage.StartServers()
	require.NoError(t, err)
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	var re *remoting.RemoteError
	_, err = QueryRoute(cl, s.Namesrv.Addr(), "NoTopic")
	require.ErrorAs(t, err, &re, "the name server is up and answers")
	stage.Close()
	_, err = QueryRoute(cl, s.Namesrv.Addr(), "NoTopic")
	require.Error(t, err)
	require.False(t, errors.As(err, &re), "the name server is down: %v", err)

	var addr string
	t.Run("test", func(t *testing.T) {
		addr = MustStartServers(t, t.TempDir()).Namesrv.Addr()
		_, err := QueryRoute(cl, addr, "NoTopic")
		require.ErrorAs(t, err, &re)
	})
	_, err = QueryRoute(cl, addr, "NoTopic")
	require.False(t, errors.As(err, &re), "down after the subtest's cleanup: %v", err)
}
