package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

var instanceSeq atomic.Int64

// exercise is the chapter's setup for one test: two brokers with TopicTest (4 queues each), and
// a producer on a hand-moved clock with the network model as a hook, its own client instance.
type exercise struct {
	cluster *embedded.Cluster
	clk     *clock.Manual
	netw    *networkModel
	rec     *trace.Recorder
	p       *producer.DefaultMQProducer
}

func startExercise(t *testing.T, faultTolerance bool) *exercise {
	t.Helper()
	c, err := startCluster(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	e := &exercise{cluster: c, clk: clock.NewManual(epoch), rec: trace.NewRecorder()}
	e.netw = &networkModel{clk: e.clk, cost: map[string]time.Duration{}}
	cfg := producerConfig(c.NamesrvAddr(), slog.New(e.rec), e.clk)
	cfg.InstanceName = fmt.Sprintf("%s-%d", t.Name(), instanceSeq.Add(1))
	cfg.SendLatencyFaultEnable = faultTolerance
	e.p = producer.NewDefaultMQProducer(cfg)
	e.p.RegisterSendMessageHook(e.netw)
	require.NoError(t, e.p.Start())
	t.Cleanup(e.p.Shutdown)
	return e
}

func (e *exercise) send(t *testing.T, n int) *producer.SendResult {
	t.Helper()
	e.netw.reset()
	res, err := e.p.Send(context.Background(), message(n))
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, res.SendStatus)
	return res
}

// tried returns the brokers the last send attempted, in order.
func (e *exercise) tried() []string {
	e.netw.mu.Lock()
	defer e.netw.mu.Unlock()
	return append([]string(nil), e.netw.tries...)
}

// TestExercise1_RoundRobinSpreadsSendsEvenly asks: with the latency fault tolerance off (the
// default), where do 16 sends to a topic with 4 queues on each of two brokers go? It proves
// that TopicPublishInfo#selectOneMessageQueue walks the 8 queues in route order (broker-a 0..3,
// then broker-b 0..3), so each queue gets exactly 2 messages, at queue offsets 0 and 1.
func TestExercise1_RoundRobinSpreadsSendsEvenly(t *testing.T) {
	e := startExercise(t, false)
	perQueue := map[primitive.MessageQueue][]int64{}
	var order []string
	for n := range 16 {
		res := e.send(t, n)
		perQueue[res.MessageQueue] = append(perQueue[res.MessageQueue], res.QueueOffset)
		order = append(order, fmt.Sprintf("%s/%d", res.MessageQueue.BrokerName, res.MessageQueue.QueueID))
	}
	require.Len(t, perQueue, 8)
	for mq, offsets := range perQueue {
		require.Equal(t, []int64{0, 1}, offsets, "queue %s", mq)
	}
	require.Equal(t, []string{"broker-a/0", "broker-a/1", "broker-a/2", "broker-a/3",
		"broker-b/0", "broker-b/1", "broker-b/2", "broker-b/3"}, order[:8])
	require.Equal(t, order[:8], order[8:])
}

// TestExercise2_FailedBrokerIsNotChosenAgainWithinItsDuration asks: with the fault tolerance on,
// after a send to a stopped broker failed, when does the producer try that broker again? It
// proves that a failure isolates the broker for notAvailableDuration of a 30000-ms latency
// (600000 ms): 24 sends within 599999 ms never attempt broker-a, while within 8 sends after the
// 600000 ms one does.
func TestExercise2_FailedBrokerIsNotChosenAgainWithinItsDuration(t *testing.T) {
	e := startExercise(t, true)
	e.send(t, 0) // broker-a/0: the producer has the route
	e.cluster.Brokers[0].Shutdown()
	res := e.send(t, 1)
	require.Equal(t, []string{"broker-a/1 failed", "broker-b/0 ok"}, e.tried(), "the send fails over")
	require.Equal(t, "broker-b", res.MessageQueue.BrokerName)
	item := e.p.FaultStrategy().LatencyFaultTolerance().FaultItems()[0]
	require.Equal(t, "broker-a", item.Name())
	require.Equal(t, e.clk.Now().UnixMilli()+600000, item.StartTimestamp())

	for n := 2; n <= 25; n++ {
		if n == 12 {
			e.clk.Advance(599999 * time.Millisecond)
		}
		e.send(t, n)
		require.NotContains(t, fmt.Sprint(e.tried()), "broker-a", "send %d tried broker-a within its 600000 ms", n)
	}
	e.clk.Advance(time.Millisecond)
	triedA := false
	for n := 26; n < 34 && !triedA; n++ {
		e.send(t, n)
		triedA = triedBroker(e.tried(), "broker-a")
	}
	require.True(t, triedA, "after 600000 ms broker-a is tried again")
}

