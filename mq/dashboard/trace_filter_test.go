package dashboard

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// lineSink collects a filter's lines.
type lineSink struct {
	mu    sync.Mutex
	lines []string
}

func (s *lineSink) add(l string) { s.mu.Lock(); s.lines = append(s.lines, l); s.mu.Unlock() }
func (s *lineSink) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// filterTracer returns a tracer whose steps go through a hub into a topicFilter for topic.
func filterTracer(t *testing.T, topic string, clk clock.Clock) (*trace.Tracer, *topicFilter, *lineSink) {
	hub := trace.NewHub(nil)
	sink := &lineSink{}
	f := newTopicFilter(topic, clk, 2*time.Second, sink.add)
	t.Cleanup(hub.Subscribe(f.add))
	return trace.New(slog.New(hub), "broker-a"), f, sink
}

// TestTopicFilterCorrelatesByCommitLogOffset: the steps that name no topic (the append, the
// reput pass, the index) are shown for the page's topic exactly when the dispatch of their
// CommitLog offset names that topic, in the order the broker logged them; another topic's
// interleaved message, and steps with neither topic nor offset, are left out.
func TestTopicFilterCorrelatesByCommitLogOffset(t *testing.T) {
	tr, _, sink := filterTracer(t, "T", clock.NewManualMillis(0))
	s, i64 := slog.String, slog.Int64
	tr.Step("SendMessageProcessor#processRequest", s("topic", "T"))
	tr.Step("DefaultMessageStore#checkStoreStatus", s("status", "PUT_OK")) // no topic, no offset
	tr.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 0))
	tr.Step("SendMessageProcessor#processRequest", s("topic", "U"))
	tr.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 200))
	tr.Step("ReputMessageService#run", i64("reputFromOffset", 0), i64("commitLogMaxOffset", 400))
	tr.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", s("topic", "T"), i64("commitLogOffset", 0))
	tr.Step("ConsumeQueue#putMessagePositionInfo", s("topic", "T"), slog.Int("queueId", 0), i64("commitLogOffset", 0))
	tr.Step("IndexService#buildIndex", i64("commitLogOffset", 0))
	tr.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", s("topic", "U"), i64("commitLogOffset", 200))
	tr.Step("IndexService#buildIndex", i64("commitLogOffset", 200))
	tr.Step("ClientManageProcessor#heartBeat", s("clientId", "c1"))
	tr.Step("PullRequestHoldService#notifyMessageArriving", s("key", "T@0"), i64("maxOffset", 1))
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), slog.Int("messages", 1))

	require.Equal(t, []string{
		"[broker-a] 01 SendMessageProcessor#processRequest topic=T",
		"[broker-a] 02 DefaultAppendMessageCallback#doAppend wroteOffset=0",
		"[broker-a] 03 ReputMessageService#run reputFromOffset=0 commitLogMaxOffset=400",
		"[broker-a] 04 CommitLogDispatcherBuildConsumeQueue#dispatch topic=T commitLogOffset=0",
		"[broker-a] 05 ConsumeQueue#putMessagePositionInfo topic=T queueId=0 commitLogOffset=0",
		"[broker-a] 06 IndexService#buildIndex commitLogOffset=0",
		"[broker-a] 07 PullRequestHoldService#notifyMessageArriving key=T@0 maxOffset=1",
		"[broker-a] 08 PullMessageProcessor#processRequest topic=T messages=1",
	}, sink.get())
}

// TestTopicFilterHoldsInOrderThenGivesUp: a step held for its owner keeps the lines after it
// waiting (the page reads in log order); one whose owner never shows is dropped after holdFor
// and the lines behind it come out; one the reput passed (a blank END_OF_FILE record) is
// dropped as soon as a later offset is dispatched.
func TestTopicFilterHoldsInOrderThenGivesUp(t *testing.T) {
	clk := clock.NewManualMillis(0)
	tr, f, sink := filterTracer(t, "T", clk)
	s, i64 := slog.String, slog.Int64
	tr.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 0), s("result", "END_OF_FILE"))
	tr.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 4096))
	tr.Step("SendMessageProcessor#processRequest", s("topic", "T"))
	require.Empty(t, sink.get(), "held behind the undecided appends")
	tr.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", s("topic", "T"), i64("commitLogOffset", 4096))
	require.Equal(t, []string{
		"[broker-a] 01 DefaultAppendMessageCallback#doAppend wroteOffset=4096",
		"[broker-a] 02 SendMessageProcessor#processRequest topic=T",
		"[broker-a] 03 CommitLogDispatcherBuildConsumeQueue#dispatch topic=T commitLogOffset=4096",
	}, sink.get(), "the blank at 0 was passed by the reput: dropped")

	tr.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 8192)) // never dispatched
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"))
	f.tick()
	require.Len(t, sink.get(), 3, "still held")
	clk.Advance(2 * time.Second)
	f.tick()
	got := sink.get()
	require.Len(t, got, 4)
	require.True(t, strings.HasSuffix(got[3], "PullMessageProcessor#processRequest topic=T"), got[3])
}

