package transaction

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// t0 is the fake clock's start (ms).
const t0 int64 = 1700000000000

// offsets is an in-memory OffsetStore.
type offsets struct {
	mu sync.Mutex
	m  map[string]store.QueueOffset
}

func (o *offsets) key(group, topic string, q int32) string {
	return group + "@" + topic + "@" + strconv.Itoa(int(q))
}

func (o *offsets) QueryOffset(group, topic string, q int32) store.QueueOffset {
	o.mu.Lock()
	defer o.mu.Unlock()
	if v, ok := o.m[o.key(group, topic, q)]; ok {
		return v
	}
	return -1
}

func (o *offsets) CommitOffset(_, group, topic string, q int32, off store.QueueOffset) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.m[o.key(group, topic, q)] = off
}

// checked is one CHECK_TRANSACTION_STATE the fake client was asked to send.
type checked struct {
	group string
	h     CheckTransactionStateHeader
	msg   primitive.MessageExt
}

// fakeClient is a Broker2Client that records the checks; the group has a live channel unless
// noChannel.
type fakeClient struct {
	noChannel bool
	checks    []checked
}

func (f *fakeClient) GetAvailableChannel(string) *remoting.Channel {
	if f.noChannel {
		return nil
	}
	return &remoting.Channel{} // never used: CheckProducerTransactionState is faked too
}

func (f *fakeClient) CheckProducerTransactionState(group string, _ *remoting.Channel, h CheckTransactionStateHeader, m *primitive.MessageExt) error {
	f.checks = append(f.checks, checked{group, h, *m})
	return nil
}

// env is a started store (ManualServices, a manual clock) with the transaction parts over it.
type env struct {
	t       *testing.T
	clock   *clock.Manual
	store   *store.DefaultMessageStore
	offsets *offsets
	client  *fakeClient
	svc     *TransactionalMessageServiceImpl
	check   *TransactionalMessageCheckService
	topics  []string // CreateSystemTopic calls
}

func newEnv(t *testing.T, checkMax int) *env {
	t.Helper()
	e := &env{t: t, clock: clock.NewManualMillis(t0), offsets: &offsets{m: map[string]store.QueueOffset{}}, client: &fakeClient{}}
	cfg := store.DefaultMessageStoreConfig()
	cfg.StorePathRootDir = t.TempDir()
	cfg.MappedFileSizeCommitLog = 64 << 10
	cfg.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	s, err := store.NewDefaultMessageStore(cfg, store.Options{ManualServices: true, Clock: e.clock}, nil, nil)
	require.NoError(t, err)
	require.NoError(t, s.Load())
	require.NoError(t, s.Start())
	t.Cleanup(s.Shutdown)
	e.store = s
	bridge := NewTransactionalMessageBridge(Deps{Store: s, Offsets: e.offsets, StoreHost: func() string { return "127.0.0.1:10911" },
		CreateSystemTopic: func(topic string, _ int32) { e.topics = append(e.topics, topic) },
		Tracer:            trace.NewRecorder().Tracer("broker-a")})
	e.svc = NewTransactionalMessageServiceImpl(bridge, 72*time.Hour)
	e.check = NewTransactionalMessageCheckService(CheckConfig{TransactionTimeOut: 6 * time.Second, TransactionCheckMax: checkMax,
		TransactionCheckInterval: time.Minute}, e.svc, NewAbstractTransactionalMessageCheckListener(bridge, e.client))
	return e
}

// prepare stores a half message of body for TxTopic queue 2, born now, with extra properties.
func (e *env) prepare(body string, extra map[string]string) *primitive.MessageExt {
	e.t.Helper()
	m := &primitive.MessageExtBrokerInner{}
	m.Topic = "TxTopic"
	m.QueueID = 2
	m.Body = []byte(body)
	m.SysFlag = primitive.TransactionPreparedType
	m.BornTimestamp = clock.Millis(e.clock)
	m.BornHost = "127.0.0.1:50000"
	m.StoreHost = "127.0.0.1:10911"
	m.Properties = map[string]string{primitive.PropertyTransactionPrepared: "true", primitive.PropertyProducerGroup: "pg",
		primitive.PropertyUniqClientMessageIDKeyIdx: "UNIQ-" + body}
	for k, v := range extra {
		m.Properties[k] = v
	}
	r := <-e.svc.AsyncPrepareMessage(m)
	require.Equal(e.t, store.PutOK, r.PutMessageStatus)
	e.store.DoReput()
	half, err := e.svc.CommitMessage(r.AppendMessageResult.WroteOffset)
	require.NoError(e.t, err)
	return half
}