// TestExercise3_SlowSendMarksTheBrokerForTheTablesDuration asks: a send succeeded but took L ms;
// for how long does the producer avoid that broker? It proves MQFaultStrategy's tables: the
// broker's fault item keeps L as currentLatency and becomes available exactly
// notAvailableDuration(L) ms later — 0 below 550 ms, 30 s from 550, 60 s from 1000, 120 s from
// 2000, 180 s from 3000, 600 s from 15000.
func TestExercise3_SlowSendMarksTheBrokerForTheTablesDuration(t *testing.T) {
	e := startExercise(t, true)
	lft := e.p.FaultStrategy().LatencyFaultTolerance()
	for _, tc := range []struct {
		latency, pause int64
	}{
		{40, 0}, {100, 0}, {549, 0}, {550, 30000}, {999, 30000}, {1000, 60000},
		{2000, 120000}, {3000, 180000}, {14999, 180000}, {15000, 600000},
	} {
		e.clk.Advance(700 * time.Second) // every earlier mark has expired
		for _, b := range []string{"broker-a", "broker-b"} {
			e.netw.setCost(b, time.Duration(tc.latency)*time.Millisecond)
		}
		res := e.send(t, int(tc.latency))
		broker := res.MessageQueue.BrokerName
		var item *producer.FaultItem
		for _, it := range lft.FaultItems() {
			if it.Name() == broker {
				item = it
			}
		}
		require.NotNil(t, item)
		require.Equal(t, tc.latency, item.CurrentLatency(), "latency %d", tc.latency)
		require.Equal(t, tc.pause, item.StartTimestamp()-e.clk.Now().UnixMilli(), "latency %d", tc.latency)
		if tc.pause > 0 {
			require.False(t, lft.IsAvailable(broker))
			e.clk.Advance(time.Duration(tc.pause-1) * time.Millisecond)
			require.False(t, lft.IsAvailable(broker), "latency %d: still marked 1 ms before the end", tc.latency)
			e.clk.Advance(time.Millisecond)
		}
		require.True(t, lft.IsAvailable(broker), "latency %d: available at the end of the pause", tc.latency)
	}
}

