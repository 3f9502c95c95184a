package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// tourRun is one run of the tour that the exercises share (a run takes a few seconds): its
// output and the messages its consumers handed to the application.
type tourRun struct {
	out  string
	got  map[string][]*primitive.MessageExt // by consumer: "push", "orderly", "lite"
	err  error
	once sync.Once
}

var shared tourRun

// runOnce plays the tour the first time an exercise asks, in a temp dir of its own that the
// run removes.
func runOnce(t *testing.T) *tourRun {
	t.Helper()
	shared.once.Do(func() {
		var out bytes.Buffer
		var mu sync.Mutex
		shared.got = map[string][]*primitive.MessageExt{}
		shared.err = run(&out, config{Listen: func(who string, m *primitive.MessageExt) {
			mu.Lock()
			defer mu.Unlock()
			shared.got[who] = append(shared.got[who], m)
		}})
		shared.out = out.String()
	})
	require.NoError(t, shared.err)
	return &shared
}

// step is one step line of the tour's output: its chapter, component, label and values.
type step struct {
	chapter, component, label string
	attrs                     map[string]string
}

// steps parses the step lines of out.
func steps(t *testing.T, out string) []step {
	t.Helper()
	var all []step
	for _, l := range strings.Split(out, "\n") {
		chapter, label, err := chapterOfLine(l)
		require.NoError(t, err)
		if chapter == "" {
			continue
		}
		f := strings.Fields(l)
		s := step{chapter: chapter, component: strings.Trim(f[1], "[]"), label: label, attrs: map[string]string{}}
		for _, kv := range f[4:] {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.attrs[k] = v
			}
		}
		all = append(all, s)
	}
	return all
}

// find returns the first step of label (on component, if not "") whose attrs include want.
func find(t *testing.T, all []step, component, label string, want map[string]string) step {
	t.Helper()
	for _, s := range all {
		if s.label != label || (component != "" && s.component != component) {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && s.attrs[k] == v
		}
		if ok {
			return s
		}
	}
	require.Failf(t, "step not found", "no %s step on %q with %v", label, component, want)
	return step{}
}

func num(t *testing.T, s step, key string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s.attrs[key], 10, 64)
	require.NoError(t, err, "%s %s=%q", s.label, key, s.attrs[key])
	return n
}

// TestExercise1_OneOffsetEverywhere asks: where do the ConsumeQueue unit, the slave and the
// consumer find "Hello tour"? At the CommitLog offset (bytes) doAppend wrote it to: the
// master's unit and the slave's unit hold that commitLogOffset, the HA frame starts there, and
// the MessageExt the push consumer's application gets carries it.
func TestExercise1_OneOffsetEverywhere(t *testing.T) {
	r := runOnce(t)
	all := steps(t, r.out)
	appended := find(t, all, brokerName, "DefaultAppendMessageCallback#doAppend", nil)
	wrote := appended.attrs["wroteOffset"]
	unit := find(t, all, brokerName, "ConsumeQueue#putMessagePositionInfo", map[string]string{"topic": topicName})
	require.Equal(t, wrote, unit.attrs["commitLogOffset"])
	require.Equal(t, appended.attrs["msgSize"], unit.attrs["size"], "a unit holds the record's size")
	slaveUnit := find(t, all, brokerName+"-slave", "ConsumeQueue#putMessagePositionInfo", map[string]string{"topic": topicName})
	require.Equal(t, wrote, slaveUnit.attrs["commitLogOffset"], "the slave's copy sits at the same CommitLog offset")
	require.Equal(t, wrote, find(t, all, brokerName, "WriteSocketService#transferData", nil).attrs["transferFrom"])
	require.Len(t, r.got["push"], 1)
	require.Equal(t, "Hello tour", string(r.got["push"][0].Body))
	require.Equal(t, wrote, strconv.FormatInt(r.got["push"][0].CommitLogOffset, 10))
}

// TestExercise2_AckIsTheNextUnit asks: which offset does the push consumer acknowledge once
// "Hello tour" is consumed? Not a byte offset: the queueOffset of the ConsumeQueue unit that
// points at the message (in ConsumeQueue units), plus one — the next unit to read — and that is
// what broker-a's consumerOffset holds after the persist task.
func TestExercise2_AckIsTheNextUnit(t *testing.T) {
	r := runOnce(t)
	all := steps(t, r.out)
	unit := find(t, all, brokerName, "ConsumeQueue#putMessagePositionInfo", map[string]string{"topic": topicName})
	cq := num(t, unit, "cqOffset")
	require.Equal(t, cq, r.got["push"][0].QueueOffset)
	ack := find(t, all, "client-push", "RemoteBrokerOffsetStore#updateOffset", map[string]string{"queueId": unit.attrs["queueId"]})
	require.Equal(t, cq+1, num(t, ack, "offset"))
	sent := find(t, all, "client-push", "RemoteBrokerOffsetStore#updateConsumeOffsetToBroker", map[string]string{"queueId": unit.attrs["queueId"]})
	require.Equal(t, cq+1, num(t, sent, "offset"))
	require.Contains(t, r.out, "broker-a's consumerOffset: TopicTour@tour_push_group queue "+unit.attrs["queueId"]+" -> "+strconv.FormatInt(cq+1, 10))
}