// pass moves the clock by d and runs one check pass.
func (e *env) pass(d time.Duration) CheckResult {
	e.clock.Advance(d)
	r := e.check.OnWaitEnd()
	e.store.DoReput()
	return r
}

func (e *env) offset(topic string) store.QueueOffset {
	return e.offsets.QueryOffset(SysGroup, topic, 0)
}

func (e *env) count(topic string) store.QueueOffset { return e.store.GetMaxOffsetInQueue(topic, 0) }

// TestPrepareAndDelete pins parseHalfMessageInner and putOpMessage: the half message is in
// RMQ_SYS_TRANS_HALF_TOPIC queue 0 with its destination kept and a NOT_TYPE sysFlag; deleting
// it writes an op message tagged "d" whose body is the half queue offset. A CommitLog offset
// that holds no half message is ErrHalfMessageNotFound.
func TestPrepareAndDelete(t *testing.T) {
	e := newEnv(t, 15)
	e.prepare("a", nil)
	half := e.prepare("b", nil)
	require.Equal(t, HalfTopic, half.Topic)
	require.Equal(t, int32(0), half.QueueID)
	require.Equal(t, int64(1), half.QueueOffset)
	require.Equal(t, "TxTopic", half.GetProperty(primitive.PropertyRealTopic))
	require.Equal(t, "2", half.GetProperty(primitive.PropertyRealQueueID))
	require.Equal(t, primitive.TransactionNotType, primitive.GetTransactionValue(half.SysFlag))
	require.True(t, e.svc.DeletePrepareMessage(half))
	e.store.DoReput()
	r := e.store.GetMessage("t", OpHalfTopic, 0, 0, 1, nil)
	require.Len(t, r.Messages, 1)
	op, _, err := primitive.DecodeMessage(r.Messages[0])
	require.NoError(t, err)
	require.Equal(t, RemoveTag, op.Tags())
	require.Equal(t, "1", string(op.Body))
	require.Equal(t, primitive.TagsString2TagsCode(RemoveTag), int64(100), "tag d hashes to 100")

	_, err = e.svc.RollbackMessage(store.CommitLogOffset(op.CommitLogOffset))
	require.ErrorIs(t, err, ErrHalfMessageNotFound, "an op message is not a half message")
	_, err = e.svc.CommitMessage(1 << 40)
	require.ErrorIs(t, err, ErrHalfMessageNotFound)
}

// TestCheckSkipsDecidedAndWaitsForTimeout pins TransactionalMessageServiceImpl#check: a
// decided half (op message) is passed over and its op offset is done; an undecided one younger
// than transactionTimeOut stops the pass; once older, each undecided half is put back with
// TRANSACTION_CHECK_TIMES=1 and its producer asked about the new copy, under the real topic.
func TestCheckSkipsDecidedAndWaitsForTimeout(t *testing.T) {
	e := newEnv(t, 15)
	decided := e.prepare("decided", nil)
	e.prepare("open-1", nil)
	e.prepare("open-2", nil)
	require.True(t, e.svc.DeletePrepareMessage(decided))
	e.store.DoReput()

	require.Equal(t, CheckResult{}, e.pass(time.Second))
	require.Equal(t, store.QueueOffset(1), e.offset(HalfTopic), "past the decided half, stopped at the young one")
	require.Equal(t, store.QueueOffset(1), e.offset(OpHalfTopic), "the op message is matched")
	require.Empty(t, e.client.checks)

	require.Equal(t, CheckResult{Checked: 2}, e.pass(6*time.Second))
	require.Equal(t, store.QueueOffset(3), e.offset(HalfTopic))
	require.Equal(t, store.QueueOffset(5), e.count(HalfTopic), "two copies put back")
	require.Len(t, e.client.checks, 2)
	for i, c := range e.client.checks {
		require.Equal(t, "pg", c.group)
		require.Equal(t, store.QueueOffset(3+i), c.h.TranStateTableOffset, "the check names the new copy")
		require.Equal(t, "TxTopic", c.msg.Topic)
		require.Equal(t, int32(2), c.msg.QueueID)
		require.Equal(t, "1", c.msg.GetProperty(primitive.PropertyTransactionCheckTimes))
		require.Equal(t, c.h.MsgID, c.msg.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx))
		require.Equal(t, c.h.MsgID, c.h.TransactionID)
	}
}

