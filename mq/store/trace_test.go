package store

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestTraceSteps pins the ch03-store step labels in order and their deterministic values
// (paths relative to the store root, no clock values).
func TestTraceSteps(t *testing.T) {
	dir := t.TempDir()
	rec := trace.NewRecorder()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, rec.Tracer("broker-a"))
	m := newMsg("TopicTest", 1, "Hello", "")
	m.PropertiesString = exampleProps
	put(t, s, m)
	s.DoReput()
	s.GetMessage("g1", "TopicTest", 1, 0, 32, nil)
	s.Shutdown()
	openStore(t, cfg, nil, rec.Tracer("broker-a"))

	want := []string{
		"DefaultMessageStore#load",
		"CommitLog#recoverNormally",
		"DefaultMessageStore#asyncPutMessage",
		"DefaultMessageStore#checkStoreStatus",
		"DefaultMessageStore#checkMessage",
		"DefaultMessageStore#checkLmqMessage",
		"CommitLog#asyncPutMessage",
		"MessageExtEncoder#encode",
		"MappedFile#appendMessagesInner",
		"DefaultAppendMessageCallback#doAppend",
		"ReputMessageService#doReput",
		"CommitLogDispatcherBuildConsumeQueue#dispatch",
		"ConsumeQueue#putMessagePositionInfo",
		"CommitLogDispatcherBuildIndex#dispatch",
		"IndexService#buildIndex",
		"DefaultMessageStore#getMessage",
		// shutdown flushes: the CommitLog through its queue
		"MappedFileQueue#flush",
		"MappedFile#isAbleToFlush",
		"MappedFile#flush",
		// restart
		"DefaultMessageStore#load",
		"CommitLog#recoverNormally",
	}
	if diff := cmp.Diff(want, rec.Labels()); diff != "" {
		t.Fatalf("labels (-want +got):\n%s", diff)
	}
	steps := rec.Steps()
	byLabel := map[string]map[string]string{}
	for _, st := range steps[:16] {
		byLabel[st.Label] = st.Attrs
		require.Equal(t, "broker-a", st.Component)
	}
	require.Equal(t, map[string]string{"wroteOffset": "0", "queueId": "1", "queueOffset": "0", "msgSize": "137",
		"file": "commitlog/00000000000000000000"}, byLabel["DefaultAppendMessageCallback#doAppend"])
	require.Equal(t, map[string]string{"file": "commitlog/00000000000000000000", "currentPos": "0", "fileSize": "4096"},
		byLabel["MappedFile#appendMessagesInner"])
	require.Equal(t, map[string]string{"topic": "TopicTest", "queueId": "1", "cqOffset": "0", "commitLogOffset": "0",
		"size": "137", "tagsCode": "2598919", "file": "consumequeue/TopicTest/1/00000000000000000000"},
		byLabel["ConsumeQueue#putMessagePositionInfo"])
	require.Equal(t, "FOUND", byLabel["DefaultMessageStore#getMessage"]["status"])
	require.Equal(t, "1", byLabel["DefaultMessageStore#getMessage"]["nextBeginOffset"])
	require.Equal(t, "137", steps[len(steps)-1].Attrs["processOffset"])
	require.Equal(t, "commitlog/00000000000000000000", steps[len(steps)-1].Attrs["startFile"])
	for _, st := range steps {
		for k, v := range st.Attrs {
			require.NotContains(t, v, dir, "%s %s holds a temp path", st.Label, k)
		}
	}
}

// TestTraceReputRun: the service's run step appears only on passes that dispatch.
func TestTraceReputRun(t *testing.T) {
	rec := trace.NewRecorder()
	cfg := smallConfig(t.TempDir())
	cfg.ManualServices = false
	var a arrivals
	s := openStore(t, cfg, &a, rec.Tracer("b"))
	put(t, s, newMsg("T", 0, "x", ""))
	require.Eventually(t, func() bool { return a.n.Load() == 1 }, 5e9, 1e6)
	runs := 0
	for _, l := range rec.Labels() {
		if l == "ReputMessageService#run" {
			runs++
		}
	}
	require.Equal(t, 1, runs, "idle passes log nothing")
}
