package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// hostileKey is a message key a page must show as text: rendered raw it would be a script.
const hostileKey = "<script>x</script>"

// TestPagesShowClusterTopicsGroupsAndMessages: each page shows what the admin operations
// answer — the broker and its role, the topic's queues with their offsets, the group with its
// member, lag and orderly flag, and the message found by key and by id, decoded — and every
// user-supplied value (key, body) is escaped, never markup.
func TestPagesShowClusterTopicsGroupsAndMessages(t *testing.T) {
	c := startConsole(t, false, false)
	p := startProducer(t, c)
	res := send(t, p, "ConsoleTopic", "<b>body</b>", hostileKey)
	got, _ := startConsumer(t, c, "console_orderly_group", "ConsoleTopic", true)
	require.Equal(t, "<b>body</b>", receive(t, got))
	// A concurrent group that consumed the message and stopped (writing its offsets), then one
	// more message: lag 1 on that queue.
	lagGot, lagCons := startConsumer(t, c, "console_lag_group", "ConsoleTopic", false)
	require.Equal(t, "<b>body</b>", receive(t, lagGot))
	lagCons.Shutdown()
	res2 := send(t, p, "ConsoleTopic", "second", "k2")

	home := c.page(t, "/")
	require.Contains(t, home, "broker-a")
	require.Contains(t, home, "ASYNC_MASTER")
	require.Contains(t, home, c.cluster.Brokers[0].BrokerAddr())

	require.Contains(t, c.page(t, "/topics"), `href="/topic?t=ConsoleTopic"`)
	topic := c.page(t, "/topic?t=ConsoleTopic")
	if res2.MessageQueue.QueueID != res.MessageQueue.QueueID {
		require.Contains(t, topic, "<td>broker-a</td><td>"+itoa(res.MessageQueue.QueueID)+"</td><td>0</td><td>1</td><td>1</td>",
			"the queue written: min 0, max 1, one message")
	}
	require.Contains(t, topic, "console_orderly_group")

	groups := c.page(t, "/groups")
	require.Contains(t, groups, `<a href="/group?g=console_orderly_group">console_orderly_group</a></td><td>1</td>`, "one member")
	orderly := c.eventually(t, "/group?g=console_orderly_group", `<span id="orderly">yes</span>`, "an orderly consumer locks its queues")
	require.Contains(t, orderly, "PUSH, CLUSTERING")
	require.Contains(t, orderly, "@c-TestPagesShowClusterTopicsGroupsAndMessages-", "the member's client id")
	lag := c.eventually(t, "/group?g=console_lag_group", `<th id="total">1</th>`, "one message sent after the group's last commit")
	require.Contains(t, lag, `<span id="orderly">no</span>`)
	q2 := itoa(res2.MessageQueue.QueueID)
	require.Regexp(t, `<td>ConsoleTopic</td><td>broker-a</td><td>`+q2+`</td><td>(\d+)</td><td>\d+</td><td>1</td>`, lag,
		"lag 1 on the queue of the second message")

	byKey := c.page(t, "/message?topic=ConsoleTopic&key="+url.QueryEscape(hostileKey))
	require.Contains(t, byKey, "1 found for key")
	require.Contains(t, byKey, "[&lt;script&gt;x&lt;/script&gt;]")
	require.Contains(t, byKey, "&lt;b&gt;body&lt;/b&gt;")
	require.NotContains(t, byKey, hostileKey, "the key is text, not markup")
	require.NotContains(t, byKey, "<b>body</b>")

	byID := c.page(t, "/message?id="+res.OffsetMsgID)
	require.Contains(t, byID, "1 found for id")
	require.Contains(t, byID, res.MsgID, "the record decoded: its UNIQ_KEY among the properties")
	require.Contains(t, c.page(t, "/message?topic=ConsoleTopic&id="+res.MsgID), res.OffsetMsgID, "by the producer's msgId")

	noTopic := c.page(t, "/message?id="+res.MsgID) // a UNIQ_KEY decodes to a port out of range
	require.Contains(t, noTopic, "msgId "+res.MsgID+" is not an offset msgId")
	require.Contains(t, noTopic, "a producer msgId (UNIQ_KEY) needs the topic")
	require.NotContains(t, noTopic, "out of range", "not the decoder's detail")
	stranger := c.page(t, "/message?id=0A0000010000270F0000000000000000") // 10.0.0.1:9999, offset 0
	require.Contains(t, stranger, "names 10.0.0.1:9999, which is no broker the name servers list", "never asked")
	require.Contains(t, c.page(t, "/message?id=nothex"), `id="error"`)
	code, body := c.get(t, "/message?key=k")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, "needs the topic")
	code, body = c.get(t, "/topic?t=NoSuchTopic")
	require.Equal(t, http.StatusNotFound, code, "the name server's TOPIC_NOT_EXIST")
	require.Contains(t, body, `id="error">no such topic NoSuchTopic</p>`)
	code, body = c.get(t, "/group?g="+url.QueryEscape("<i>NoSuch</i>"))
	require.Equal(t, http.StatusNotFound, code, "no route for the group's %RETRY% topic")
	require.Contains(t, body, `id="error">no such consumer group &lt;i&gt;NoSuch&lt;/i&gt;</p>`, "escaped")
	resp, err := http.Get(c.url + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'self'")
}

