package schedule

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// t0 is the fake store clock's start (ms).
const t0 int64 = 1700000000000

// testLevels gives level n a delay of n seconds.
const testLevels = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 11s 12s 13s 14s 15s 16s 17s 18s"

// env is a started store in a temp dir (4 KiB CommitLog files, services driven by hand, a
// fake clock) and a schedule service over it.
type env struct {
	t     *testing.T
	dir   string
	clock *clock.Manual
	store *store.DefaultMessageStore
	svc   *ScheduleMessageService
	rec   *trace.Recorder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), clock: clock.NewManualMillis(t0), rec: trace.NewRecorder()}
	cfg := store.DefaultMessageStoreConfig()
	cfg.StorePathRootDir = e.dir
	cfg.MappedFileSizeCommitLog = 4096
	cfg.MappedFileSizeConsumeQueue = 20 * store.ConsumeQueueUnitSize
	cfg.MessageDelayLevel = testLevels
	opts := store.Options{ManualServices: true, Clock: e.clock}
	s, err := store.NewDefaultMessageStore(cfg, opts, nil, nil)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	require.NoError(t, s.Start())
	t.Cleanup(s.Shutdown)
	e.store = s
	e.svc = e.newService()
	return e
}

// newService returns a loaded (not started) service over the env's store.
func (e *env) newService() *ScheduleMessageService {
	e.t.Helper()
	svc, err := NewScheduleMessageService(e.store, ConfigFromStore(e.store.Config(), e.store.Options()), e.rec.Tracer("broker-a"))
	require.NoError(e.t, err)
	_, err = svc.Load()
	require.NoError(e.t, err)
	return svc
}

// putDelayed stores body for topic/queueID with DELAY=level and TAGS=tags at the clock's time,
// then dispatches it to the ConsumeQueues.
func (e *env) putDelayed(topic string, queueID int32, level int, body, tags string) {
	e.t.Helper()
	m := &primitive.MessageExtBrokerInner{}
	m.Topic = topic
	m.QueueID = queueID
	m.Body = []byte(body)
	m.Flag = 7
	m.BornTimestamp = t0 - 5
	m.BornHost = "192.168.1.20:52814"
	m.StoreHost = "192.168.1.10:10911"
	m.ReconsumeTimes = 2
	props := map[string]string{primitive.PropertyDelayTimeLevel: strconv.Itoa(level), primitive.PropertyCluster: "DefaultCluster"}
	if tags != "" {
		props[primitive.PropertyTags] = tags
	}
	m.Properties = props
	m.PropertiesString = primitive.MarshalProperties(props)
	r := e.store.PutMessage(m)
	require.Equal(e.t, store.PutOK, r.PutMessageStatus)
	e.store.DoReput()
}

// tagsCapture is a MessageFilter that takes everything and keeps the tagsCodes it saw.
type tagsCapture struct{ codes []int64 }

func (f *tagsCapture) IsMatchedByConsumeQueue(tagsCode int64) bool {
	f.codes = append(f.codes, tagsCode)
	return true
}

// read returns the messages of topic/queueID from offset 0 and their ConsumeQueue tagsCodes.
func (e *env) read(topic string, queueID int32) ([]*primitive.MessageExt, []int64) {
	e.t.Helper()
	e.store.DoReput()
	f := &tagsCapture{}
	res := e.store.GetMessage("g", topic, queueID, 0, 32, f)
	require.NotNil(e.t, res)
	var out []*primitive.MessageExt
	for _, rec := range res.Messages {
		m, _, err := primitive.DecodeMessage(rec)
		require.NoError(e.t, err)
		out = append(out, m)
	}
	return out, f.codes
}

// TestConstants pins the names, paths and timings taken from Java's ScheduleMessageService,
// TopicValidator and StorePathConfigHelper.
func TestConstants(t *testing.T) {
	require.Equal(t, "SCHEDULE_TOPIC_XXXX", ScheduleTopic)
	require.Equal(t, "RMQ_SYS_TRANS_HALF_TOPIC", transHalfTopic)
	require.Equal(t, time.Second, firstDelay)
	require.Equal(t, 100*time.Millisecond, delayForAWhile)
	require.Equal(t, 10*time.Second, persistFirstDelay)
	require.Equal(t, 10*time.Second, defaultFlushPersist)
	require.Equal(t, filepath.Join("/r", "config", "delayOffset.json"), DelayOffsetPath("/r"))
	require.Equal(t, int32(1), QueueID2DelayLevel(0))
	require.Equal(t, int32(17), DelayLevel2QueueID(18))
}

