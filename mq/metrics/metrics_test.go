package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// TestExporterConfigValidate: the defaults are RocketMQ 5's (DISABLE, every interface, 5557) and
// valid; each bad value is refused with a message naming its key.
func TestExporterConfigValidate(t *testing.T) {
	c := DefaultExporterConfig()
	require.NoError(t, c.Validate("broker"))
	require.False(t, c.Enabled())
	require.Equal(t, ":5557", c.ListenAddr())
	for _, tc := range []struct {
		cfg  ExporterConfig
		want string
	}{
		{ExporterConfig{MetricsExporterType: "PROMETHEUS"}, `broker config: metricsExporterType must be DISABLE or PROM, got "PROMETHEUS"`},
		{ExporterConfig{MetricsExporterType: "OTLP_GRPC"}, "broker config: metricsExporterType=OTLP_GRPC is not built (DISABLE or PROM)"},
		{ExporterConfig{MetricsExporterType: "PROM", MetricsPromExporterHost: "localhost"}, `broker config: metricsPromExporterHost "localhost" is not an IP address`},
		{ExporterConfig{MetricsExporterType: "PROM", MetricsPromExporterPort: 70000}, "broker config: metricsPromExporterPort must be in [0, 65535], got 70000"},
	} {
		require.EqualError(t, tc.cfg.Validate("broker"), tc.want)
	}
	ok := ExporterConfig{MetricsExporterType: "PROM", MetricsPromExporterHost: "127.0.0.1", MetricsPromExporterPort: 0}
	require.NoError(t, ok.Validate("namesrv"))
	require.True(t, ok.Enabled())
}

// fakeState is a BrokerState with fixed figures.
type fakeState struct{ s BrokerSnapshot }

func (f fakeState) MetricsSnapshot() BrokerSnapshot { return f.s }