// TestWritesRefusedUnlessEnabled: POST /send is 403 on a read-only console (the default) and
// stores nothing; with dashboardWriteEnable it sends, but still refuses another site's Origin;
// a page is never changed by a POST (405).
func TestWritesRefusedUnlessEnabled(t *testing.T) {
	ro := startConsole(t, false, false)
	form := url.Values{"topic": {"WriteTopic"}, "body": {"x"}}
	code, body := ro.post(t, "/send", form, nil)
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, "dashboardWriteEnable=false")
	code, _ = ro.post(t, "/topics", form, nil)
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, _ = ro.get(t, "/send")
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, _ = ro.get(t, "/topic?t=WriteTopic")
	require.Equal(t, http.StatusNotFound, code, "nothing was sent: the topic does not exist")

	rw := startConsole(t, true, false)
	code, body = rw.post(t, "/send", form, map[string]string{"Origin": "http://evil.example"})
	require.Equal(t, http.StatusForbidden, code, body)
	code, body = rw.post(t, "/send", form, map[string]string{"Accept": "text/plain"})
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.HasPrefix(body, "SEND_OK msgId="), body)
	require.Contains(t, rw.page(t, "/topic?t=WriteTopic"), "<td>1</td>", "the test message is stored")
	code, _ = rw.post(t, "/send", url.Values{"topic": {"WriteTopic"}, "body": {strings.Repeat("x", 5<<20)}}, nil)
	require.Equal(t, http.StatusBadRequest, code, "a form beyond maxMessageSize")
	code, _ = rw.post(t, "/send", url.Values{"body": {"x"}}, nil)
	require.Equal(t, http.StatusBadRequest, code, "no topic")
}

// TestTraceEventsStreamOneTopicsSteps: the live trace stream of a topic shows one message's
// path through the broker in order — the send request, the append, the reput, the ConsumeQueue
// unit, the pull that delivers it — and the hub has a watcher only while the stream is open.
func TestTraceEventsStreamOneTopicsSteps(t *testing.T) {
	c := startConsole(t, false, false)
	p := startProducer(t, c)
	send(t, p, "TraceTopic", "warm-up", "") // the topic exists; the consumer's pulls are then held
	got, _ := startConsumer(t, c, "trace_group", "TraceTopic", false)
	require.Equal(t, "warm-up", receive(t, got))
	// The reput pass that dispatched the warm-up (building the first index file on the way) has
	// ended: the traced message gets a pass, and its ReputMessageService step, of its own.
	ms := c.cluster.Brokers[0].MessageStore()
	require.Eventually(t, func() bool { return ms.DispatchBehindBytes() == 0 }, 10*time.Second, 10*time.Millisecond)
	require.Zero(t, c.hub.Watchers())

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/trace/events?topic=TraceTopic", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	events := readEvents(resp)
	require.Equal(t, "ready TraceTopic", <-events)
	require.Equal(t, 1, c.hub.Watchers())

	var raw bytes.Buffer
	sw := &trace.SyncWriter{W: &raw}
	pr := trace.NewPrinter(sw, slog.LevelInfo)
	cancelRaw := c.hub.Subscribe(func(r slog.Record) { _ = pr.Handle(t.Context(), r) })
	send(t, p, "TraceTopic", "traced", "")
	require.Equal(t, "traced", receive(t, got))
	want := []string{"SendMessageProcessor#processRequest", "DefaultAppendMessageCallback#doAppend",
		"ReputMessageService#", "ConsumeQueue#putMessagePositionInfo", "PullMessageProcessor#processRequest"}
	var lines []string
	deadline := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case l := <-events:
			lines = append(lines, l)
			require.NotContains(t, l, "topic=trace_group", "another topic's line")
			if strings.Contains(l, " "+want[0]) && (want[0] != "PullMessageProcessor#processRequest" || strings.Contains(l, "messages=1")) {
				want = want[1:]
			}
		case <-deadline:
			t.Fatalf("steps still missing %v; got:\n%s\nraw:\n%s", want, strings.Join(lines, "\n"), sw.String())
		}
	}
	// Numbered from 01 for the page. The first line may be the broker's or, when a client
	// refreshed its route just then, the name server's lookup of the topic (it names the topic).
	require.Regexp(t, `^message \[(broker-a|namesrv)\] 01 `, lines[0])
	cancelRaw()
	cancel()
	require.Eventually(t, func() bool { return c.hub.Watchers() == 0 }, 5*time.Second, 20*time.Millisecond,
		"the page left: steps are off again")

	code, _ := c.get(t, "/trace/events")
	require.Equal(t, http.StatusBadRequest, code)
}

