package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// streamBuffer is how many lines a page's stream queues before it drops (and says so): the
// logging goroutines never wait for a slow page.
const streamBuffer = 4096

// traceEvents streams the live trace of one topic as server-sent events: first an event
// "ready" (the subscription is in place), then one event per step line ("data: [broker-a] 01
// SendMessageProcessor#processRequest code=310 topic=T …"), and an event "dropped" with the
// count when the page could not keep up. It subscribes to the hub for as long as the page
// stays; steps are on only while some page watches. A missing topic is 400, no hub 503, more
// than MaxWatchers pages 503.
func (d *Dashboard) traceEvents(w http.ResponseWriter, r *http.Request) {
	topic := strings.TrimSpace(r.FormValue("topic"))
	if topic == "" {
		http.Error(w, "which topic? (parameter topic)", http.StatusBadRequest)
		return
	}
	if d.cfg.Hub == nil {
		http.Error(w, "the live trace needs the console in the broker's process (mqbroker -dashboard)", http.StatusServiceUnavailable)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if !d.addWatcher() {
		http.Error(w, fmt.Sprintf("too many live trace pages open (at most %d)", d.cfg.MaxWatchers), http.StatusServiceUnavailable)
		return
	}
	defer d.removeWatcher()

	lines := make(chan string, streamBuffer)
	var dropped atomic.Int64
	f := newTopicFilter(topic, d.clk, d.cfg.HoldFor, func(l string) {
		select {
		case lines <- l:
		default:
			dropped.Add(1)
		}
	})
	cancel := d.cfg.Hub.Subscribe(f.add)
	defer cancel()

	securityHeaders(w.Header())
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: ready\ndata: %s\n\n", sseData(topic))
	flusher.Flush()

	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	reported := int64(0)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.done:
			return
		case l := <-lines:
			fmt.Fprintf(w, "data: %s\n\n", sseData(l))
			for n := len(lines); n > 0; n-- { // what queued meanwhile, in one flush
				fmt.Fprintf(w, "data: %s\n\n", sseData(<-lines))
			}
			flusher.Flush()
		case <-tick.C:
			f.tick()
			if n := dropped.Load(); n != reported {
				reported = n
				fmt.Fprintf(w, "event: dropped\ndata: %d\n\n", n)
				flusher.Flush()
			}
		}
	}
}

// sseData keeps a value on one event line: a step line has no line break (the printer quotes
// values that hold one), but a topic from the query string might.
func sseData(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

func (d *Dashboard) addWatcher() bool {
	d.watchMu.Lock()
	defer d.watchMu.Unlock()
	if d.watchers >= d.cfg.MaxWatchers {
		return false
	}
	d.watchers++
	return true
}

func (d *Dashboard) removeWatcher() {
	d.watchMu.Lock()
	d.watchers--
	d.watchMu.Unlock()
}