// TestCheckImmunity: with CHECK_IMMUNITY_TIME_IN_SECONDS the half is not checked before that
// time even past transactionTimeOut; each pass puts it back with TRAN_PREPARED_QUEUE_OFFSET =
// its first queue offset. An op message for that first offset lies below the half queue's offset
// by then, so fillOpRemoveMap counts it done (the op offset moves) without matching the copy,
// which is put back again until its immunity ends — Java's behaviour, pinned here.
func TestCheckImmunity(t *testing.T) {
	e := newEnv(t, 15)
	half := e.prepare("immune", map[string]string{primitive.PropertyCheckImmunityTimeInSeconds: "60"})
	require.Equal(t, CheckResult{}, e.pass(7*time.Second))
	require.Empty(t, e.client.checks)
	require.Equal(t, store.QueueOffset(2), e.count(HalfTopic), "put back once")
	require.Equal(t, store.QueueOffset(1), e.offset(HalfTopic))
	r := e.store.GetMessage("t", HalfTopic, 0, 1, 1, nil)
	cp, _, err := primitive.DecodeMessage(r.Messages[0])
	require.NoError(t, err)
	require.Equal(t, "0", cp.GetProperty(primitive.PropertyTransactionPreparedQueueOffset))

	require.True(t, e.svc.DeletePrepareMessage(half)) // the producer ends the first copy
	e.store.DoReput()
	require.Equal(t, CheckResult{}, e.pass(time.Second))
	require.Equal(t, store.QueueOffset(1), e.offset(OpHalfTopic), "the op message below the half offset is done")
	require.Equal(t, store.QueueOffset(3), e.count(HalfTopic), "the immune copy is put back again")
	require.Empty(t, e.client.checks, "and still not checked")
}

// TestCheckDiscardsAfterCheckMax: a half checked transactionCheckMax times is put into
// TRANS_CHECK_MAX_TIME_TOPIC (its topic config created) by the next pass, and never asked about
// again. Without a live producer channel the check is dropped, but still counted.
func TestCheckDiscardsAfterCheckMax(t *testing.T) {
	e := newEnv(t, 2)
	e.client.noChannel = true
	e.prepare("forgotten", nil)
	require.Equal(t, CheckResult{Checked: 1}, e.pass(7*time.Second))
	require.Equal(t, CheckResult{Checked: 1}, e.pass(time.Second))
	require.Equal(t, CheckResult{Discarded: 1}, e.pass(time.Second))
	require.Equal(t, CheckResult{}, e.pass(time.Second))
	require.Empty(t, e.client.checks, "no channel: nothing sent")
	require.Equal(t, []string{CheckMaxTimeTopic}, e.topics)
	r := e.store.GetMessage("t", CheckMaxTimeTopic, 0, 0, 4, nil)
	require.Len(t, r.Messages, 1)
	m, _, err := primitive.DecodeMessage(r.Messages[0])
	require.NoError(t, err)
	require.Equal(t, "forgotten", string(m.Body))
	require.Equal(t, "2", m.GetProperty(primitive.PropertyTransactionCheckTimes))
}

// TestCalculateOpOffset pins TransactionalMessageServiceImpl#calculateOpOffset: the op offset
// moves over the run of done op offsets that starts at it, whatever their order.
func TestCalculateOpOffset(t *testing.T) {
	for _, c := range []struct {
		done []store.QueueOffset
		old  store.QueueOffset
		want store.QueueOffset
	}{
		{nil, 5, 5},
		{[]store.QueueOffset{5, 6, 7}, 5, 8},
		{[]store.QueueOffset{7, 5, 6}, 5, 8},
		{[]store.QueueOffset{5, 7}, 5, 6},
		{[]store.QueueOffset{6, 7}, 5, 5},
	} {
		require.Equal(t, c.want, calculateOpOffset(c.done, c.old), "%v from %d", c.done, c.old)
	}
}