// TestConfigFromStore: the service takes its levels and persist interval from the store's
// config (messageDelayLevel, flushDelayOffsetInterval; store.ParseDelayLevel parses the levels),
// and a level string that does not parse is refused.
func TestConfigFromStore(t *testing.T) {
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = "/r"
	sc.MessageDelayLevel = "1s 2m"
	sc.FlushDelayOffsetInterval = 3 * time.Second
	c := ConfigFromStore(&sc, &store.Options{})
	require.Equal(t, Config{DelayOffsetPath: DelayOffsetPath("/r"), MessageDelayLevel: "1s 2m",
		FlushDelayOffsetInterval: 3 * time.Second}, c)
	s, err := NewScheduleMessageService(nil, c, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{1000, 120000}, s.DelayLevelTable())
	_, err = NewScheduleMessageService(nil, Config{MessageDelayLevel: "1q"}, nil)
	require.Error(t, err, "a level string that does not parse is refused")
}

// TestEncodeDelayOffsets pins fastjson's form of DelayOffsetSerializeWrapper: Integer keys
// unquoted, the file pretty-printed with the map on one line (store-formats.md §7.4).
func TestEncodeDelayOffsets(t *testing.T) {
	table := map[int32]store.QueueOffset{4: 5, 1: 0, 3: 12}
	require.Equal(t, "{\"offsetTable\":{1:0,3:12,4:5}}", string(encodeOffsetTable(table, false)))
	require.Equal(t, "{\n\t\"offsetTable\":{1:0,3:12,4:5\n\t}\n}", string(encodeOffsetTable(table, true)))
	require.Equal(t, "{\n\t\"offsetTable\":{}\n}", string(encodeOffsetTable(nil, true)))
	require.Equal(t, "{\"offsetTable\":{}}", string(encodeOffsetTable(nil, false)))
}

