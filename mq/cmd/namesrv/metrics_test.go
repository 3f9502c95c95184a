package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TestMetricsEndpoint: with metricsExporterType=PROM mqnamesrv serves /metrics on the
// configured host and port (0: ephemeral, named on stdout); a route request for an unknown
// topic moves rocketmq_namesrv_routes_served_total{result="topic_not_exist"} by one, no broker
// is alive; after the stop signal the endpoint is gone.
func TestMetricsEndpoint(t *testing.T) {
	dir := t.TempDir()
	file := conftest.Write(t, "namesrv.conf", "listenPort=0", "bindAddress=127.0.0.1",
		"kvConfigPath="+filepath.Join(dir, "kv.json"), "metricsExporterType=PROM",
		"metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0")
	out, errOut := &trace.SyncWriter{W: new(bytes.Buffer)}, &trace.SyncWriter{W: new(bytes.Buffer)}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-c", file}, out, errOut, stop) }()
	url := mqtest.WaitExporterURL(t, out.String)
	addr := regexp.MustCompile(`listen=(\S+)`).FindStringSubmatch(out.String())[1]

	notExist := map[string]string{"result": "topic_not_exist"}
	text := mqtest.Scrape(t, url)
	require.Zero(t, mqtest.MetricValue(t, text, "rocketmq_namesrv_brokers_alive", nil))
	before := mqtest.MetricValue(t, text, "rocketmq_namesrv_routes_served_total", notExist)
	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer c.Shutdown()
	_, err := mqtest.QueryRoute(c, addr, "NoSuchTopic")
	require.Error(t, err, "TOPIC_NOT_EXIST")
	text = mqtest.Scrape(t, url)
	require.Equal(t, before+1, mqtest.MetricValue(t, text, "rocketmq_namesrv_routes_served_total", notExist))
	require.Contains(t, text, "go_goroutines ", "the Go runtime's collector is served too")

	stop <- syscall.SIGTERM
	require.NoError(t, <-done)
	_, err = (&http.Client{Timeout: 5 * time.Second}).Get(url)
	require.Error(t, err, "the exporter stopped with the name server")
}

// TestMetricsKeys: -p prints the three metrics keys with RocketMQ 5's defaults, and a bad
// value is refused naming its key, by -p as by a start.
func TestMetricsKeys(t *testing.T) {
	code, stdout, _ := exit("-p")
	require.Equal(t, 0, code)
	for _, l := range []string{"metricsExporterType=DISABLE\n", "metricsPromExporterHost=\n", "metricsPromExporterPort=5557\n"} {
		require.Contains(t, stdout, l)
	}
	code, _, stderr := exit("-p", "-c", conftest.Write(t, "ns.conf", "metricsExporterType=PROMETHEUS"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `namesrv config: metricsExporterType must be DISABLE or PROM, got "PROMETHEUS"`)
}