// TestImmunityTime pins TransactionalMessageServiceImpl#getImmunityTime:
// CHECK_IMMUNITY_TIME_IN_SECONDS in ms; a value that does not parse, or -1, is transactionTimeOut.
func TestImmunityTime(t *testing.T) {
	const timeout = 6000
	for _, c := range []struct {
		v    string
		want int64
	}{
		{"60", 60000}, {"0", 0}, {"-1", timeout}, {"soon", timeout}, {"", timeout}, {"1.5", timeout},
	} {
		require.Equal(t, c.want, immunityTime(c.v, timeout), "%q", c.v)
	}
}

// TestDecidedTransactions pins the memory of decisions (a Deviation, see decidedTransactions):
// a transaction is claimed once, whichever copy of its half message names it (they share
// UNIQ_KEY); without UNIQ_KEY only the same CommitLog offset is the same transaction; a claim
// settled as not stored may be claimed again; the oldest decision is forgotten when the memory
// is full.
func TestDecidedTransactions(t *testing.T) {
	d := newDecidedTransactions(2)
	claimStored := func(m *primitive.MessageExt) bool {
		ok := d.claim(m)
		if ok {
			d.settle(m, true)
		}
		return ok
	}
	require.True(t, claimStored(halfOf("A", 0)))
	require.False(t, claimStored(halfOf("A", 0)), "the same half twice")
	require.False(t, claimStored(halfOf("A", 900)), "a put-back copy of the same transaction")
	require.True(t, claimStored(halfOf("", 300)))
	require.False(t, claimStored(halfOf("", 300)))
	require.True(t, claimStored(halfOf("", 600)), "no UNIQ_KEY: another offset is another transaction")
	require.True(t, claimStored(halfOf("A", 0)), "A was the oldest of three in a memory of two: forgotten")
	other := halfOf("A", 0)
	other.Properties[primitive.PropertyProducerGroup] = "another group"
	require.True(t, claimStored(other), "the same UNIQ_KEY in another group is another transaction")
	require.True(t, d.claim(halfOf("B", 0)))
	d.settle(halfOf("B", 0), false)
	require.True(t, claimStored(halfOf("B", 0)), "not stored: may be decided again")
}

// TestDecidedTransactionsWaitForPending: a second END_TRANSACTION for a transaction whose first
// decision is still being stored waits for it; stored, it is refused; not stored, it decides.
func TestDecidedTransactionsWaitForPending(t *testing.T) {
	for _, stored := range []bool{true, false} {
		d := newDecidedTransactions(8)
		require.True(t, d.claim(halfOf("A", 0)))
		got := make(chan bool)
		go func() { got <- d.claim(halfOf("A", 900)) }()
		select {
		case <-got:
			t.Fatal("the second claim did not wait for the pending one")
		case <-time.After(20 * time.Millisecond):
		}
		d.settle(halfOf("A", 0), stored)
		require.Equal(t, !stored, <-got, "first decision stored: %v", stored)
	}
}

// halfOf is a half message of the transaction uniq ("" for none) at a CommitLog offset.
func halfOf(uniq string, off int64) *primitive.MessageExt {
	m := &primitive.MessageExt{CommitLogOffset: off}
	if uniq != "" {
		m.Properties = map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: uniq}
	}
	return m
}

// TestLateAnswerAfterPutBackIsDecidedOnce: the check put a half message back and asked; the
// producer's first END_TRANSACTION (for the original) and its answer to the check-back (for
// the copy) both come. Both copies are half messages of one transaction: the first claim wins,
// the second is refused, so the broker stores one commit.
func TestLateAnswerAfterPutBackIsDecidedOnce(t *testing.T) {
	e := newEnv(t, 15)
	original := e.prepare("slow", nil)
	require.Equal(t, CheckResult{Checked: 1}, e.pass(7*time.Second))
	require.Len(t, e.client.checks, 1)
	cp, err := e.svc.CommitMessage(e.client.checks[0].h.CommitLogOffset)
	require.NoError(t, err)
	require.NotEqual(t, original.QueueOffset, cp.QueueOffset, "the check-back names the copy")
	require.True(t, e.svc.ClaimDecision(cp), "the check-back's answer decides")
	e.svc.SettleDecision(cp, true)
	require.False(t, e.svc.ClaimDecision(original), "the late first answer is the same transaction")
}