// TestExercise4_ANewTopicGoesThroughTBW102 asks: what happens on the first send to a topic that
// no broker has? It proves DefaultMQProducerImpl#tryToFindTopicPublishInfo's fallback: the name
// server answers TOPIC_NOT_EXIST (17), the producer takes TBW102's route cut to
// defaultTopicQueueNums (4 of 8 queues on each broker), the send succeeds, and the broker that
// got it has created the topic with 4 queues, which the name server then routes.
func TestExercise4_ANewTopicGoesThroughTBW102(t *testing.T) {
	e := startExercise(t, false)
	const topic = "Ex4NewTopic"
	msg := &primitive.Message{Topic: topic, Body: []byte("first")}
	res, err := e.p.Send(context.Background(), msg)
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, res.SendStatus)

	var routeSteps []string
	for _, s := range e.rec.Steps() {
		switch s.Label {
		case "MQClientAPIImpl#getTopicRouteInfoFromNameServer":
			routeSteps = append(routeSteps, s.Attrs["topic"]+" code="+s.Attrs["code"])
		case "MQClientInstance#updateTopicRouteInfoFromNameServer":
			routeSteps = append(routeSteps, "update "+s.Attrs["topic"]+" isDefault="+s.Attrs["isDefault"])
		}
	}
	require.Equal(t, []string{"update Ex4NewTopic isDefault=false", "Ex4NewTopic code=17",
		"update Ex4NewTopic isDefault=true", "TBW102 code=0"}, routeSteps)
	info := e.p.TopicPublishInfo(topic)
	require.Len(t, info.MessageQueueList, 8, "4 of TBW102's 8 queues on each broker")

	inst := e.p.MQClientInstance()
	require.Eventually(t, func() bool {
		inst.UpdateTopicRouteInfoFromNameServer(topic)
		r := inst.TopicRouteData(topic)
		return r != nil && len(r.QueueDatas) == 1 &&
			e.p.TopicPublishInfo(topic).TopicRouteData.QueueDatas[0].ReadQueueNums == 4 &&
			len(e.p.TopicPublishInfo(topic).MessageQueueList) == 4
	}, 10*time.Second, 10*time.Millisecond)
	r := inst.TopicRouteData(topic)
	require.Equal(t, res.MessageQueue.BrokerName, r.QueueDatas[0].BrokerName)
	require.Equal(t, int32(4), r.QueueDatas[0].WriteQueueNums)
	require.Equal(t, protocol.PermRead|protocol.PermWrite, r.QueueDatas[0].Perm, "TBW102's perm 7 without INHERIT")
}

// TestExercise5_TheAsyncCallbackRunsExactlyOncePerSend asks: how many times does SendAsync call
// its callback — for a stored message, and for one whose broker never answers? It proves
// exactly once in both cases: 64 concurrent sends give 64 results, one per message; a send to a
// silent broker gives one timeout error, and nothing more by the time Shutdown has waited for
// every pending send.
func TestExercise5_TheAsyncCallbackRunsExactlyOncePerSend(t *testing.T) {
	e := startExercise(t, false)
	const n = 64
	var calls [n]atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		require.NoError(t, e.p.SendAsync(context.Background(), message(i), func(res *producer.SendResult, err error) {
			defer wg.Done()
			if err == nil && res.SendStatus == producer.SendOK {
				calls[i].Add(1)
			} else {
				calls[i].Add(100)
			}
		}))
	}
	wg.Wait()
	e.p.Shutdown()
	for i := range n {
		require.Equal(t, int32(1), calls[i].Load(), "message %d", i)
	}

	// A name server that routes the topic to a broker that reads requests and never answers.
	silent := startSilentCluster(t)
	cfg := producer.DefaultConfig("ex5_silent")
	cfg.NamesrvAddr = silent.namesrv
	cfg.InstanceName = fmt.Sprintf("%s-silent-%d", t.Name(), instanceSeq.Add(1))
	cfg.Options.DisableScheduledTasks = true
	cfg.SendMsgTimeout = 300 * time.Millisecond
	p := producer.NewDefaultMQProducer(cfg)
	require.NoError(t, p.Start())
	var timeouts, others atomic.Int32
	require.NoError(t, p.SendAsync(context.Background(), message(0), func(_ *producer.SendResult, err error) {
		if client.ErrorKind(err) == "timeout" {
			timeouts.Add(1)
		} else {
			others.Add(1)
		}
	}))
	p.Shutdown() // waits for the callback
	require.Equal(t, int32(1), timeouts.Load())
	require.Equal(t, int32(0), others.Load())
	require.Positive(t, silent.requests.Load(), "the request reached the silent broker")
}

type silentCluster struct {
	namesrv  string
	requests atomic.Int32
}

