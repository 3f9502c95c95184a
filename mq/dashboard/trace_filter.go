package dashboard

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// topicFilter picks, from the broker's step records, those of one topic's messages and renders
// them as chapter lines ("[broker-a] 01 CommitLog#doAppend wroteOffset=…"), numbered from 1 per
// page in the order shown.
//
// A step that names a topic (attribute topic, or key "topic@queueId" of the long-polling
// service) belongs to that topic. Some steps of a message's path name none: the append
// (DefaultAppendMessageCallback#doAppend wroteOffset=X), the reput pass
// (ReputMessageService#run and #doReput, covering [reputFromOffset, commitLogMaxOffset)) and the
// index (IndexService#buildIndex commitLogOffset=X). Their CommitLog offset is the message's
// identity, so such a step is held until a step that names both a topic and that offset (the
// dispatch: CommitLogDispatcherBuildConsumeQueue#dispatch topic=T commitLogOffset=X) says whose
// message it was: shown if the topic is the page's, dropped otherwise, and dropped when the reput
// has gone past it without naming it (a blank END_OF_FILE record) or after holdFor. Held steps
// keep their place: a line is shown only when every line before it is decided, so the page
// reads in the order the broker logged. Other steps (heartbeats, flushes, checks without an
// offset) are left out, and so are idle pulls (idlePull): a long-polling consumer holds a pull
// on every queue it owns, and on a topic of many queues those pulls, answered empty when
// their hold time is up, would bury the message's path. Offsets are matched per component (the tracer's name): a master and its
// slave, or two brokers of an embedded cluster, share a hub but not a CommitLog.
//
// Safe for concurrent use: add is called on the goroutines that log, under mu.
type topicFilter struct {
	topic   string
	clk     clock.Clock
	holdFor time.Duration
	emit    func(line string) // called under mu, in order; must not block

	mu      sync.Mutex
	pending []heldStep
	logs    map[string]*commitLogView // by component
	printer *trace.Printer
	buf     bytes.Buffer
	held    map[string]int64    // component+" "+topic@queueId → queue offset the last held pull waits at
	arrived map[string]struct{} // component+" "+topic@queueId of the page's ConsumeQueue units
}

// heldStep is a step waiting for its turn or for its owner.
type heldStep struct {
	rec       slog.Record
	decided   bool   // show when its turn comes
	component string // whose CommitLog from and to are in
	from, to  int64  // the CommitLog range it concerns: [from, to); to = from+1 for one offset
	since     time.Time
}

// commitLogView is what the filter knows of one component's CommitLog.
type commitLogView struct {
	mine   []int64 // offsets known to be the topic's messages (the last maxMine)
	passed int64   // the highest offset a topic-naming step has shown (-1: none)
}

// maxPending bounds the held steps of one page; beyond it the oldest undecided step is dropped.
const maxPending = 4096

// maxMine bounds the remembered offsets of the topic's messages.
const maxMine = 1024

func newTopicFilter(topic string, clk clock.Clock, holdFor time.Duration, emit func(string)) *topicFilter {
	f := &topicFilter{topic: topic, clk: clock.Or(clk), holdFor: holdFor, emit: emit, logs: map[string]*commitLogView{},
		held: map[string]int64{}, arrived: map[string]struct{}{}}
	f.printer = trace.NewPrinter(&f.buf, slog.LevelInfo)
	return f
}

// stepFacts are what a step says about whose it is.
type stepFacts struct {
	component string
	topic     string
	hasTopic  bool
	from, to  int64 // the CommitLog range, [from, to); from < 0: none
	hasOffset bool
}

// factsOf reads a step's topic and CommitLog offset (or range) from its attributes.
func factsOf(r slog.Record) stepFacts {
	f := stepFacts{from: -1}
	var reputFrom, reputTo int64 = -1, -1
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case trace.ComponentKey:
			f.component = a.Value.String()
		case "topic":
			f.topic, f.hasTopic = a.Value.String(), true
		case "key": // PullRequestHoldService: topic@queueId
			if i := strings.LastIndexByte(a.Value.String(), '@'); i > 0 && !f.hasTopic {
				f.topic, f.hasTopic = a.Value.String()[:i], true
			}
		case "wroteOffset", "commitLogOffset":
			if a.Value.Kind() == slog.KindInt64 {
				f.from, f.to, f.hasOffset = a.Value.Int64(), a.Value.Int64()+1, true
			}
		case "reputFromOffset":
			reputFrom = a.Value.Int64()
		case "commitLogMaxOffset":
			reputTo = a.Value.Int64()
		}
		return true
	})
	if !f.hasOffset && reputFrom >= 0 && reputTo > reputFrom {
		f.from, f.to, f.hasOffset = reputFrom, reputTo, true
	}
	return f
}