// TestDecodeDelayOffsets reads what Java writes (unquoted keys, pretty or compact) and standard
// JSON (quoted keys); a key that is not an int is an error.
func TestDecodeDelayOffsets(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want map[int32]store.QueueOffset
		bad  bool
	}{
		{name: "fastjson pretty", in: "{\n\t\"offsetTable\":{1:0,2:5\n\t}\n}", want: map[int32]store.QueueOffset{1: 0, 2: 5}},
		{name: "compact", in: `{"offsetTable":{1:0,3:12,4:5}}`, want: map[int32]store.QueueOffset{1: 0, 3: 12, 4: 5}},
		{name: "quoted", in: `{"offsetTable":{"1":7, "18" : 9}}`, want: map[int32]store.QueueOffset{1: 7, 18: 9}},
		{name: "spaces and extra fields", in: `{"x":[1, 2],"offsetTable":{ 2 :3},"y":"a:1"}`, want: map[int32]store.QueueOffset{2: 3}},
		{name: "empty", in: `{"offsetTable":{}}`, want: map[int32]store.QueueOffset{}},
		{name: "not an int", in: `{"offsetTable":{"a":1}}`, bad: true},
		{name: "too big", in: `{"offsetTable":{99999999999:1}}`, bad: true},
		{name: "not json", in: `offsetTable`, bad: true},
	} {
		got, err := decodeOffsetTable([]byte(tc.in))
		if tc.bad {
			require.Error(t, err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

// FuzzDecodeDelayOffsets: whatever is in delayOffset.json, decoding never panics, and what it
// accepts encodes back to something it accepts equally.
func FuzzDecodeDelayOffsets(f *testing.F) {
	f.Add([]byte("{\n\t\"offsetTable\":{1:0,2:5\n\t}\n}"))
	f.Add([]byte(`{"offsetTable":{"1":7}}`))
	f.Add([]byte(`{"a":"\"1:2","offsetTable":{-3:1}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := decodeOffsetTable(in)
		if err != nil {
			return
		}
		again, err := decodeOffsetTable(encodeOffsetTable(got, true))
		require.NoError(t, err)
		require.Equal(t, len(got), len(again))
	})
}

// TestDeliverWhenDue: a message stored with DELAY=2 sits in SCHEDULE_TOPIC_XXXX queue 1 and is
// not delivered 1 ms before store time + 2 s; at that time it is re-put into REAL_TOPIC /
// REAL_QID with body, flag, sysFlag, born and store host, reconsumeTimes copied and the
// tagsCode of its TAGS, keeping the delayed record's properties (DELAY included, as Java's
// messageTimeup does). Java: DeliverDelayedMessageTimerTask#executeOnTimeup, messageTimeup.
func TestDeliverWhenDue(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("TopicA", 3, 2, "hello", "TagA")
	sched, codes := e.read(ScheduleTopic, 1)
	require.Len(t, sched, 1)
	require.Equal(t, []int64{t0 + 2000}, codes, "the CommitLog put wrote the deliver time as tagsCode")

	e.clock.SetMillis(t0 + 1999)
	require.Equal(t, 0, e.svc.DoDeliver())
	got, _ := e.read("TopicA", 3)
	require.Empty(t, got)
	require.Empty(t, e.svc.OffsetTable(), "nothing delivered, no offset recorded")

	e.clock.SetMillis(t0 + 2000)
	require.Equal(t, 1, e.svc.DoDeliver())
	got, codes = e.read("TopicA", 3)
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, "TopicA", m.Topic)
	require.Equal(t, int32(3), m.QueueID)
	require.Equal(t, "hello", string(m.Body))
	require.Equal(t, int32(7), m.Flag)
	require.Equal(t, sched[0].SysFlag, m.SysFlag)
	require.Equal(t, t0-5, m.BornTimestamp)
	require.Equal(t, "192.168.1.20:52814", m.BornHost)
	require.Equal(t, "192.168.1.10:10911", m.StoreHost)
	require.Equal(t, int32(2), m.ReconsumeTimes)
	require.Equal(t, t0+2000, m.StoreTimestamp)
	require.Equal(t, []int64{primitive.TagsString2TagsCode("TagA")}, codes)
	require.Equal(t, map[string]string{
		"TAGS": "TagA", "CLUSTER": "DefaultCluster", "DELAY": "2", "REAL_TOPIC": "TopicA", "REAL_QID": "3",
	}, m.Properties)
	require.Equal(t, map[int32]store.QueueOffset{2: 1}, e.svc.OffsetTable())

	require.Equal(t, 0, e.svc.DoDeliver(), "delivered once only")
	got, _ = e.read("TopicA", 3)
	require.Len(t, got, 1)

	steps := e.rec.Steps()
	require.Len(t, steps, 1)
	require.Equal(t, "ScheduleMessageService#deliverMessage", steps[0].Label)
	require.Equal(t, map[string]string{"delayLevel": "2", "offset": "0", "topic": "TopicA", "queueId": "3",
		"reconsumeTimes": "2"}, steps[0].Attrs)
}

// TestDeliverTimeIsTheStoredTagsCode: the deliver time is read from the ConsumeQueue unit's
// tagsCode, written when the message was parked, not recomputed from the current levels: a
// service whose level 2 is now 60 s still delivers a message parked under a 2 s level 2 s
// after its store time. Java: DeliverDelayedMessageTimerTask#executeOnTimeup (tagsCode from
// the unit, then correctDeliverTimestamp).
func TestDeliverTimeIsTheStoredTagsCode(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("TopicA", 0, 2, "parked", "")
	u, ok := e.store.ReadConsumeQueueUnit(ScheduleTopic, 1, 0)
	require.True(t, ok)
	require.Equal(t, t0+2000, u.TagsCode)
	cfg := ConfigFromStore(e.store.Config(), e.store.Options())
	cfg.MessageDelayLevel = "1s 60s"
	svc, err := NewScheduleMessageService(e.store, cfg, nil)
	require.NoError(t, err)
	e.clock.SetMillis(t0 + 1999)
	require.Equal(t, 0, svc.DoDeliver())
	e.clock.SetMillis(t0 + 2000)
	require.Equal(t, 1, svc.DoDeliver(), "due at the stored deliver time, not at store time + 60 s")
	got, _ := e.read("TopicA", 0)
	require.Len(t, got, 1)
}

// TestDeliverStopsAtFirstNotDue: a level delivers in queue order and stops at the first message
// not yet due, which is tried again later; levels are independent.
func TestDeliverStopsAtFirstNotDue(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("T", 0, 3, "a", "")
	e.clock.SetMillis(t0 + 500)
	e.putDelayed("T", 0, 3, "b", "")
	e.putDelayed("T", 1, 1, "c", "")

	e.clock.SetMillis(t0 + 3000)
	require.Equal(t, 2, e.svc.DoDeliver(), "a (level 3) and c (level 1)")
	require.Equal(t, map[int32]store.QueueOffset{1: 1, 3: 1}, e.svc.OffsetTable())
	e.clock.SetMillis(t0 + 3499)
	require.Equal(t, 0, e.svc.DoDeliver())
	e.clock.SetMillis(t0 + 3500)
	require.Equal(t, 1, e.svc.DoDeliver())
	got, _ := e.read("T", 0)
	require.Len(t, got, 2)
	require.Equal(t, "a", string(got[0].Body))
	require.Equal(t, "b", string(got[1].Body))
	require.Equal(t, map[int32]store.QueueOffset{1: 1, 3: 2}, e.svc.OffsetTable())
}

// TestDeliverCorrectsFutureDeliverTime: a deliver time further ahead than the level's delay
// (the clock went back) is delivered at once. Java: correctDeliverTimestamp.
func TestDeliverCorrectsFutureDeliverTime(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("T", 0, 5, "x", "")
	e.clock.SetMillis(t0 - 1) // deliver time t0+5000 > now + 5000
	require.Equal(t, 1, e.svc.DoDeliver())
	got, _ := e.read("T", 0)
	require.Len(t, got, 1)

	e2 := newEnv(t)
	e2.putDelayed("T", 0, 5, "y", "")
	e2.clock.SetMillis(t0) // exactly now + delay: not corrected, not due
	require.Equal(t, 0, e2.svc.DoDeliver())
}

// TestDeliverDiscardsHalfTopicAndBrokenMessages: a delayed message whose REAL_TOPIC is the
// transaction half topic is never delivered (Java logs "[BUG]" and skips it); one whose REAL_QID
// is not a number is skipped too; the level's offset moves past both.
func TestDeliverDiscardsHalfTopicAndBrokenMessages(t *testing.T) {
	e := newEnv(t)
	e.putDelayed(transHalfTopic, 0, 1, "half", "")
	m := &primitive.MessageExtBrokerInner{}
	m.Topic, m.QueueID, m.Body = ScheduleTopic, 0, []byte("broken")
	m.BornHost, m.StoreHost = "192.168.1.20:52814", "192.168.1.10:10911"
	m.Properties = map[string]string{"REAL_TOPIC": "T", "REAL_QID": "x"}
	m.PropertiesString = primitive.MarshalProperties(m.Properties)
	m.TagsCode = t0 + 1000
	require.Equal(t, store.PutOK, e.store.PutMessage(m).PutMessageStatus)
	e.putDelayed("T", 0, 1, "good", "")

	e.clock.SetMillis(t0 + 1000)
	require.Equal(t, 1, e.svc.DoDeliver())
	half, _ := e.read(transHalfTopic, 0)
	require.Empty(t, half)
	got, _ := e.read("T", 0)
	require.Len(t, got, 1)
	require.Equal(t, "good", string(got[0].Body))
	require.Equal(t, map[int32]store.QueueOffset{1: 3}, e.svc.OffsetTable())
}

// TestPersistAndLoad: delayOffset.json holds the level's next offset in fastjson's form; a new
// service over the same store loads it and delivers nothing twice.
// Java: ConfigManager#persist / #load of ScheduleMessageService.
func TestPersistAndLoad(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("T", 0, 2, "x", "")
	e.clock.SetMillis(t0 + 2000)
	require.Equal(t, 1, e.svc.DoDeliver())
	require.NoError(t, e.svc.Persist())
	path := DelayOffsetPath(e.dir)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"offsetTable\":{2:1\n\t}\n}", string(data))

	again := e.newService()
	require.Equal(t, map[int32]store.QueueOffset{2: 1}, again.OffsetTable())
	require.Equal(t, 0, again.DoDeliver())
	got, _ := e.read("T", 0)
	require.Len(t, got, 1)
	require.Equal(t, `{"offsetTable":{2:1}}`, string(again.Encode(false)))
}

// TestLoadCorrectsOffsets: loaded offsets outside their queue's [min, max] are moved into it;
// a Java-written file with quoted keys loads too. Java: ScheduleMessageService#correctDelayOffset.
func TestLoadCorrectsOffsets(t *testing.T) {
	e := newEnv(t)
	e.putDelayed("T", 0, 2, "x", "")
	require.NoError(t, os.MkdirAll(filepath.Join(e.dir, "config"), 0o755))
	require.NoError(t, os.WriteFile(DelayOffsetPath(e.dir), []byte(`{"offsetTable":{"2":7,"3":-4,"40":3}}`), 0o644))
	svc, err := NewScheduleMessageService(e.store, ConfigFromStore(e.store.Config(), e.store.Options()), nil)
	require.NoError(t, err)
	used, err := svc.Load()
	require.NoError(t, err)
	require.Equal(t, DelayOffsetPath(e.dir), used)
	require.Equal(t, map[int32]store.QueueOffset{2: 1, 3: 0, 40: 3}, svc.OffsetTable(), "unknown levels are kept as loaded")
}

// TestLoadRefusesCorruptFile: a delayOffset.json that does not decode, with no .bak, is an
// error naming the file; with a good .bak, the .bak is used.
func TestLoadRefusesCorruptFile(t *testing.T) {
	e := newEnv(t)
	path := DelayOffsetPath(e.dir)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("{broken"), 0o644))
	svc, err := NewScheduleMessageService(e.store, ConfigFromStore(e.store.Config(), e.store.Options()), nil)
	require.NoError(t, err)
	_, err = svc.Load()
	require.ErrorContains(t, err, "delayOffset.json")

	require.NoError(t, os.WriteFile(path+".bak", []byte(`{"offsetTable":{1:0}}`), 0o644))
	svc, err = NewScheduleMessageService(e.store, ConfigFromStore(e.store.Config(), e.store.Options()), nil)
	require.NoError(t, err)
	used, err := svc.Load()
	require.NoError(t, err)
	require.Equal(t, path+".bak", used)
	require.Equal(t, map[int32]store.QueueOffset{1: 0}, svc.OffsetTable())
}

// TestLifeCycle: Start needs Load; Shutdown is idempotent and persists only a started service.
func TestLifeCycle(t *testing.T) {
	e := newEnv(t)
	fresh, err := NewScheduleMessageService(e.store, ConfigFromStore(e.store.Config(), e.store.Options()), nil)
	require.NoError(t, err)
	require.ErrorIs(t, fresh.Start(), ErrState)
	fresh.Shutdown()
	_, err = os.Stat(DelayOffsetPath(e.dir))
	require.True(t, os.IsNotExist(err), "never started: nothing written")

	cfg := ConfigFromStore(e.store.Config(), e.store.Options())
	require.True(t, cfg.ManualServices)
	require.NoError(t, e.svc.Start())
	require.ErrorIs(t, e.svc.Start(), ErrState)
	_, err = e.svc.Load()
	require.ErrorIs(t, err, ErrState)
	e.svc.Shutdown()
	e.svc.Shutdown()
	data, err := os.ReadFile(DelayOffsetPath(e.dir))
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"offsetTable\":{}\n}", string(data))
}

// TestServiceLoopDeliversAndPersists: started without ManualServices, the loop delivers a due
// message by itself (first pass after 1 s) and the persist loop writes delayOffset.json every
// flushDelayOffsetInterval; Shutdown stops both and writes the file once more.
func TestServiceLoopDeliversAndPersists(t *testing.T) {
	e := newEnv(t)
	cfg := ConfigFromStore(e.store.Config(), e.store.Options())
	cfg.ManualServices = false
	cfg.FlushDelayOffsetInterval = 20 * time.Millisecond
	svc, err := NewScheduleMessageService(e.store, cfg, nil)
	require.NoError(t, err)
	_, err = svc.Load()
	require.NoError(t, err)
	e.putDelayed("T", 0, 1, "x", "")
	e.clock.SetMillis(t0 + 1000)
	require.NoError(t, svc.Start())
	require.Eventually(t, func() bool { return svc.OffsetTable()[1] == 1 }, 5*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(DelayOffsetPath(e.dir))
		return err == nil && string(data) == "{\n\t\"offsetTable\":{1:1\n\t}\n}"
	}, 5*time.Second, 10*time.Millisecond)
	svc.Shutdown()
	got, _ := e.read("T", 0)
	require.Len(t, got, 1)
}