func startSilentCluster(t *testing.T) *silentCluster {
	t.Helper()
	sc := &silentCluster{}
	brokerSrv := remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterDefaultProcessor(remoting.ProcessorFunc(func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			if req.Code == protocol.SendMessageV2 {
				sc.requests.Add(1)
				return nil, nil // never answered
			}
			return remoting.NewResponse(remoting.Success, ""), nil
		}), 1)
	})
	route := &protocol.TopicRouteData{
		QueueDatas:  []*protocol.QueueData{{BrokerName: "silent", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6}},
		BrokerDatas: []*protocol.BrokerData{{Cluster: "c", BrokerName: "silent", BrokerAddrs: map[int64]string{0: brokerSrv.Addr().String()}}},
	}
	sc.namesrv = remotingtest.StartRouteServer(t, route)
	return sc
}

// TestExercise6_PickOneAtLeastTakesTheLeastBadBroker asks: when every broker is marked, which
// one does the producer use? It proves FaultItem#compareTo's order — available first, then lower
// currentLatency, then earlier startTimestamp — and that pickOneAtLeast takes the best of the
// sorted items when there are fewer than four, and alternates over the better half otherwise.
func TestExercise6_PickOneAtLeastTakesTheLeastBadBroker(t *testing.T) {
	clk := clock.NewManual(epoch)
	s := producer.NewMQFaultStrategy(nil, nil, clk, -1, nil)
	s.SetSendLatencyFaultEnable(true)
	lft := s.LatencyFaultTolerance()
	s.UpdateFaultItem("broker-a", 3000, true)  // failed: 600 s
	s.UpdateFaultItem("broker-b", 1000, false) // slow: 60 s
	s.UpdateFaultItem("broker-c", 550, false)  // slow: 30 s
	require.Equal(t, "broker-c", lft.PickOneAtLeast(), "3 items: the best one, the lowest latency")
	require.Equal(t, "broker-c", lft.PickOneAtLeast())

	s.UpdateFaultItem("broker-d", 2000, false) // 120 s
	picks := map[string]int{}
	for range 10 {
		picks[lft.PickOneAtLeast()]++
	}
	require.Equal(t, map[string]int{"broker-c": 5, "broker-b": 5}, picks, "4 items: alternate over the better two")

	clk.Advance(31 * time.Second) // broker-c is available again, whatever its latency
	items := lft.FaultItems()
	require.Equal(t, -1, items[2].CompareTo(items[1]), "available broker-c sorts before unavailable broker-b")
	s.UpdateFaultItem("broker-b", 10, false) // b answers fast now: pause 0, available
	require.Equal(t, -1, items[1].CompareTo(items[2]), "both available: lower latency first")
}

// TestExercise7_WithoutFaultToleranceOnlyTheRetryAvoidsTheBroker asks: with the fault tolerance
// off, does the producer remember that broker-a failed? It proves it does not: a send's retry
// skips the broker of the failed attempt (selectOneMessageQueue(lastBrokerName)), but the next
// send whose round-robin turn is broker-a's tries broker-a again and fails over again.
func TestExercise7_WithoutFaultToleranceOnlyTheRetryAvoidsTheBroker(t *testing.T) {
	e := startExercise(t, false)
	e.send(t, 0) // broker-a/0: the producer has the route
	e.cluster.Brokers[0].Shutdown()
	res := e.send(t, 1)
	require.Equal(t, []string{"broker-a/1 failed", "broker-b/0 ok"}, e.tried(),
		"the retry takes the next queue that is not on broker-a")
	require.Equal(t, "broker-b", res.MessageQueue.BrokerName)
	require.Empty(t, e.p.FaultStrategy().LatencyFaultTolerance().FaultItems(), "no fault item is kept")
	again := false
	for n := 2; n < 10 && !again; n++ {
		e.send(t, n)
		if triedBroker(e.tried(), "broker-a") {
			again = true
			require.Len(t, e.tried(), 2, "it fails on broker-a and is retried on broker-b")
			require.Contains(t, e.tried()[1], "broker-b")
		}
	}
	require.True(t, again, "a later send tries broker-a again")
}

func triedBroker(tries []string, broker string) bool {
	for _, tr := range tries {
		if len(tr) >= len(broker) && tr[:len(broker)] == broker {
			return true
		}
	}
	return false
}
