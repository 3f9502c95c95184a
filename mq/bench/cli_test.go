package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
)

// runJSON runs mqbench with args and -json, requires exit 0, and decodes stdout, which must
// be exactly one JSON object.
func runJSON(t *testing.T, args ...string) Summary {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), append(args, "-json"), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	var s Summary
	require.NoError(t, dec.Decode(&s))
	require.False(t, dec.More(), "one object only")
	require.Contains(t, stderr.String(), "topic: ", "the run's settings go to stderr with -json")
	return s
}

// mqbench producer (sync with keys, async, async batches) and then consumer -first against an
// embedded cluster: the counts are exact, every message sent is consumed, the summaries are
// consistent, and stdout with -json holds one object of the documented shape.
func TestProducerThenConsumer(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	ns := c.NamesrvAddr()
	topic := "Bench_" + clienttest.Name(t)
	s := runJSON(t, "producer", "-n", ns, "-t", topic, "-g", "pg_sync", "-w", "4", "-s", "1024", "-k", "-count", "200")
	require.Equal(t, ModeSync, s.Mode)
	require.Equal(t, int64(200), s.Messages)
	require.Equal(t, int64(200), s.Requests)
	requireConsistent(t, s)

	s = runJSON(t, "producer", "-n", ns, "-t", topic, "-g", "pg_async", "-async", "-inflight", "32", "-s", "1024", "-count", "300")
	require.Equal(t, ModeAsync, s.Mode)
	require.Equal(t, int64(300), s.Messages)
	require.Zero(t, s.SendFailed+s.ResponseFailed)
	requireConsistent(t, s)

	s = runJSON(t, "producer", "-n", ns, "-t", topic, "-g", "pg_batch", "-async", "-batch", "10", "-s", "1024", "-count", "100")
	require.Equal(t, int64(100), s.Messages)
	require.Equal(t, int64(10), s.Requests)

	s = runJSON(t, "consumer", "-n", ns, "-t", topic, "-g", "cg_part_"+clienttest.Name(t), "-first", "-count", "100", "-d", "60s")
	require.Equal(t, int64(100), s.Messages, "of 600 stored, -count 100 counts 100: not those consumed until the consumer stopped")
	s = runJSON(t, "consumer", "-n", ns, "-t", topic, "-g", "cg_"+clienttest.Name(t), "-first", "-count", "600", "-d", "60s")
	require.Equal(t, ModeConsume, s.Mode)
	require.Equal(t, int64(600), s.Messages, "-count 600 counts 600, whatever the batches")
	require.NotNil(t, s.StoreToConsume)
	requireConsistent(t, s)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Main(context.Background(), []string{"producer", "-n", ns, "-t", topic, "-g", "pg_text", "-count", "5", "-w", "1"}, &stdout, &stderr), stderr.String())
	require.Regexp(t, `(?m)^topic: `+topic+` threadCount: 1 messageSize: 128 keyEnable: false asyncEnable: false inflight: 1024 batch: 1$`, stdout.String())
	require.Regexp(t, `(?m)^\[Complete\] Send Total: 5 requests Send Failed: 0 Response Failed: 0 Mode: sync Messages: 5 `, stdout.String())
	require.Regexp(t, `(?m)^RT\(ms\) p50: [0-9.]+ p99: [0-9.]+ p999: [0-9.]+ max: [0-9.]+ avg: [0-9.]+$`, stdout.String())
}

// A bad command line exits 2 with the usage or the flag's complaint; -h exits 0.
func TestBadCommandLine(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"sender"},
		{"producer", "-s", "0"},
		{"producer", "-batch", "-1"},
		{"producer", "-nosuchflag"},
		{"producer", "extra"},
		{"consumer", "-async"},
		{"consumer", "-d", "-1s"},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 2, Main(context.Background(), args, &stdout, &stderr), "%q", args)
		require.NotEmpty(t, stderr.String(), "%q", args)
		require.Empty(t, stdout.String(), "%q", args)
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Main(context.Background(), []string{"consumer", "-h"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "-first")
	require.Equal(t, 1, strings.Count(stderr.String(), "(default $NAMESRV_ADDR, else 127.0.0.1:9876)"), stderr.String())
	require.NotContains(t, stderr.String(), `(default "127.0.0.1:9876")`, "the name server's default named once")
}
