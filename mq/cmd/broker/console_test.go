package main

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

var consoleBanner = regexp.MustCompile(`The console boot success\. (http://[0-9.]+:[0-9]+/) \(dashboardWriteEnable=(true|false)\)`)

// TestConsoleInTheBrokerProcess: mqbroker -dashboard serves the console beside the broker (and
// its in-process name server); the front page lists the broker, writes are refused (403) unless
// dashboardWriteEnable, and a signal stops console and broker.
func TestConsoleInTheBrokerProcess(t *testing.T) {
	dir := t.TempDir()
	conf := conftest.Write(t, "broker.conf", "brokerName=broker-console", "listenPort=0", "bindAddress=127.0.0.1",
		"storePathRootDir="+filepath.Join(dir, "store"), "mappedFileSizeCommitLog=65536", "mappedFileSizeConsumeQueue=2000",
		"dashboardAddr=127.0.0.1:1") // -dashboard wins over the file
	var out trace.SyncWriter
	out.W = new(strings.Builder)
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-c", conf, "-dashboard", "127.0.0.1:0"}, &out, io.Discard, stop) }()
	var home string
	require.Eventually(t, func() bool {
		if m := consoleBanner.FindStringSubmatch(out.String()); m != nil {
			home = m[1]
			return true
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "the console's boot line")
	require.Contains(t, out.String(), "dashboardWriteEnable=false")

	resp, err := http.Get(home)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(page), "<td>broker-console</td>")

	resp, err = http.PostForm(home+"send", url.Values{"topic": {"T"}, "body": {"x"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	stop <- syscall.SIGTERM
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("mqbroker did not stop")
	}
	require.Contains(t, out.String(), "The broker[broker-console, ")
	_, err = http.Get(home)
	require.Error(t, err, "the console stopped with the broker")
}

// TestConsoleKeys: -p prints the console's keys; a dashboardAddr that is not host:port is
// refused as a start would refuse it.
func TestConsoleKeys(t *testing.T) {
	var out, errOut strings.Builder
	require.NoError(t, run([]string{"-p", "-n", "127.0.0.1:9876", "-dashboard", ":8080"}, &out, &errOut, nil))
	require.Contains(t, out.String(), "dashboardAddr=:8080\n")
	require.Contains(t, out.String(), "dashboardWriteEnable=false\n")
	err := run([]string{"-p", "-n", "127.0.0.1:9876", "-dashboard", "8080"}, &out, &errOut, nil)
	require.ErrorContains(t, err, `dashboardAddr="8080" is not host:port`)
}

// TestTakenHTTPPortStartsNothing: a console or metrics port already in use stops mqbroker
// before the name server or the broker says "boot success", with an error naming the keys to
// change (dashboardAddr / -dashboard; metricsPromExporterHost:metricsPromExporterPort).
func TestTakenHTTPPortStartsNothing(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	taken := ln.Addr().String()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-dashboard", taken}, "mqbroker: console: listen on dashboardAddr (-dashboard) " + taken + ": "},
		{[]string{"-c", overlay(t, "broker.conf", append(storeOverlay(t), "metricsExporterType=PROM",
			"metricsPromExporterHost=127.0.0.1", "metricsPromExporterPort="+port)...)},
			"mqbroker: metrics: listen on metricsPromExporterHost:metricsPromExporterPort " + taken + ": "},
	} {
		args := c.args
		if args[0] != "-c" {
			args = append([]string{"-c", overlay(t, "broker.conf", storeOverlay(t)...)}, args...)
		}
		code, stdout, stderr := runExit(args...)
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, c.want)
		require.Contains(t, stderr, "address already in use")
		require.NotContains(t, stdout, "boot success", "nothing started")
	}
}