// add takes one step record (the hub's watcher callback).
func (f *topicFilter) add(r slog.Record) {
	facts := factsOf(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clk.Now()
	ours := facts.hasTopic && facts.topic == f.topic
	if ours && f.idlePull(r, facts.component) {
		f.expire(now)
		return
	}
	switch {
	case facts.hasTopic && facts.hasOffset:
		f.settle(facts.component, ours, facts.from)
		if ours {
			f.pending = append(f.pending, heldStep{rec: r.Clone(), decided: true})
		}
	case facts.hasTopic:
		if ours {
			f.pending = append(f.pending, heldStep{rec: r.Clone(), decided: true})
		}
	case facts.hasOffset:
		v := f.view(facts.component)
		if v.isMine(facts.from) {
			f.pending = append(f.pending, heldStep{rec: r.Clone(), decided: true})
		} else if facts.to-1 > v.passed { // not (all) dispatched yet: wait for the dispatch
			f.pending = append(f.pending, heldStep{rec: r.Clone(), component: facts.component, from: facts.from, to: facts.to, since: now})
		}
	}
	if len(f.pending) > maxPending {
		f.dropOldestUndecided()
	}
	f.expire(now)
}

// idlePull reports whether r, a step of the page's topic, is a pull that delivers nothing:
//   - DefaultMessageStore#getMessage and PullMessageProcessor#processRequest with no message
//     and status OFFSET_OVERFLOW_ONE or NO_MESSAGE_IN_QUEUE (the consumer is at the queue's end;
//     answered PULL_NOT_FOUND, or held with suspended=true);
//   - PullRequestHoldService#suspendPullRequest (a pull held because there was nothing);
//   - PullRequestHoldService#notifyMessageArriving that woke a held pull only because its hold
//     time was up: the queue's maxOffset is not past the offset the pull waits at or, when the
//     page opened while the pull was held, no unit of the page's was put in that queue.
//
// The pull woken by the page's message (notifyMessageArriving after its ConsumeQueue unit) and
// the one that delivers it (status FOUND, messages=1) are shown. Called under mu.
func (f *topicFilter) idlePull(r slog.Record, component string) bool {
	var key, status string
	var offset, maxOffset, count int64 = -1, -1, -1
	var queueID int64 = -1
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "key":
			key = a.Value.String()
		case "status":
			status = a.Value.String()
		case "offset":
			offset = a.Value.Int64()
		case "maxOffset":
			maxOffset = a.Value.Int64()
		case "messages", "messageCount":
			count = a.Value.Int64()
		case "queueId":
			queueID = a.Value.Int64()
		}
		return true
	})
	switch r.Message {
	case "DefaultMessageStore#getMessage", "PullMessageProcessor#processRequest":
		return count == 0 && (status == "OFFSET_OVERFLOW_ONE" || status == "NO_MESSAGE_IN_QUEUE")
	case "PullRequestHoldService#suspendPullRequest":
		f.held[component+" "+key] = offset
		return true
	case "PullRequestHoldService#notifyMessageArriving":
		waitsAt, seen := f.held[component+" "+key]
		if seen {
			return maxOffset <= waitsAt
		}
		_, arrived := f.arrived[component+" "+key]
		return !arrived
	case "ConsumeQueue#putMessagePositionInfo":
		if queueID >= 0 {
			f.arrived[component+" "+f.topic+"@"+strconv.FormatInt(queueID, 10)] = struct{}{}
		}
	}
	return false
}

func (f *topicFilter) view(component string) *commitLogView {
	v := f.logs[component]
	if v == nil {
		v = &commitLogView{passed: -1}
		f.logs[component] = v
	}
	return v
}

// settle applies a step of component that names the topic of CommitLog offset off: the held
// steps covering off are decided (shown when the topic is the page's); held single offsets
// below it, and ranges ending at or below it, were passed by the reput without being the page's:
// dropped.
func (f *topicFilter) settle(component string, ours bool, off int64) {
	v := f.view(component)
	if ours {
		v.remember(off)
	}
	v.passed = max(v.passed, off)
	kept := f.pending[:0]
	for _, h := range f.pending {
		if !h.decided && h.component == component {
			switch {
			case off >= h.from && off < h.to:
				if !ours {
					if h.to-h.from == 1 {
						continue // the one offset it concerns is another topic's
					}
					kept = append(kept, h) // a range: another message in it may still be ours
					continue
				}
				h.decided = true
			case off >= h.to:
				continue // the reput went past it: not the page's
			}
		}
		kept = append(kept, h)
	}
	f.pending = kept
}

func (v *commitLogView) remember(off int64) {
	if v.isMine(off) {
		return
	}
	if len(v.mine) >= maxMine {
		v.mine = v.mine[1:]
	}
	v.mine = append(v.mine, off)
}

func (v *commitLogView) isMine(off int64) bool {
	return slices.Contains(v.mine, off)
}

func (f *topicFilter) dropOldestUndecided() {
	for i, h := range f.pending {
		if !h.decided {
			f.pending = append(f.pending[:i], f.pending[i+1:]...)
			return
		}
	}
	f.pending = f.pending[1:]
}

// expire drops held steps older than holdFor, then shows the decided steps at the head.
func (f *topicFilter) expire(now time.Time) {
	kept := f.pending[:0]
	for _, h := range f.pending {
		if !h.decided && now.Sub(h.since) >= f.holdFor {
			continue
		}
		kept = append(kept, h)
	}
	f.pending = kept
	n := 0
	for n < len(f.pending) && f.pending[n].decided {
		f.buf.Reset()
		_ = f.printer.Handle(context.Background(), f.pending[n].rec)
		f.emit(strings.TrimSuffix(f.buf.String(), "\n"))
		n++
	}
	f.pending = append(f.pending[:0], f.pending[n:]...)
}

// tick drops what has been held too long (the page's stream calls it a few times a second, so
// a held step never stalls the lines after it for longer than holdFor).
func (f *topicFilter) tick() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expire(f.clk.Now())
}
