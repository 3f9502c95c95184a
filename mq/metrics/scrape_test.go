package metrics_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

var (
	scrape = mqtest.Scrape
	sum    = mqtest.MetricSum
	value  = mqtest.MetricValue
)

// TestScrapeRunningBroker serves an embedded cluster's broker and name server on one /metrics
// endpoint, sends N messages with the project's producer and consumes them with its push
// consumer, and checks the figures move as the messages flow: the topic's put total grows by
// exactly N (and its bytes by at least N record headers), PUT_OK and response code 0 are
// counted, the put latency histogram holds N observations, the CommitLog's max offset and the
// topic's ConsumeQueue depth grow, the name server counts one live broker and the routes it
// served; after consumption the get total is N, a pull is held by long polling, and once the
// consumer commits its offsets (on shutdown) the group's diff is 0.
func TestScrapeRunningBroker(t *testing.T) {
	const n = 20
	const topic, group = "MetricsTopic", "MetricsGroup"
	c := mqtest.StartCluster(t, embedded.Config{})
	b := c.Brokers[0]
	bn := b.BrokerConfig().BrokerName
	exp, err := metrics.Serve(metrics.ExporterConfig{MetricsExporterType: metrics.ExporterProm,
		MetricsPromExporterHost: "127.0.0.1"}, nil, b.Metrics(), c.Namesrv.Metrics())
	require.NoError(t, err)
	t.Cleanup(exp.Shutdown)
	url := exp.URL()
	require.Regexp(t, `^http://127\.0\.0\.1:[0-9]+/metrics$`, url)

	before := scrape(t, url)
	_, seen := sum(before, "rocketmq_put_messages_total", map[string]string{"topic": topic})
	require.False(t, seen, "nothing put to the topic yet")
	require.Equal(t, 1.0, value(t, before, "rocketmq_namesrv_brokers_alive", nil))
	maxBefore := value(t, before, "rocketmq_commitlog_max_offset_bytes", map[string]string{"broker": bn})
	okBefore := value(t, before, "rocketmq_put_status_total", map[string]string{"status": "PUT_OK"})

	p := producer.NewDefaultMQProducer(mqtest.ProducerConfig("MetricsPG", c.NamesrvAddr(), "metrics-p"))
	require.NoError(t, p.Start())
	defer p.Shutdown()
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := p.Send(ctx, &primitive.Message{Topic: topic, Body: []byte("metrics body " + strconv.Itoa(i))})
		cancel()
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, r.SendStatus)
	}

	after := scrape(t, url)
	labels := map[string]string{"topic": topic, "broker": bn, "cluster": b.BrokerConfig().BrokerClusterName}
	require.Equal(t, float64(n), value(t, after, "rocketmq_put_messages_total", labels))
	require.GreaterOrEqual(t, value(t, after, "rocketmq_put_bytes_total", labels), float64(n*(len("metrics body 0")+61)))
	require.Equal(t, okBefore+n, value(t, after, "rocketmq_put_status_total", map[string]string{"status": "PUT_OK"}))
	require.GreaterOrEqual(t, value(t, after, "rocketmq_put_latency_seconds_count", nil), float64(n))
	require.Positive(t, value(t, after, "rocketmq_responses_total", map[string]string{"code": "0"}))
	require.Greater(t, value(t, after, "rocketmq_commitlog_max_offset_bytes", nil), maxBefore)
	require.Eventually(t, func() bool { // the reput dispatches behind the put
		v, _ := sum(scrape(t, url), "rocketmq_consumequeue_depth", map[string]string{"topic": topic})
		return v == n
	}, 10*time.Second, 10*time.Millisecond)
	require.Positive(t, value(t, after, "rocketmq_namesrv_routes_served_total", map[string]string{"result": "found"}))
	require.Positive(t, value(t, after, "rocketmq_connections", map[string]string{"server": "main"}))

	cfg := consumer.DefaultConfig(group)
	cfg.NamesrvAddr = c.NamesrvAddr()
	cfg.ClientIP = "127.0.0.1"
	cfg.InstanceName = "metrics-c"
	cfg.ConsumeFromWhere = protocol.ConsumeFromFirstOffset
	cons := consumer.NewDefaultMQPushConsumer(cfg)
	require.NoError(t, cons.Subscribe(topic, "*"))
	var got atomic.Int64
	cons.RegisterMessageListener(func(msgs []*primitive.MessageExt, _ *consumer.ConsumeConcurrentlyContext) consumer.ConsumeConcurrentlyStatus {
		got.Add(int64(len(msgs)))
		return consumer.ConsumeSuccess
	})
	require.NoError(t, cons.Start())
	stopped := false
	defer func() {
		if !stopped {
			cons.Shutdown()
		}
	}()
	require.Eventually(t, func() bool { return got.Load() >= n }, 30*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		v, _ := sum(scrape(t, url), "rocketmq_pull_requests_held", nil)
		return v >= 1
	}, 10*time.Second, 10*time.Millisecond, "a caught-up consumer's pull is held")
	consumed := scrape(t, url)
	if testing.Verbose() {
		t.Log(consumed)
	}
	require.Equal(t, float64(n), value(t, consumed, "rocketmq_get_messages_total", labels))
	require.Positive(t, value(t, consumed, "rocketmq_get_bytes_total", labels))
	require.Positive(t, value(t, consumed, "rocketmq_pull_latency_seconds_count", nil))

	cons.Shutdown() // commits the consumed offsets
	stopped = true
	require.Eventually(t, func() bool {
		text := scrape(t, url)
		for q := range 4 { // the producer's defaultTopicQueueNums
			diff, ok := sum(text, "rocketmq_group_diff", map[string]string{"group": group, "topic": topic, "queueId": strconv.Itoa(q)})
			if !ok || diff != 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "the group has consumed everything, on every queue")
}

// TestScrapeSlaveLag: a master reports each connected slave's replication lag by the slave's
// address; after puts the slave catches up and its lag is 0; a slave reports no slave lag of its
// own; once the slave stops, the master's series for it is gone.
func TestScrapeSlaveLag(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{Slaves: true})
	master, slave := c.Brokers[0], c.Slaves[0]
	require.Eventually(t, func() bool { return master.HAService().ConnectionCount() == 1 }, 10*time.Second, 10*time.Millisecond)
	exp, err := metrics.Serve(metrics.ExporterConfig{MetricsExporterType: metrics.ExporterProm,
		MetricsPromExporterHost: "127.0.0.1"}, nil, master.Metrics())
	require.NoError(t, err)
	t.Cleanup(exp.Shutdown)
	slaveAddr := master.HAService().Connections()[0].ClientAddr()
	lag := map[string]string{"slave": slaveAddr}

	for i := range 10 {
		m := &primitive.MessageExtBrokerInner{}
		m.Topic, m.Body = "LagTopic", []byte("lag "+strconv.Itoa(i))
		m.BornHost, m.StoreHost = "127.0.0.1:50000", master.BrokerAddr()
		m.BornHostBytes, m.StoreHostBytes = []byte{127, 0, 0, 1, 0, 0, 0xc3, 0x50}, []byte{127, 0, 0, 1, 0, 0, 0x2a, 0x9f}
		require.Equal(t, "PUT_OK", master.MessageStore().PutMessage(m).PutMessageStatus.String())
	}
	require.Eventually(t, func() bool {
		text := scrape(t, exp.URL())
		v, ok := sum(text, "rocketmq_slave_behind_bytes", lag)
		return ok && v == 0 && value(t, text, "rocketmq_commitlog_max_offset_bytes", nil) > 0
	}, 10*time.Second, 10*time.Millisecond, "the slave caught up")

	slaveMetrics := prometheus.NewRegistry()
	require.NoError(t, slaveMetrics.Register(slave.Metrics()))
	n, err := testutil.GatherAndCount(slaveMetrics, "rocketmq_slave_behind_bytes")
	require.NoError(t, err)
	require.Zero(t, n, "a slave has no slaves")

	c.StopSlave(0)
	require.Eventually(t, func() bool {
		_, ok := sum(scrape(t, exp.URL()), "rocketmq_slave_behind_bytes", lag)
		return !ok
	}, 10*time.Second, 10*time.Millisecond, "the stopped slave's series is gone")
}