// TestTopicFilterMatchesOffsetsPerComponent: two brokers logging to one hub (an embedded
// cluster, a master and its slave) have CommitLogs of their own, so the same offset on another
// broker is not the page's message.
func TestTopicFilterMatchesOffsetsPerComponent(t *testing.T) {
	hub := trace.NewHub(nil)
	sink := &lineSink{}
	f := newTopicFilter("T", clock.NewManualMillis(0), 2*time.Second, sink.add)
	t.Cleanup(hub.Subscribe(f.add))
	a := trace.New(slog.New(hub), "broker-a")
	b := a.With("broker-b")
	s, i64 := slog.String, slog.Int64
	a.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 0))
	b.Step("DefaultAppendMessageCallback#doAppend", i64("wroteOffset", 0))
	a.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", s("topic", "T"), i64("commitLogOffset", 0))
	b.Step("CommitLogDispatcherBuildConsumeQueue#dispatch", s("topic", "U"), i64("commitLogOffset", 0))
	b.Step("IndexService#buildIndex", i64("commitLogOffset", 0))
	require.Equal(t, []string{
		"[broker-a] 01 DefaultAppendMessageCallback#doAppend wroteOffset=0",
		"[broker-a] 02 CommitLogDispatcherBuildConsumeQueue#dispatch topic=T commitLogOffset=0",
	}, sink.get())
}

// TestTopicFilterLeavesIdlePullsOut: a long-polling consumer's pulls that deliver nothing — held
// (suspendPullRequest, suspended=true), answered empty at the queue's end (OFFSET_OVERFLOW_ONE,
// NO_MESSAGE_IN_QUEUE), woken only because their hold time was up — are not the page's lines;
// the wake-up by the page's message and the pull that delivers it are, and so is a pull that
// found something wrong (OFFSET_OVERFLOW_BADLY).
func TestTopicFilterLeavesIdlePullsOut(t *testing.T) {
	tr, _, sink := filterTracer(t, "T", clock.NewManualMillis(0))
	s, i64, n := slog.String, slog.Int64, slog.Int
	idleCycle := func(queue string, at int64) {
		tr.Step("DefaultMessageStore#getMessage", s("group", "g"), s("topic", "T"), i64("offset", at), s("status", "OFFSET_OVERFLOW_ONE"), n("messageCount", 0))
		tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), s("status", "OFFSET_OVERFLOW_ONE"), n("code", 19), n("messages", 0), slog.Bool("suspended", true))
		tr.Step("PullRequestHoldService#suspendPullRequest", s("key", "T@"+queue), i64("offset", at))
	}
	tr.Step("PullRequestHoldService#notifyMessageArriving", s("key", "T@1"), i64("maxOffset", 3), n("woken", 1)) // held before the page opened
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), s("status", "NO_MESSAGE_IN_QUEUE"), n("code", 19), n("messages", 0))
	idleCycle("0", 5)
	tr.Step("PullRequestHoldService#notifyMessageArriving", s("key", "T@0"), i64("maxOffset", 5), n("woken", 1)) // hold time up
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), s("status", "OFFSET_OVERFLOW_ONE"), n("code", 19), n("messages", 0), slog.Bool("wakeup", true))
	idleCycle("0", 5)
	require.Empty(t, sink.get(), "idle pulls only")

	tr.Step("SendMessageProcessor#processRequest", s("topic", "T"))
	tr.Step("ConsumeQueue#putMessagePositionInfo", s("topic", "T"), n("queueId", 0), i64("cqOffset", 5))
	tr.Step("PullRequestHoldService#notifyMessageArriving", s("key", "T@0"), i64("maxOffset", 6), n("woken", 1))
	tr.Step("DefaultMessageStore#getMessage", s("topic", "T"), i64("offset", 5), s("status", "FOUND"), n("messageCount", 1))
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), s("status", "FOUND"), n("messages", 1))
	idleCycle("0", 6)
	tr.Step("PullMessageProcessor#processRequest", s("topic", "T"), s("status", "OFFSET_OVERFLOW_BADLY"), n("messages", 0))
	require.Equal(t, []string{
		"[broker-a] 01 SendMessageProcessor#processRequest topic=T",
		"[broker-a] 02 ConsumeQueue#putMessagePositionInfo topic=T queueId=0 cqOffset=5",
		"[broker-a] 03 PullRequestHoldService#notifyMessageArriving key=T@0 maxOffset=6 woken=1",
		"[broker-a] 04 DefaultMessageStore#getMessage topic=T offset=5 status=FOUND messageCount=1",
		"[broker-a] 05 PullMessageProcessor#processRequest topic=T status=FOUND messages=1",
		"[broker-a] 06 PullMessageProcessor#processRequest topic=T status=OFFSET_OVERFLOW_BADLY messages=0",
	}, sink.get())
}
