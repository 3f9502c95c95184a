package rocketmqgo

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// readmeMetricsKeys returns the key=value lines of the README's "## Metrics" properties block.
func readmeMetricsKeys(t *testing.T, section string) []string {
	t.Helper()
	var keys []string
	for _, line := range strings.Split(section, "\n") {
		if regexp.MustCompile(`^metrics[A-Za-z]+=\S*$`).MatchString(line) {
			keys = append(keys, line)
		}
	}
	require.Len(t, keys, 3, "metricsExporterType, metricsPromExporterHost, metricsPromExporterPort")
	return keys
}

// readmeMetricsExcerpt returns the series lines of the README's sample scrape, each as its
// name and sorted label keys ("rocketmq_group_diff{broker,cluster,group,queueId,topic}").
func readmeMetricsExcerpt(t *testing.T, section string) []string {
	t.Helper()
	var series []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "rocketmq_") {
			series = append(series, seriesShape(line))
		}
	}
	require.Greater(t, len(series), 15)
	return series
}

// seriesShape is a text-format line's metric name and label keys, without the values.
var labelKey = regexp.MustCompile(`([A-Za-z_]+)="[^"]*"`)

func seriesShape(line string) string {
	name, rest, _ := strings.Cut(strings.Fields(line)[0], "{")
	var keys []string
	for _, m := range labelKey.FindAllStringSubmatch(rest, -1) {
		keys = append(keys, m[1])
	}
	return name + "{" + strings.Join(keys, ",") + "}"
}

// TestReadmeMetrics reads the README's metrics keys as mqbroker reads a -c file (the port
// moved to an ephemeral one), serves a running broker and its name server on one endpoint as
// mqbroker does, runs `mqbench producer` and `mqbench consumer` against it, and scrapes:
// the topic's put and get totals are the messages sent, the group's diff is 0, no response
// was SYSTEM_ERROR (code 1: the consumer did not ask about its group after leaving it), and every
// series of the README's excerpt is served with the labels it shows.
func TestReadmeMetrics(t *testing.T) {
	section := readmeSection(t, "## Metrics")
	lines := readmeMetricsKeys(t, section)
	for i, l := range lines {
		if strings.HasPrefix(l, "metricsPromExporterPort=") {
			lines[i] = "metricsPromExporterPort=0"
		}
	}
	file := filepath.Join(t.TempDir(), "broker-metrics.conf")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	sc, err := broker.ParseCommandLine([]string{"-c", file, "-n", "127.0.0.1:9876"}, io.Discard, io.Discard)
	require.NoError(t, err)
	cfg := sc.Broker.ExporterConfig
	require.True(t, cfg.Enabled(), "the README's keys turn the exporter on")

	c := clienttest.StartCluster(t, 1, nil)
	exp, err := metrics.Serve(cfg, nil, c.Brokers[0].Metrics(), c.Namesrv.Metrics())
	require.NoError(t, err)
	t.Cleanup(exp.Shutdown)

	const n = 20
	topic, group := "MetricsTopic", "MetricsGroup" // the README excerpt's names; the cluster is this test's own
	for _, args := range [][]string{
		{"producer", "-n", c.NamesrvAddr(), "-t", topic, "-w", "1", "-s", "128", "-count", strconv.Itoa(n)},
		{"consumer", "-n", c.NamesrvAddr(), "-t", topic, "-g", group, "-first", "-count", strconv.Itoa(n), "-d", "60s"},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, bench.Main(context.Background(), args, &stdout, &stderr), "%q: %s", args, stderr.String())
	}

	tl := map[string]string{"topic": topic}
	var text string
	require.Eventually(t, func() bool { // the consumer committed its offsets when it stopped
		text = mqtest.Scrape(t, exp.URL())
		for q := range 4 { // mqbench's topic is created with 4 queues
			diff, ok := mqtest.MetricSum(text, "rocketmq_group_diff",
				map[string]string{"group": group, "topic": topic, "queueId": strconv.Itoa(q)})
			if !ok || diff != 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "every queue's diff is 0")
	require.Equal(t, float64(n), mqtest.MetricValue(t, text, "rocketmq_put_messages_total", tl))
	require.Equal(t, float64(n), mqtest.MetricValue(t, text, "rocketmq_get_messages_total", tl))
	_, systemError := mqtest.MetricSum(text, "rocketmq_responses_total", map[string]string{"code": "1"})
	require.False(t, systemError, "no request was answered SYSTEM_ERROR: the leaving consumer's rebalance ends before it unregisters")

	served := map[string]bool{}
	var ours []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "rocketmq_") {
			served[seriesShape(line)] = true
			ours = append(ours, line)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + strings.Join(ours, "\n"))
	}
	for _, s := range readmeMetricsExcerpt(t, section) {
		require.True(t, served[s], "the README shows %s; the scrape has no such series", s)
	}
}
