package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/consumer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
)

// requireConsistent checks what every summary must satisfy: ordered percentiles within the
// max, a positive TPS, and a mean between the extremes.
func requireConsistent(t *testing.T, s Summary) {
	t.Helper()
	l := s.Latency
	require.Positive(t, s.TPS)
	require.Positive(t, s.Elapsed)
	require.LessOrEqual(t, l.P50, l.P99)
	require.LessOrEqual(t, l.P99, l.P999)
	require.LessOrEqual(t, l.P999, l.Max)
	require.LessOrEqual(t, l.Mean, l.Max)
	require.InDelta(t, float64(s.Messages)/s.Elapsed.Seconds(), s.TPS, s.TPS*1e-9)
}

func producerOptions(t *testing.T, c *embedded.Cluster, topic string) ProducerOptions {
	return ProducerOptions{RunOptions: RunOptions{NamesrvAddr: c.NamesrvAddr(), Topic: topic, Group: "pg_" + clienttest.Name(t),
		InstanceName: clienttest.InstanceName(t, "p")}, MessageSize: 1024}
}

// Sync, async and batch runs with Count send exactly Count messages (a batch's last request
// takes the remainder), all acknowledged, with Requests matching the mode; then a consumer
// from the first offset receives every one of them. The per-second line is RocketMQ's.
func TestRunProducerAndConsumer(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	topic := "Bench_" + clienttest.Name(t)
	ctx := context.Background()
	cases := []struct {
		name     string
		async    bool
		batch    int
		threads  int
		count    int64
		requests int64
	}{
		{"sync", false, 1, 4, 300, 300},
		{"async", true, 1, 0, 500, 500},
		{"asyncBatch", true, 16, 0, 250, 16}, // 15 batches of 16, one of 10
		{"syncBatch", false, 8, 2, 50, 7},    // 6 of 8, one of 2
	}
	var sent int64
	for _, tc := range cases {
		var report bytes.Buffer
		o := producerOptions(t, c, topic)
		o.Group += tc.name
		o.Async, o.Batch, o.Threads, o.Count, o.Inflight, o.Keys = tc.async, tc.batch, tc.threads, tc.count, 64, true
		o.Report, o.ReportInterval = &report, 20*time.Millisecond
		s, err := RunProducer(ctx, o)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.count, s.Messages, tc.name)
		require.Equal(t, tc.requests, s.Requests, tc.name)
		require.Zero(t, s.SendFailed+s.ResponseFailed, tc.name)
		require.Equal(t, map[bool]string{false: ModeSync, true: ModeAsync}[tc.async], s.Mode)
		requireConsistent(t, s)
		if report.Len() > 0 { // the run may end before the first tick
			require.Regexp(t, `^Current Time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} Send TPS: \d+ Max RT\(ms\): [0-9.]+ Average RT\(ms\): +[0-9.]+ Send Failed: 0 Response Failed: 0\n`, report.String())
		}
		sent += s.Messages
	}

	var report bytes.Buffer
	s, err := RunConsumer(ctx, ConsumerOptions{RunOptions: RunOptions{NamesrvAddr: c.NamesrvAddr(), Topic: topic,
		Group: "cg_" + clienttest.Name(t), InstanceName: clienttest.InstanceName(t, "c"), Count: sent, Duration: 60 * time.Second,
		Report: &report, ReportInterval: 20 * time.Millisecond}, FromFirst: true})
	require.NoError(t, err)
	require.Equal(t, sent, s.Messages, "every message sent is consumed, and the summary counts exactly Count")
	require.Equal(t, ModeConsume, s.Mode)
	requireConsistent(t, s)
	require.NotNil(t, s.StoreToConsume)
	require.LessOrEqual(t, s.StoreToConsume.P50, s.StoreToConsume.P999)
	if report.Len() > 0 {
		require.Regexp(t, `^Current Time: \S+ \S+ Consume TPS: \d+ Average\(B2C\) RT\(ms\): +[0-9.]+ Max\(B2C\) RT\(ms\): [0-9.]+ Average\(S2C\) RT\(ms\): +[0-9.]+ Max\(S2C\) RT\(ms\): [0-9.]+\n`, report.String())
	}
}

// A Duration run stops by itself; what it sent is acknowledged; a consumer run with a
// Duration on a topic nobody sends to ends with zero messages and no TPS.
func TestRunDuration(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	topic := "Bench_" + clienttest.Name(t)
	o := producerOptions(t, c, topic)
	o.Async, o.Duration = true, 300*time.Millisecond
	s, err := RunProducer(context.Background(), o)
	require.NoError(t, err)
	require.Positive(t, s.Messages)
	require.Zero(t, s.SendFailed+s.ResponseFailed)
	requireConsistent(t, s)

	s, err = RunConsumer(context.Background(), ConsumerOptions{RunOptions: RunOptions{NamesrvAddr: c.NamesrvAddr(),
		Topic: topic + "_empty", Group: "cg_" + clienttest.Name(t), InstanceName: clienttest.InstanceName(t, "c"),
		Duration: 300 * time.Millisecond}, Configure: func(cfg *consumer.Config) { cfg.PullBatchSize = 8 }})
	require.NoError(t, err)
	require.Zero(t, s.Messages)
	require.Zero(t, s.TPS)
}

