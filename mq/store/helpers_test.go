package store

import (
	"encoding/hex"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
	"github.com/stretchr/testify/require"
)

// The worked example of store-formats.md §2.2.
const (
	exampleBorn  int64 = 1700000000000
	exampleStore int64 = 1700000000007
	exampleProps       = "TAGS\x01TagA\x02CLUSTER\x01DefaultCluster"
)

// storeSetup is what a test builds a store from: RocketMQ's config and the Go options, one
// value so a test can adjust either (cfg.MappedFileSizeCommitLog, cfg.ManualServices).
type storeSetup struct {
	MessageStoreConfig
	Options
}

// newStore builds (not loads) a store from a setup.
func newStore(st storeSetup, l MessageArrivingListener, tr *trace.Tracer) (*DefaultMessageStore, error) {
	return NewDefaultMessageStore(st.MessageStoreConfig, st.Options, l, tr)
}

// mustStart builds, loads and starts a store in a crash test's child process (which has no
// testing.T): any error panics.
func mustStart(st storeSetup) *DefaultMessageStore {
	s, err := newStore(st, nil, nil)
	if err == nil {
		err = s.Load()
	}
	if err == nil {
		err = s.Start()
	}
	if err != nil {
		panic(err)
	}
	return s
}

// putLoop runs b.N puts of m, trimming the CommitLog (timer stopped) every 64 Ki puts.
func putLoop(b *testing.B, s *DefaultMessageStore, m *msgT) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%65536 == 65535 {
			b.StopTimer()
			trimCommitLog(s)
			b.StartTimer()
		}
		if r := s.PutMessage(m); r.PutMessageStatus != PutOK {
			b.Fatal(r.PutMessageStatus)
		}
	}
}

// storeWithOneMessage opens a store in dir, puts one message, dispatches it and stops the store
// with stop ((*DefaultMessageStore).Shutdown or crashStore), then returns the setup so a test
// can damage the files and open it again.
func storeWithOneMessage(t *testing.T, dir string, stop func(*DefaultMessageStore)) storeSetup {
	t.Helper()
	cfg := smallConfig(dir)
	s := openStore(t, cfg, nil, nil)
	put(t, s, newMsg("T", 0, "a", ""))
	s.DoReput()
	stop(s)
	return cfg
}

// crashStore leaves s as a killed process would: no final dispatch, no flush, abort file kept.
func crashStore(s *DefaultMessageStore) {
	s.started = false
	s.Shutdown()
}

// smallConfig is a store in dir with 4 KiB CommitLog files and 20-unit ConsumeQueue files,
// services driven by hand and a fixed clock.
func smallConfig(dir string) storeSetup {
	cfg := storeSetup{MessageStoreConfig: DefaultMessageStoreConfig()}
	cfg.StorePathRootDir = dir
	cfg.MappedFileSizeCommitLog = 4096
	cfg.MappedFileSizeConsumeQueue = 20 * ConsumeQueueUnitSize
	cfg.ManualServices = true
	cfg.Clock = clock.NewManualMillis(exampleStore)
	return cfg
}

// openStore creates, loads and starts a store; it is shut down at the end of the test.
func openStore(t testing.TB, cfg storeSetup, l MessageArrivingListener, tr *trace.Tracer) *DefaultMessageStore {
	t.Helper()
	s, err := newStore(cfg, l, tr)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	require.NoError(t, s.Start())
	t.Cleanup(s.Shutdown)
	return s
}

// newMsg is a message from the worked example's hosts.
func newMsg(topic string, queueID int32, body string, tags string) *primitive.MessageExtBrokerInner {
	m := &primitive.MessageExtBrokerInner{}
	m.Topic = topic
	m.QueueID = queueID
	m.Body = []byte(body)
	m.BornTimestamp = exampleBorn
	m.BornHost = "192.168.1.20:52814"
	m.StoreHost = "192.168.1.10:10911"
	props := map[string]string{"CLUSTER": "DefaultCluster"}
	m.PropertiesString = "CLUSTER\x01DefaultCluster"
	if tags != "" {
		props["TAGS"] = tags
		m.PropertiesString = "TAGS\x01" + tags + "\x02" + m.PropertiesString
	}
	m.Properties = props
	return m
}

func put(t testing.TB, s *DefaultMessageStore, m *primitive.MessageExtBrokerInner) *AppendMessageResult {
	t.Helper()
	r := s.PutMessage(m)
	require.Equal(t, PutOK, r.PutMessageStatus)
	require.NotNil(t, r.AppendMessageResult)
	return r.AppendMessageResult
}

// unhex decodes a fixture written with spaces between fields.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// arrivals records MessageArrivingListener calls.
type arrivals struct {
	mu    sync.Mutex
	calls []arrival
	n     atomic.Int64
}

type arrival struct {
	topic          string
	queueID        int32
	logicOffset    int64
	tagsCode       int64
	storeTimestamp int64
}

func (a *arrivals) Arriving(topic string, queueID int32, logicOffset QueueOffset, tagsCode, storeTimestamp int64) {
	a.mu.Lock()
	a.calls = append(a.calls, arrival{topic, queueID, int64(logicOffset), tagsCode, storeTimestamp})
	a.mu.Unlock()
	a.n.Add(1)
}

// tagFilter matches units whose tagsCode is one of codes.
type tagFilter map[int64]bool

func (f tagFilter) IsMatchedByConsumeQueue(tagsCode int64) bool { return f[tagsCode] }

type msgT = primitive.MessageExtBrokerInner

// decodeRecord decodes one stored record with mq/primitive's decoder.
func decodeRecord(b []byte) (*primitive.MessageExt, error) {
	m, _, err := primitive.DecodeMessage(b)
	return m, err
}
