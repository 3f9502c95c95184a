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
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

var (
	metricsURL   = regexp.MustCompile(`The metrics exporter serves (http://\S+/metrics)\n`)
	metricBanner = regexp.MustCompile(`The broker\[broker-m, ([0-9.]+:[0-9]+)\] boot success`)
)

// TestMetricsEndpoint: mqbroker with metricsExporterType=PROM (port 0: ephemeral, named on
// stdout) serves /metrics; one SEND_MESSAGE moves the topic's put total from absent to 1 and
// PUT_OK by one, and the connection that sent it is counted on the main server. Stopping the
// broker stops the endpoint.
func TestMetricsEndpoint(t *testing.T) {
	dir := t.TempDir()
	nc := namesrv.DefaultNamesrvConfig()
	nc.KvConfigPath = filepath.Join(dir, "namesrv", "kvConfig.json")
	ns := namesrv.NewNamesrvController(nc, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, nil)
	require.NoError(t, namesrv.Start(ns))
	t.Cleanup(ns.Shutdown)
	file := conftest.Write(t, "broker.conf", "brokerName=broker-m", "listenPort=0", "bindAddress=127.0.0.1",
		"storePathRootDir="+filepath.Join(dir, "store"), "mappedFileSizeCommitLog=65536",
		"mappedFileSizeConsumeQueue=2000", "metricsExporterType=PROM", "metricsPromExporterHost=127.0.0.1",
		"metricsPromExporterPort=0")
	out, errOut := &trace.SyncWriter{W: new(bytes.Buffer)}, &trace.SyncWriter{W: new(bytes.Buffer)}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-c", file, "-n", ns.Addr()}, out, errOut, stop) }()
	var url string
	require.Eventually(t, func() bool {
		if m := metricsURL.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		return url != ""
	}, 20*time.Second, 5*time.Millisecond, "stderr: %s", errOut.String())
	addr := metricBanner.FindStringSubmatch(out.String())[1]

	topic := map[string]string{"topic": "MetricsTopic", "broker": "broker-m"}
	putOK := map[string]string{"status": "PUT_OK"}
	text := mqtest.Scrape(t, url)
	_, seen := mqtest.MetricSum(text, "rocketmq_put_messages_total", topic)
	require.False(t, seen)
	okBefore := mqtest.MetricValue(t, text, "rocketmq_put_status_total", putOK)

	c := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer c.Shutdown()
	sh := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "MetricsTopic", DefaultTopic: protocol.DefaultTopic,
		DefaultTopicQueueNums: 4, BornTimestamp: 1,
		Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "U1"})}
	resp := remotingtest.Invoke(t, c, addr, remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(&sh), []byte("hello")))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)

	text = mqtest.Scrape(t, url)
	require.Equal(t, 1.0, mqtest.MetricValue(t, text, "rocketmq_put_messages_total", topic))
	require.Equal(t, okBefore+1, mqtest.MetricValue(t, text, "rocketmq_put_status_total", putOK))
	require.GreaterOrEqual(t, mqtest.MetricValue(t, text, "rocketmq_connections", map[string]string{"server": "main"}), 1.0)

	stop <- syscall.SIGTERM
	require.NoError(t, <-done)
	require.Contains(t, out.String(), "The broker[broker-m, "+addr+"] shutdown OK")
	_, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	require.Error(t, err, "the exporter stopped with the broker")
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