// Sends to a name server that does not answer fail as send failures (not response failures),
// and the run still returns a summary; no name server at all is an error.
func TestRunProducerFailures(t *testing.T) {
	_, err := RunProducer(context.Background(), ProducerOptions{})
	require.ErrorContains(t, err, "no name server")
	_, err = RunConsumer(context.Background(), ConsumerOptions{})
	require.ErrorContains(t, err, "no name server")
	_, err = RunProducer(context.Background(), ProducerOptions{RunOptions: RunOptions{NamesrvAddr: "127.0.0.1:1"},
		MessageSize: 1 << 20, Batch: 5})
	require.ErrorContains(t, err, "over maxMessageSize 4194304")

	s, err := RunProducer(context.Background(), ProducerOptions{RunOptions: RunOptions{NamesrvAddr: "127.0.0.1:1", Topic: "T",
		InstanceName: clienttest.InstanceName(t, "p"), Count: 2}, Threads: 2,
		Configure: func(cfg *producer.Config) { cfg.SendMsgTimeout = 200 * time.Millisecond }})
	require.NoError(t, err)
	require.Equal(t, int64(2), s.SendFailed)
	require.Zero(t, s.Messages+s.ResponseFailed)
	require.Len(t, s.Errors, 1)
	for kind, n := range s.Errors {
		require.NotEqual(t, "code=", kind[:min(5, len(kind))], "not a broker's answer")
		require.Equal(t, int64(2), n)
	}
	var buf bytes.Buffer
	require.NoError(t, s.WriteText(&buf))
	require.Regexp(t, `(?m)^Failures by kind: map\[\w+:2\]$`, buf.String())
}

// The JSON shape: one object with these keys, durations in integer nanoseconds.
func TestSummaryJSON(t *testing.T) {
	s := Summary{Mode: ModeAsync, Messages: 10, Requests: 10, Elapsed: time.Second, TPS: 10,
		Latency: Latency{P50: 1500, P99: 2000, P999: 3000, Max: 4000, Mean: 1600}}
	var buf bytes.Buffer
	require.NoError(t, s.WriteJSON(&buf))
	require.Equal(t, `{"mode":"async","messages":10,"requests":10,"sendFailed":0,"responseFailed":0,"elapsedNs":1000000000,"tps":10,`+
		`"latency":{"p50Ns":1500,"p99Ns":2000,"p999Ns":3000,"maxNs":4000,"meanNs":1600}}`+"\n", buf.String())
	var back Summary
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	require.Equal(t, s, back)

	buf.Reset()
	require.NoError(t, s.WriteText(&buf))
	require.Regexp(t, regexp.MustCompile(`^\[Complete\] Send Total: 10 requests Send Failed: 0 Response Failed: 0 Mode: async Messages: 10 Elapsed: 1s Send TPS: 10 messages/s\n`+
		`RT\(ms\) p50: 0\.002 p99: 0\.002 p999: 0\.003 max: 0\.004 avg: 0\.002\n$`), buf.String())
}

// The summary line says its units: a batch run's Send Total counts requests, its Messages and
// Send TPS messages; a consumer's totals are messages.
func TestSummaryTextUnits(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Summary{Mode: ModeAsync, Messages: 96, Requests: 3, Elapsed: time.Second, TPS: 96}.WriteText(&buf))
	require.Contains(t, buf.String(), "[Complete] Send Total: 3 requests Send Failed: 0 Response Failed: 0 Mode: async Messages: 96 Elapsed: 1s Send TPS: 96 messages/s\n")
	buf.Reset()
	require.NoError(t, Summary{Mode: ModeConsume, Messages: 96, Elapsed: 2 * time.Second, TPS: 48}.WriteText(&buf))
	require.Contains(t, buf.String(), "[Complete] Consume Total: 96 messages Elapsed: 2s Consume TPS: 48 messages/s\n")
}

// The per-second lines, as RocketMQ's tools print them: rates scaled to the period, RT in ms.
func TestPerSecondLines(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 1, 234e6, time.UTC)
	var buf bytes.Buffer
	writeProducerLine(&buf, now, 500*time.Millisecond, interval{messages: 1000, mean: 812 * time.Microsecond, max: 3 * time.Millisecond}, 1, 2)
	require.Equal(t, "Current Time: 2026-12-02 08:00:01,234 Send TPS: 2000 Max RT(ms): 3.000 Average RT(ms):   0.812 Send Failed: 1 Response Failed: 2\n", buf.String())
	buf.Reset()
	writeConsumerLine(&buf, now, time.Second, interval{messages: 7, mean: 1500 * time.Microsecond, max: 2 * time.Millisecond},
		interval{messages: 7, mean: time.Millisecond, max: 1250 * time.Microsecond})
	require.Equal(t, "Current Time: 2026-12-02 08:00:01,234 Consume TPS: 7 Average(B2C) RT(ms):   1.500 Max(B2C) RT(ms): 2.000 Average(S2C) RT(ms):   1.000 Max(S2C) RT(ms): 1.250\n", buf.String())
}

// A meter's interval: messages and mean since the previous snapshot, max since the last
// interval (reset by it).
func TestMeterInterval(t *testing.T) {
	var m meter
	m.observe(10, time.Millisecond)
	m.observe(10, 3*time.Millisecond)
	s1 := m.snapshot()
	iv := m.since(snapshot{}, s1)
	require.Equal(t, interval{messages: 20, mean: 2 * time.Millisecond, max: 3 * time.Millisecond}, iv)
	m.observe(1, time.Millisecond)
	iv = m.since(s1, m.snapshot())
	require.Equal(t, interval{messages: 1, mean: time.Millisecond, max: time.Millisecond}, iv)
	require.Equal(t, interval{}, m.since(m.snapshot(), m.snapshot()))
}