// TestExercise3_CommitWritesASecondRecord asks: is the transactional message the lite pull
// consumer polls the record the producer sent? No: the producer's send stored a half message in
// RMQ_SYS_TRANS_HALF_TOPIC; END_TRANSACTION (COMMIT_MESSAGE) wrote a new record for TopicTour
// after it, and only that one has a TopicTour ConsumeQueue unit; the op message that marks the
// half as done points at the half's queueOffset.
func TestExercise3_CommitWritesASecondRecord(t *testing.T) {
	r := runOnce(t)
	all := steps(t, r.out)
	half := find(t, all, brokerName, "ConsumeQueue#putMessagePositionInfo", map[string]string{"topic": "RMQ_SYS_TRANS_HALF_TOPIC"})
	end := find(t, all, brokerName, "EndTransactionProcessor#processRequest", map[string]string{"commitOrRollback": "COMMIT_MESSAGE"})
	require.Equal(t, half.attrs["commitLogOffset"], end.attrs["commitLogOffset"], "END_TRANSACTION names the half by its CommitLog offset")
	real := find(t, all, brokerName, "ConsumeQueue#putMessagePositionInfo", map[string]string{"topic": topicName, "cqOffset": "1"})
	require.Greater(t, num(t, real, "commitLogOffset"), num(t, half, "commitLogOffset"))
	op := find(t, all, brokerName, "TransactionalMessageBridge#putOpMessage", nil)
	require.Equal(t, half.attrs["cqOffset"], op.attrs["body"], "the op message's body is the half's queueOffset")

	var polled *primitive.MessageExt
	for _, m := range r.got["lite"] {
		if string(m.Body) == "order paid" {
			polled = m
		}
	}
	require.NotNil(t, polled, "the lite pull consumer polled the committed message")
	require.Equal(t, topicName, polled.Topic)
	require.Equal(t, real.attrs["commitLogOffset"], strconv.FormatInt(polled.CommitLogOffset, 10))
}

// TestEveryLabelBelongsToAChapter checks the chapter column: every step line of the tour (its
// golden file and a fresh run) names the chapter whose golden trace first holds its label —
// never the unknown chapter — and every chapter from 1 to 10 has at least one line.
func TestEveryLabelBelongsToAChapter(t *testing.T) {
	root, err := findRoot(".")
	require.NoError(t, err)
	chapters, err := loadChapters(root)
	require.NoError(t, err)
	golden, err := os.ReadFile("testdata/tour.golden")
	require.NoError(t, err)
	for name, out := range map[string]string{"the golden file": string(golden), "a run": runOnce(t).out} {
		seen := map[string]bool{}
		all := steps(t, out)
		require.NotEmpty(t, all)
		for _, s := range all {
			want, ok := chapters[s.label]
			require.True(t, ok, "%s: %s is in no chapter's golden trace", name, s.label)
			require.Equal(t, want, s.chapter, "%s: %s", name, s.label)
			seen[s.chapter] = true
		}
		for i := 1; i <= 10; i++ {
			require.True(t, seen["ch"+strconv.Itoa(100 + i)[1:]], "%s: no line of chapter %d", name, i)
		}
		times := map[string]int{}
		for _, s := range all {
			times[s.label]++
		}
		for l := range onceLabels {
			require.LessOrEqual(t, times[l], 1, "%s: %s is shown once only", name, l)
		}
	}
	for l := range onceLabels {
		require.Contains(t, chapters, l, "onceLabels names %s, which no chapter traces", l)
	}
}

// The first golden file holding a label names its chapter; a label the goldens do not hold has
// none; a repeat of a once-label is left out and so is a step about another topic and the steps
// without a topic that follow it.
func TestChapterMapAndFilter(t *testing.T) {
	dir := t.TempDir()
	for _, g := range []struct{ ch, line string }{
		{"ch02-producer", "[producer] 01 A#x k=1\n[client] 02 B#y"},
		{"ch01-namesrv", "== heading ==\n[namesrv] 01 B#y v=2"},
	} {
		require.NoError(t, os.MkdirAll(dir+"/"+g.ch+"/testdata", 0o755))
		require.NoError(t, os.WriteFile(dir+"/"+g.ch+"/testdata/"+g.ch+".golden", []byte(g.line+"\n"), 0o644))
	}
	m, err := loadChapters(dir)
	require.NoError(t, err)
	require.Equal(t, chapterMap{"A#x": "ch02", "B#y": "ch01"}, m)
	_, err = loadChapters(t.TempDir())
	require.Error(t, err)
	_, err = findRoot(t.TempDir())
	require.Error(t, err)

	var out bytes.Buffer
	f := filter{topics: map[string]bool{"T": true}, once: labelSet("B#y")}
	tr := trace.New(slog.New(newTourHandler(&out, m, f)), "c")
	tr.Step("A#x", slog.String("topic", "T"))
	tr.Step("B#y")
	tr.Step("B#y")                                   // a repeat of a once-label
	tr.Step("A#x", slog.String("topic", "%RETRY%g")) // another topic
	tr.Step("C#z")                                   // no topic: it follows the step before it
	tr.Step("A#x", slog.String("topic", "T"))
	tr.Step("C#z")
	require.Equal(t, "ch02 [c] 01 A#x topic=T\nch01 [c] 02 B#y\nch02 [c] 03 A#x topic=T\nch?? [c] 04 C#z\n", out.String())
}

// chapterOfLine returns the chapter a line of the tour's output names, "" for a line of the
// scenario's own (a heading, a result).
func chapterOfLine(line string) (chapter, label string, err error) {
	ch, rest, ok := strings.Cut(line, " ")
	if !ok || len(ch) != 4 || !strings.HasPrefix(ch, "ch") {
		return "", "", nil
	}
	g := stepLine.FindStringSubmatch(rest)
	if g == nil {
		return "", "", errors.New("a chapter prefix without a step line: " + line)
	}
	return ch, g[1], nil
}
