package rocketmqgo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// readmeConsoleLines returns the README's "## Console" command lines that start with prefix,
// as argument lists (comments cut), in order.
func readmeConsoleLines(t *testing.T, prefix string) [][]string {
	t.Helper()
	var lines [][]string
	for _, line := range strings.Split(readmeSection(t, "## Console"), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			rest, _, _ = strings.Cut(rest, "#")
			lines = append(lines, shellWords(strings.TrimSpace(rest)))
		}
	}
	return lines
}

var (
	consoleBootLine = regexp.MustCompile(`The console boot success\. (http://127\.0\.0\.1:[0-9]+/) \(dashboardWriteEnable=false\)`)
	namesrvBootLine = regexp.MustCompile(`The Name Server boot success \(in-process\)\. listen=([0-9.]+:[0-9]+)`)
)

// TestReadmeConsole runs the README's Console lines: it builds mqbroker and starts it with the
// line's -dashboard (on an ephemeral port, with a -c file for ephemeral broker ports and a temp
// store), runs the mqbench producer and consumer lines against it (shortened) and checks the
// figures moved on the cluster, topic and group pages, then follows the live trace stream (the
// curl line) while the last line sends one message: its steps arrive, from the send request to
// the ConsumeQueue unit. SIGTERM stops broker and console.
func TestReadmeConsole(t *testing.T) {
	brokerLines := readmeConsoleLines(t, "go run ./mq/cmd/broker ")
	require.Len(t, brokerLines, 1)
	args := append([]string(nil), brokerLines[0]...)
	i := slices.Index(args, "-dashboard")
	require.GreaterOrEqual(t, i, 0, "the line sets -dashboard")
	require.Equal(t, "127.0.0.1:8080", args[i+1])
	args[i+1] = "127.0.0.1:0"

	dir := t.TempDir()
	bin := filepath.Join(dir, "mqbroker")
	build := exec.Command("go", "build", "-o", bin, "./mq/cmd/broker")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	conf := filepath.Join(dir, "broker.conf")
	require.NoError(t, os.WriteFile(conf, []byte(strings.Join([]string{"brokerName=broker-a", "listenPort=0",
		"bindAddress=127.0.0.1", "storePathRootDir=" + filepath.Join(dir, "store"), "mappedFileSizeCommitLog=4194304",
		"mappedFileSizeConsumeQueue=60000", ""}, "\n")), 0o644))

	cmd := exec.Command(bin, append([]string{"-c", conf}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &trace.SyncWriter{W: new(bytes.Buffer)} // read while the process writes
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	var home, nsAddr string
	var boot []string
	for home == "" {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "mqbroker exited; stdout:\n%s\nstderr:\n%s", strings.Join(boot, "\n"), stderr.String())
			boot = append(boot, l)
			if m := namesrvBootLine.FindStringSubmatch(l); m != nil {
				nsAddr = m[1]
			}
			if m := consoleBootLine.FindStringSubmatch(l); m != nil {
				home = m[1]
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("no console boot line; stdout:\n%s", strings.Join(boot, "\n"))
		}
	}
	require.NotEmpty(t, nsAddr)

	// The load lines: a producer (300 ms instead of its -d), a consumer (until it got them all).
	loads := readmeConsoleLines(t, "go run ./mq/cmd/mqbench ")
	require.Len(t, loads, 3)
	topic := loads[0][slices.Index(loads[0], "-t")+1]
	for _, l := range loads {
		require.Equal(t, topic, l[slices.Index(l, "-t")+1], "one topic: %q", l)
	}
	require.Regexp(t, `<td>1024</td><td>1024</td>`, getPage(t, home+"topic?t=BenchmarkTest"),
		"BenchmarkTest, created at start, has 1024 queues (the README says why it avoids it)")
	sent := runBenchLine(t, loads[0], nsAddr, 0)
	require.Positive(t, sent)
	page := getPage(t, home)
	require.Regexp(t, `<td>broker-a</td><td>0</td>`, page)
	require.Regexp(t, `<td>ASYNC_MASTER</td><td>V4_9_8</td><td>[0-9.]+</td><td>[0-9.]+</td><td>`+strconv.FormatInt(sent, 10)+`</td>`, page,
		"the put total is what the producer sent")
	topicPage := getPage(t, home+"topic?t="+topic)
	require.Contains(t, topicPage, "<td>broker-a</td><td>0</td><td>0</td>")
	if topic != "BenchmarkTest" {
		require.Regexp(t, `<td>4</td><td>4</td><td>RW-</td></tr>`, topicPage, "created on the first send with min(4, 8) queues, as the README says")
	}
	runBenchLine(t, loads[1], nsAddr, sent)
	m := regexp.MustCompile(`<th id="total">(\d+)</th>`).FindStringSubmatch(getPage(t, home+"group?g=benchmark_consumer"))
	require.NotNil(t, m, "the group page shows the total lag")
	lag, _ := strconv.ParseInt(m[1], 10, 64)
	t.Logf("lag %d of %d sent", lag, sent)
	require.Less(t, lag, sent/2, "the consumer's committed offsets moved: most of what was sent is no longer lag")

	// The live trace while the last line sends one message.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, home+"trace/events?topic="+topic, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	require.True(t, events.Scan())
	require.Equal(t, "event: ready", events.Text())
	runBenchLine(t, loads[2], nsAddr, 0)
	want := []string{"SendMessageProcessor#processRequest", "DefaultAppendMessageCallback#doAppend", "ConsumeQueue#putMessagePositionInfo"}
	var seen []string
	for len(want) > 0 && events.Scan() {
		l := events.Text()
		seen = append(seen, l)
		if strings.HasPrefix(l, "data: [broker-a] ") && strings.Contains(l, " "+want[0]+" ") {
			want = want[1:]
		}
	}
	require.Empty(t, want, "the stream:\n%s", strings.Join(seen, "\n"))
	cancel()

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	for range lines {
	}
	select {
	case err := <-exited:
		require.NoError(t, err, "stderr:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("mqbroker did not stop on SIGTERM")
	}
}

// runBenchLine runs one README mqbench line against nsAddr: a producer's -d becomes 300ms, a
// consumer's -count is count (a -d of 60 s bounds it). It returns the messages of the summary.
func runBenchLine(t *testing.T, line []string, nsAddr string, count int64) int64 {
	t.Helper()
	args := append([]string(nil), line...)
	for j := 1; j < len(args)-1; j++ {
		switch args[j] {
		case "-n":
			args[j+1] = nsAddr
		case "-d":
			args[j+1] = "300ms"
		}
	}
	if args[0] == "consumer" {
		args = append(args, "-count", strconv.FormatInt(count, 10), "-d", "60s")
	}
	var stdout, stderr bytes.Buffer
	code := bench.Main(context.Background(), append(args, "-json"), &stdout, &stderr)
	require.Equal(t, 0, code, "%q: %s", args, stderr.String())
	var s bench.Summary
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &s), stdout.String())
	return s.Messages
}

// getPage fetches url and requires 200.
func getPage(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}