// TestBrokerCollector: the counters and the state gauges come out under their names and
// labels; group diff is max offset - committed offset (never negative); a response code
// outside the counted range is "other"; a put that stored nothing counts its status only; the
// store's -1 for "no CommitLog file yet" is a min offset of 0.
func TestBrokerCollector(t *testing.T) {
	st := fakeState{BrokerSnapshot{CommitLogMaxOffset: 4096, CommitLogMinOffset: -1, DispatchBehindBytes: 100, PageCacheBusy: true,
		Connections: map[string]int{"main": 3}, HeldPullRequests: 2, SendQueueLength: 7,
		Queues: []QueueState{{Topic: "T", QueueID: 1, MinOffset: 2, MaxOffset: 10}},
		Groups: []GroupQueueState{{Group: "g", Topic: "T", QueueID: 1, ConsumerOffset: 4, BrokerOffset: 10},
			{Group: "h", Topic: "T", QueueID: 1, ConsumerOffset: 12, BrokerOffset: 10}},
		Slaves: []SlaveState{{Addr: "127.0.0.1:5000", BehindBytes: 512}}}}
	m := NewBrokerMetrics("DefaultCluster", "broker-a", []string{"PUT_OK", "FLUSH_DISK_TIMEOUT"}, st)
	m.RecordPut("T", 0, true, 3, 300, time.Millisecond)
	m.RecordPut("T", 1, false, 0, 0, time.Second)
	m.RecordGet("T", 2, 200)
	m.ObserveResponse(0)
	m.ObserveResponse(-1)
	m.AddFastFailure(4)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))
	want := `
# HELP rocketmq_put_messages_total Messages stored, by topic (a batch counts each message).
# TYPE rocketmq_put_messages_total counter
rocketmq_put_messages_total{broker="broker-a",cluster="DefaultCluster",topic="T"} 3
# HELP rocketmq_get_bytes_total Bytes of the records handed out by pulls, by topic.
# TYPE rocketmq_get_bytes_total counter
rocketmq_get_bytes_total{broker="broker-a",cluster="DefaultCluster",topic="T"} 200
# HELP rocketmq_put_status_total Store results of sends, by PutMessageStatus.
# TYPE rocketmq_put_status_total counter
rocketmq_put_status_total{broker="broker-a",cluster="DefaultCluster",status="FLUSH_DISK_TIMEOUT"} 1
rocketmq_put_status_total{broker="broker-a",cluster="DefaultCluster",status="PUT_OK"} 1
# HELP rocketmq_responses_total Responses written, by response code.
# TYPE rocketmq_responses_total counter
rocketmq_responses_total{broker="broker-a",cluster="DefaultCluster",code="0"} 1
rocketmq_responses_total{broker="broker-a",cluster="DefaultCluster",code="other"} 1
# HELP rocketmq_fast_failure_total Queued requests the fast-failure sweep answered SYSTEM_BUSY.
# TYPE rocketmq_fast_failure_total counter
rocketmq_fast_failure_total{broker="broker-a",cluster="DefaultCluster"} 4
# HELP rocketmq_commitlog_min_offset_bytes The CommitLog's min offset (its oldest file's start; 0 while it has none), in bytes.
# TYPE rocketmq_commitlog_min_offset_bytes gauge
rocketmq_commitlog_min_offset_bytes{broker="broker-a",cluster="DefaultCluster"} 0
# HELP rocketmq_pagecache_busy 1 while a put holds the put lock longer than osPageCacheBusyTimeOutMills, else 0.
# TYPE rocketmq_pagecache_busy gauge
rocketmq_pagecache_busy{broker="broker-a",cluster="DefaultCluster"} 1
# HELP rocketmq_consumequeue_depth Messages a ConsumeQueue holds (max offset - min offset).
# TYPE rocketmq_consumequeue_depth gauge
rocketmq_consumequeue_depth{broker="broker-a",cluster="DefaultCluster",queueId="1",topic="T"} 8
# HELP rocketmq_group_diff Messages a consumer group has not consumed on a queue (max offset - committed offset).
# TYPE rocketmq_group_diff gauge
rocketmq_group_diff{broker="broker-a",cluster="DefaultCluster",group="g",queueId="1",topic="T"} 6
rocketmq_group_diff{broker="broker-a",cluster="DefaultCluster",group="h",queueId="1",topic="T"} 0
# HELP rocketmq_slave_behind_bytes CommitLog bytes a slave has not acknowledged (master only).
# TYPE rocketmq_slave_behind_bytes gauge
rocketmq_slave_behind_bytes{broker="broker-a",cluster="DefaultCluster",slave="127.0.0.1:5000"} 512
# HELP rocketmq_send_queue_length Send requests waiting in the send thread pools' queues.
# TYPE rocketmq_send_queue_length gauge
rocketmq_send_queue_length{broker="broker-a",cluster="DefaultCluster"} 7
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"rocketmq_put_messages_total", "rocketmq_get_bytes_total", "rocketmq_put_status_total", "rocketmq_responses_total",
		"rocketmq_fast_failure_total", "rocketmq_commitlog_min_offset_bytes", "rocketmq_pagecache_busy", "rocketmq_consumequeue_depth", "rocketmq_group_diff",
		"rocketmq_slave_behind_bytes", "rocketmq_send_queue_length"))
	n, err := testutil.GatherAndCount(reg, "rocketmq_put_latency_seconds")
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

// TestNamesrvCollector: brokers alive is read at collect time; routes are counted by result.
func TestNamesrvCollector(t *testing.T) {
	alive := 0
	m := NewNamesrvMetrics(func() int { return alive })
	m.RecordRoute(true)
	m.RecordRoute(true)
	m.RecordRoute(false)
	alive = 2
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP rocketmq_namesrv_brokers_alive Brokers registered with the name server and not expired.
# TYPE rocketmq_namesrv_brokers_alive gauge
rocketmq_namesrv_brokers_alive 2
# HELP rocketmq_namesrv_routes_served_total GET_ROUTEINFO_BY_TOPIC requests answered, by result (found: a route; topic_not_exist).
# TYPE rocketmq_namesrv_routes_served_total counter
rocketmq_namesrv_routes_served_total{result="found"} 2
rocketmq_namesrv_routes_served_total{result="topic_not_exist"} 1
`)))
}

// TestServeRefusesBusyPort: a port already bound is an error naming the keys, and nothing runs.
func TestServeRefusesBusyPort(t *testing.T) {
	e, err := Serve(ExporterConfig{MetricsExporterType: ExporterProm, MetricsPromExporterHost: "127.0.0.1"}, nil)
	require.NoError(t, err)
	defer e.Shutdown()
	_, err = Serve(ExporterConfig{MetricsExporterType: ExporterProm, MetricsPromExporterHost: "127.0.0.1",
		MetricsPromExporterPort: e.Addr().Port}, nil)
	require.ErrorContains(t, err, "metricsPromExporterHost:metricsPromExporterPort")
	var nilExp *Exporter
	nilExp.Shutdown() // safe: what a binary calls when metrics are off
}
