package dashboard

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// browser is headless Chromium driven over the DevTools protocol on --remote-debugging-pipe:
// Chromium reads commands from its file descriptor 3 and writes answers and events to its
// descriptor 4, each message one JSON object ended by a NUL byte. Only the standard library is
// used (no DevTools client module).
type browser struct {
	t          *testing.T
	cmd        *exec.Cmd
	toChrome   *os.File // our end of its fd 3
	fromChrome *os.File // our end of its fd 4
	stderr     *os.File

	writeMu sync.Mutex // one message at a time on fd 3
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  chan cdpMessage
	session string // the page's flat session
	readErr error
	done    chan struct{}
}

// cdpMessage is one message from Chromium: an answer (ID set) or an event (Method set).
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startBrowser starts headless Chromium (binary path) with a fresh profile under t's temp dir
// and attaches to a new blank page. It is killed at t's cleanup.
func startBrowser(t *testing.T, path string) *browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // we write commands, Chromium reads them on fd 3
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe() // Chromium writes on fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(t.TempDir(), "chromium.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--disable-background-networking", "--disable-sync", "--mute-audio", "--window-size=1280,900",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	cmdR.Close()
	evW.Close()
	b := &browser{t: t, cmd: cmd, toChrome: cmdW, fromChrome: evR, stderr: stderr,
		waiting: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 1024), done: make(chan struct{})}
	go b.readLoop()
	t.Cleanup(b.close)

	var target struct {
		TargetID string `json:"targetId"`
	}
	b.callBrowser("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.callBrowser("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call("Page.enable", nil, nil)
	b.call("Runtime.enable", nil, nil)
	return b
}

// readLoop reads NUL-delimited messages until Chromium closes its end.
func (b *browser) readLoop() {
	defer close(b.done)
	r := bufio.NewReaderSize(b.fromChrome, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // nobody waits for this many events; drop the oldest
			<-b.events
			b.events <- m
		}
	}
}

// send writes one command (on the page's session unless session is "") and waits for its
// answer (30 s at most), decoding the result into out; it fails the test on any error.
func (b *browser) send(session, method string, params any, out any) {
	b.t.Helper()
	if err := b.trySend(session, method, params, out); err != nil {
		b.t.Fatal(err)
	}
}

// trySend is send returning the error: safe on any goroutine (a require.Eventually condition).
func (b *browser) trySend(session, method string, params any, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b.writeMu.Lock()
	_, err = b.toChrome.Write(append(raw, 0))
	b.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: write to chromium: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("%s: decode %s: %w", method, m.Result, err)
			}
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: chromium went away: %v; its log:\n%s", method, b.readErr, b.log())
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer within 30 s", method)
	}
}

func (b *browser) callBrowser(method string, params, out any) {
	b.t.Helper()
	b.send("", method, params, out)
}
func (b *browser) call(method string, params, out any) {
	b.t.Helper()
	b.send(b.session, method, params, out)
}

// navigate loads url in the page and waits for its load event.
func (b *browser) navigate(url string) {
	b.t.Helper()
	for len(b.events) > 0 { // forget the previous page's events
		<-b.events
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	b.call("Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		b.t.Fatalf("navigate %s: %s", url, nav.ErrorText)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-b.events:
			if m.Method == "Page.loadEventFired" && m.SessionID == b.session {
				return
			}
		case <-deadline:
			b.t.Fatalf("navigate %s: no load event within 30 s", url)
		}
	}
}

// eval evaluates a JavaScript expression in the page and returns its value as JSON.
func (b *browser) eval(expr string) json.RawMessage {
	b.t.Helper()
	v, err := b.tryEval(expr)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// tryEval is eval returning the error (for require.Eventually conditions).
func (b *browser) tryEval(expr string) (json.RawMessage, error) {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.trySend(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("eval %q: %s", expr, res.ExceptionDetails.Text)
	}
	return res.Result.Value, nil
}

// text evaluates expr to a string ("" for null).
func (b *browser) text(expr string) string {
	b.t.Helper()
	var s *string
	if err := json.Unmarshal(b.eval(expr), &s); err != nil {
		b.t.Fatalf("eval %q: not a string: %v", expr, err)
	}
	if s == nil {
		return ""
	}
	return *s
}

// screenshot writes the page as PNG to dir/name.
func (b *browser) screenshot(dir, name string) string {
	b.t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return p
}

func (b *browser) log() string {
	out, _ := os.ReadFile(b.stderr.Name())
	return string(out)
}

// close asks Chromium to quit, then kills it if it has not exited within 5 s.
func (b *browser) close() {
	raw, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close"})
	b.writeMu.Lock()
	_, _ = b.toChrome.Write(append(raw, 0))
	b.writeMu.Unlock()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case <-exited:
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.toChrome.Close()
	b.fromChrome.Close()
	b.stderr.Close()
}

// errNoChromium: neither chromium nor chromium-browser is on PATH.
var errNoChromium = errors.New("no chromium on PATH")

// findChromium returns the path of Debian's chromium (or chromium-browser).
func findChromium() (string, error) {
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (Debian: apt-get install -y chromium)", errNoChromium)
}