// readEvents parses a server-sent-events stream into "event data" strings ("message" for
// events without a name), one per event, until the stream ends.
func readEvents(resp *http.Response) <-chan string {
	out := make(chan string, 1000)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		name, data := "message", ""
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "event: "):
				name = strings.TrimPrefix(l, "event: ")
			case strings.HasPrefix(l, "data: "):
				data = strings.TrimPrefix(l, "data: ")
			case l == "":
				out <- name + " " + data
				name, data = "message", ""
			}
		}
	}()
	return out
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }

// TestClusterPageShowsSlaveLag: with a master and its slave, the cluster page lists both; the
// slave's replication lag is the master's CommitLog end minus the slave's, 0 once it has copied
// what was sent, and the master has none ("—").
func TestClusterPageShowsSlaveLag(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{Slaves: true})
	d, err := New(Config{NamesrvAddr: c.NamesrvAddr(), Timeout: 10 * time.Second})
	require.NoError(t, err)
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(d.Shutdown)
	cs := &console{cluster: c, d: d, url: srv.URL}
	send(t, startProducer(t, cs), "LagTopic", "replicated", "k")
	master := c.Brokers[0].MessageStore().GetMaxPhyOffset()
	require.Positive(t, master)
	page := cs.eventually(t, "/", "<td>SLAVE</td>", "the slave registered")
	require.Regexp(t, `<td>ASYNC_MASTER</td>(<td>[^<]*</td>){7}<td>—</td>`, strings.ReplaceAll(page, "\n", ""), "a master has no replication lag")
	slaveRow := regexp.MustCompile(`<td>SLAVE</td>(?:<td>[^<]*</td>){5}<td>(\d+)</td><td>[^<]*</td><td>(\d+)</td>`)
	require.Eventually(t, func() bool {
		_, p := cs.get(t, "/")
		m := slaveRow.FindStringSubmatch(strings.ReplaceAll(p, "\n", ""))
		return m != nil && m[1] == strconv.FormatInt(int64(master), 10) && m[2] == "0"
	}, 10*time.Second, 50*time.Millisecond, "the slave holds the master's CommitLog end: lag 0")
}

// TestTraceEventsRefusals: no topic is 400; a console without a hub (not in the broker's
// process) answers 503 and its trace page says why; more pages than MaxWatchers get 503.
func TestTraceEventsRefusals(t *testing.T) {
	c := mqtest.StartCluster(t, embedded.Config{})
	d, err := New(Config{NamesrvAddr: c.NamesrvAddr()})
	require.NoError(t, err)
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(d.Shutdown)
	cs := &console{cluster: c, d: d, url: srv.URL}
	code, _ := cs.get(t, "/trace/events")
	require.Equal(t, http.StatusBadRequest, code)
	code, _ = cs.get(t, "/trace/events?topic=T")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, cs.page(t, "/trace?topic=T"), "The live trace needs the console in the broker")

	hub := trace.NewHub(nil)
	one, err := New(Config{NamesrvAddr: c.NamesrvAddr(), Hub: hub, MaxWatchers: 1})
	require.NoError(t, err)
	srv1 := httptest.NewServer(one.Handler())
	t.Cleanup(srv1.Close)
	t.Cleanup(one.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv1.URL+"/trace/events?topic=T", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "ready T", <-readEvents(resp))
	second, err := http.Get(srv1.URL + "/trace/events?topic=T")
	require.NoError(t, err)
	second.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, second.StatusCode, "one page at most")
}
