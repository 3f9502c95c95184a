package main

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
)

// TestMetricsEndpoint: conf/broker.conf with metricsExporterType=PROM (port 0: ephemeral, named
// on stdout) serves the broker's and its in-process name server's series on one endpoint; one
// send moves the topic's put total from absent to 1 and PUT_OK by one, the name server counts
// the broker alive and the route it served. Stopping the broker stops the endpoint.
func TestMetricsEndpoint(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "")
	var url string
	t.Cleanup(func() { // runs after runBroker's cleanup has stopped the broker
		_, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
		require.Error(t, err, "the exporter stopped with the broker")
	})
	nsAddr, out, _ := runBroker(t, "-c", overlay(t, "broker.conf", append(storeOverlay(t),
		"metricsExporterType=PROM", "metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort=0")...))
	url = mqtest.WaitExporterURL(t, out.String)

	topic := map[string]string{"topic": "ExampleTopic", "broker": "broker-a"}
	putOK := map[string]string{"status": "PUT_OK"}
	text := mqtest.Scrape(t, url)
	_, seen := mqtest.MetricSum(text, "rocketmq_put_messages_total", topic)
	require.False(t, seen)
	okBefore := mqtest.MetricValue(t, text, "rocketmq_put_status_total", putOK)
	require.Equal(t, 1.0, mqtest.MetricValue(t, text, "rocketmq_namesrv_brokers_alive", nil))

	sendOne(t, nsAddr, "metrics-example")
	text = mqtest.Scrape(t, url)
	require.Equal(t, 1.0, mqtest.MetricValue(t, text, "rocketmq_put_messages_total", topic))
	require.Equal(t, okBefore+1, mqtest.MetricValue(t, text, "rocketmq_put_status_total", putOK))
	require.Positive(t, mqtest.MetricValue(t, text, "rocketmq_namesrv_routes_served_total", map[string]string{"result": "found"}))
}

// TestMetricsKeys: -p prints the metrics keys with RocketMQ 5's defaults; a bad value is refused
// naming its key, by -p as by a start.
func TestMetricsKeys(t *testing.T) {
	var out, errOut bytes.Buffer
	require.NoError(t, run([]string{"-p", "-n", "127.0.0.1:9876"}, &out, &errOut, nil))
	for _, l := range []string{"metricsExporterType=DISABLE\n", "metricsPromExporterHost=\n", "metricsPromExporterPort=5557\n"} {
		require.Contains(t, out.String(), l)
	}
	for _, bad := range []struct{ line, want string }{
		{"metricsExporterType=GRPC", `broker config: metricsExporterType must be DISABLE or PROM, got "GRPC"`},
		{"metricsPromExporterPort=99999", "broker config: metricsPromExporterPort must be in [0, 65535], got 99999"},
	} {
		file := conftest.Write(t, "broker.conf", bad.line)
		printErr := run([]string{"-p", "-c", file, "-n", "127.0.0.1:9876"}, &out, &errOut, nil)
		require.ErrorContains(t, printErr, bad.want)
		startErr := run([]string{"-c", file, "-n", "127.0.0.1:9876"}, &out, &errOut, nil)
		require.EqualError(t, startErr, printErr.Error())
	}
}
