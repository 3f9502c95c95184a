package dashboard

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleInChromium drives headless Chromium through every page of a console over a
// running broker: on the live trace page it sends a message whose key is markup
// (<script>x</script>) with the page's own form and watches the message's steps arrive in
// order — the send request, the append, the reput, the ConsumeQueue unit, the pull that
// delivers it; then the cluster, topic, group and message pages show the message, the key as
// text (no script element in the page). Screenshots of each page go to the test's artifact
// directory (go test -artifacts keeps them). It skips only when Chromium is not installed.
func TestConsoleInChromium(t *testing.T) {
	path, err := findChromium()
	if err != nil {
		t.Skipf("browser test skipped: %v", err)
	}
	c := startConsole(t, true, true)
	p := startProducer(t, c)
	send(t, p, "BrowserTopic", "warm-up", "") // the topic exists; the consumer's pulls are held
	got, _ := startConsumer(t, c, "browser_group", "BrowserTopic", false)
	require.Equal(t, "warm-up", receive(t, got))
	ms := c.cluster.Brokers[0].MessageStore()
	require.Eventually(t, func() bool { return ms.DispatchBehindBytes() == 0 }, 10*time.Second, 10*time.Millisecond)

	shots := t.ArtifactDir()
	b := startBrowser(t, path)

	// The live trace: watch, send from the page, see the steps.
	b.navigate(c.url + "/trace?topic=BrowserTopic")
	require.Eventually(t, func() bool {
		v, err := b.tryEval("document.body.dataset.state || ''")
		return err == nil && string(v) == `"watching"`
	}, 10*time.Second, 20*time.Millisecond, "the page's stream is open")
	b.eval(`(() => {
		const f = document.getElementById('send');
		f.elements.body.value = 'from the browser';
		f.elements.keys.value = ` + jsString(hostileKey) + `;
		f.requestSubmit();
		return true; })()`)
	require.Equal(t, "from the browser", receive(t, got))
	wantOrder := []string{"SendMessageProcessor#processRequest", "DefaultAppendMessageCallback#doAppend",
		"ReputMessageService#run", "ConsumeQueue#putMessagePositionInfo", "PullMessageProcessor#processRequest"}
	var last atomic.Pointer[[]string]
	ok := assert.Eventually(t, func() bool {
		v, err := b.tryEval(`Array.from(document.querySelectorAll('#steps li')).map(li => li.textContent)`)
		var steps []string
		if err != nil || json.Unmarshal(v, &steps) != nil {
			return false
		}
		last.Store(&steps)
		return inOrder(steps, wantOrder) == len(wantOrder)
	}, 15*time.Second, 50*time.Millisecond)
	var steps []string
	if l := last.Load(); l != nil {
		steps = *l
	}
	b.screenshot(shots, "trace.png")
	require.True(t, ok, "the steps in order %v; the page shows:\n%s", wantOrder, strings.Join(steps, "\n"))
	for i, s := range steps {
		require.Regexp(t, `^\[(broker-a|namesrv)\] \d{2,} [A-Za-z]+#[A-Za-z]+( |$)`, s, "line %d as the chapters print it", i)
		require.NotContains(t, s, "topic=browser_group")
	}
	sent := b.text(`document.getElementById('sent').textContent`)
	require.Regexp(t, `^200 SEND_OK msgId=[0-9A-F]{32} `, sent)
	msgID := regexp.MustCompile(`msgId=([0-9A-F]{32})`).FindStringSubmatch(sent)[1]

	// Cluster.
	b.navigate(c.url + "/")
	brokers := b.text(`document.getElementById('brokers').innerText`)
	require.Contains(t, brokers, "broker-a")
	require.Contains(t, brokers, "ASYNC_MASTER")
	b.screenshot(shots, "cluster.png")

	// Topics and one topic: two messages in the queues.
	b.navigate(c.url + "/topics")
	require.Contains(t, b.text(`document.getElementById('topics').innerText`), "BrowserTopic")
	b.screenshot(shots, "topics.png")
	b.navigate(c.url + "/topic?t=BrowserTopic")
	var messages int
	require.NoError(t, json.Unmarshal(b.eval(`Array.from(document.querySelectorAll('#queues tr')).slice(1)
		.reduce((n, tr) => n + Number(tr.cells[4].textContent), 0)`), &messages))
	require.Equal(t, 2, messages, "warm-up and the browser's message")
	require.Contains(t, b.text(`document.getElementById('consumers').innerText`), "browser_group")
	b.screenshot(shots, "topic.png")

	// Groups and one group.
	b.navigate(c.url + "/groups")
	require.Contains(t, b.text(`document.getElementById('groups').innerText`), "browser_group")
	b.screenshot(shots, "groups.png")
	b.navigate(c.url + "/group?g=browser_group")
	require.Contains(t, b.text(`document.getElementById('members').innerText`), "@c-TestConsoleInChromium-")
	require.Equal(t, "no", b.text(`document.getElementById('orderly').textContent`))
	b.screenshot(shots, "group.png")

	// The message by key: the hostile key is text, and no script element came with it.
	b.navigate(c.url + "/message?topic=BrowserTopic&key=" + url.QueryEscape(hostileKey))
	detail := b.text(`document.querySelector('table.message').innerText`)
	require.Contains(t, detail, "["+hostileKey+"]", "the key shown as the text it is")
	require.Contains(t, detail, "from the browser")
	require.Contains(t, detail, msgID)
	require.Equal(t, json.RawMessage("0"), b.eval(`document.querySelectorAll('main script').length`))
	b.screenshot(shots, "message-by-key.png")
	b.navigate(c.url + "/message?topic=BrowserTopic&id=" + msgID)
	require.Contains(t, b.text(`document.querySelector('table.message').innerText`), "from the browser")
	b.screenshot(shots, "message-by-id.png")
	t.Logf("screenshots in %s", shots)
}

// inOrder is how many of want occur in lines in that order (each a word of a later line than
// the one before); the pull counts only when it delivered a message.
func inOrder(lines, want []string) int {
	i := 0
	for _, l := range lines {
		if i == len(want) {
			break
		}
		if strings.Contains(l, " "+want[i]+" ") && (want[i] != "PullMessageProcessor#processRequest" || strings.Contains(l, " messages=1 ")) {
			i++
		}
	}
	return i
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
