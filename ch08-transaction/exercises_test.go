package main

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// newExercise starts the chapter's cluster (untraced output) with cfg and one producer whose
// listener answers local for the local transaction and checks for the check-backs.
func newExercise(t *testing.T, cfg config, local producer.LocalTransactionState,
	checks ...producer.LocalTransactionState) (*scenario, *producer.TransactionMQProducer, *answers) {
	t.Helper()
	stage, err := mqtest.NewStage(io.Discard, t.TempDir(), "ch08-", false)
	require.NoError(t, err)
	t.Cleanup(stage.Close)
	sc, err := newScenario(stage, cfg)
	require.NoError(t, err)
	t.Cleanup(sc.shutdown)
	a := &answers{out: io.Discard, local: map[string]producer.LocalTransactionState{"tx": local},
		check: map[string][]producer.LocalTransactionState{"tx": checks}}
	p, err := sc.startProducer("ch08-exercise", a)
	require.NoError(t, err)
	return sc, p, a
}

// visible is every message of TopicTest, as consumers of both queues would pull them.
func (s *scenario) visible() []*primitive.MessageExt {
	s.Master().MessageStore().DoReput()
	return append(s.queueMessages(topicName, 0), s.queueMessages(topicName, 1)...)
}

// TestExercise1_HalfMessageIsInvisible: where is a transaction's message before the producer
// decides? In RMQ_SYS_TRANS_HALF_TOPIC queue 0 only, with its destination in REAL_TOPIC /
// REAL_QID; TopicTest's queues, which consumers pull, hold nothing.
func TestExercise1_HalfMessageIsInvisible(t *testing.T) {
	sc, p, _ := newExercise(t, config{}, producer.Unknown)
	res, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	require.Empty(t, sc.visible())
	half := sc.queueMessages(transaction.HalfTopic, 0)
	require.Len(t, half, 1)
	require.Equal(t, topicName, half[0].GetProperty(primitive.PropertyRealTopic))
	require.Equal(t, fmt.Sprint(res.MessageQueue.QueueID), half[0].GetProperty(primitive.PropertyRealQueueID))
}

// TestExercise2_CommitIsVisibleOnce: what does a commit write? One copy in the real topic and
// the queue the send chose, with the commit sysFlag; a later check pass does not ask or write it
// again, because the op message marks the half as decided.
func TestExercise2_CommitIsVisibleOnce(t *testing.T) {
	sc, p, _ := newExercise(t, config{}, producer.CommitMessage)
	res, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	got := sc.visible()
	require.Len(t, got, 1)
	require.Equal(t, topicName, got[0].Topic)
	require.Equal(t, res.MessageQueue.QueueID, got[0].QueueID)
	require.Equal(t, primitive.TransactionCommitType, primitive.GetTransactionValue(got[0].SysFlag))
	r, err := sc.checkPass(time.Minute)
	require.NoError(t, err)
	require.Equal(t, transaction.CheckResult{}, r, "a decided half is not checked")
	require.Len(t, sc.visible(), 1)
}

// TestExercise3_RollbackIsNeverVisible: does a rolled-back message ever reach a consumer? No:
// only the op message is written, and no later check pass brings it back.
func TestExercise3_RollbackIsNeverVisible(t *testing.T) {
	sc, p, _ := newExercise(t, config{}, producer.RollbackMessage)
	_, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	require.Len(t, sc.queueMessages(transaction.OpHalfTopic, 0), 1)
	for range 3 {
		r, err := sc.checkPass(time.Minute)
		require.NoError(t, err)
		require.Zero(t, r.Checked)
	}
	require.Empty(t, sc.visible())
}

// TestExercise4_UnknownIsCheckedUntilDecided: how long does the broker keep asking? Every pass
// past transactionTimeOut asks once more (TRANSACTION_CHECK_TIMES counts up) while the producer
// answers UNKNOW; once it commits, the message is visible once and no pass asks again.
func TestExercise4_UnknownIsCheckedUntilDecided(t *testing.T) {
	sc, p, _ := newExercise(t, config{}, producer.Unknown, producer.Unknown, producer.Unknown, producer.CommitMessage)
	_, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	r, err := sc.checkPass(time.Second)
	require.NoError(t, err)
	require.Zero(t, r.Checked, "younger than transactionTimeOut (6 s): not asked yet")
	for i := 1; i <= 3; i++ {
		ends := sc.ends
		r, err := sc.checkPass(7 * time.Second)
		require.NoError(t, err)
		require.Equal(t, 1, r.Checked, "pass %d", i)
		sc.ends++
		require.NoError(t, sc.waitEnds(ends+1), "the producer answers pass %d", i)
	}
	sc.ops++
	require.NoError(t, sc.waitOps(sc.ops))
	got := sc.visible()
	require.Len(t, got, 1)
	require.Equal(t, "3", got[0].GetProperty(primitive.PropertyTransactionCheckTimes), "committed on the third check")
	r, err = sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, transaction.CheckResult{}, r)
	require.Len(t, sc.visible(), 1)
}

// TestExercise5_DiscardedAfterCheckMax: what happens to a transaction nobody decides? After
// transactionCheckMax checks the next pass moves it to TRANS_CHECK_MAX_TIME_TOPIC and nobody is
// asked about it again; it never reaches TopicTest.
func TestExercise5_DiscardedAfterCheckMax(t *testing.T) {
	sc, p, _ := newExercise(t, config{TransactionCheckMax: 2}, producer.Unknown)
	_, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	var total transaction.CheckResult
	for range 4 {
		r, err := sc.checkPass(7 * time.Second)
		require.NoError(t, err)
		total.Checked += r.Checked
		total.Discarded += r.Discarded
	}
	require.Equal(t, transaction.CheckResult{Checked: 2, Discarded: 1}, total)
	sc.Master().MessageStore().DoReput()
	discarded := sc.queueMessages(transaction.CheckMaxTimeTopic, 0)
	require.Len(t, discarded, 1)
	require.Equal(t, []byte("tx"), discarded[0].Body)
	require.Empty(t, sc.visible())
}

// TestExercise6_ProducerRestartIsStillAsked: the producer that sent the half message is gone;
// who decides? The check asks any live producer of the same group (PGROUP): a restarted one
// answers, and its commit makes the message visible.
func TestExercise6_ProducerRestartIsStillAsked(t *testing.T) {
	sc, p, _ := newExercise(t, config{}, producer.Unknown)
	_, err := sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	p.Shutdown()
	pm := sc.Master().ProducerManager()
	require.NoError(t, mqtest.WaitUntil(10*time.Second, func() bool { return pm.GetAvailableChannel(producerGroup) == nil }))
	a := &answers{out: io.Discard, check: map[string][]producer.LocalTransactionState{"tx": {producer.CommitMessage}}}
	_, err = sc.startProducer("ch08-restarted", a)
	require.NoError(t, err)
	r, err := sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, r.Checked)
	sc.ops++
	require.NoError(t, sc.waitOps(sc.ops))
	got := sc.visible()
	require.Len(t, got, 1)
	require.Equal(t, []byte("tx"), got[0].Body)
}

// TestExercise7_BrokerRestartResumesTheCheck: the broker stops with a transaction undecided;
// does it forget it? No: the half and op queues are in its store, and the check's two offsets
// are consumer offsets of CID_RMQ_SYS_TRANS in consumerOffset.json, written at shutdown. The
// restarted broker's first pass starts where the last one ended — it asks about the undecided
// copy only, not about the transaction decided before — and the producer's commit then makes the
// message visible once, beside the one committed before the restart.
func TestExercise7_BrokerRestartResumesTheCheck(t *testing.T) {
	sc, p, a := newExercise(t, config{}, producer.Unknown, producer.Unknown, producer.CommitMessage)
	a.local["decided"] = producer.CommitMessage
	_, err := sc.sendInTransaction(p, "decided")
	require.NoError(t, err)
	_, err = sc.sendInTransaction(p, "tx")
	require.NoError(t, err)
	r, err := sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, r.Checked, "the undecided one is put back and asked about")
	sc.ends++
	require.NoError(t, sc.waitEnds(sc.ends), "the producer answers UNKNOW")
	offsets := func() (half, op int64) {
		m := sc.Master().ConsumerOffsetManager()
		return int64(m.QueryOffset(transaction.SysGroup, transaction.HalfTopic, 0)),
			int64(m.QueryOffset(transaction.SysGroup, transaction.OpHalfTopic, 0))
	}
	half, op := offsets()
	require.Equal(t, []int64{2, 1}, []int64{half, op}, "past the decided half and its op message, at the copy")

	sc.Cluster.StopMaster(0)
	_, err = sc.Cluster.StartMaster(0)
	require.NoError(t, err)
	half, op = offsets()
	require.Equal(t, []int64{2, 1}, []int64{half, op}, "the restarted broker loaded the check's offsets")
	inst := p.MQClientInstance()
	inst.UpdateTopicRouteInfoFromNameServer(topicName) // the restarted broker listens on a new port
	inst.SendHeartbeatToAllBrokerWithLock()
	pm := sc.Master().ProducerManager()
	require.NoError(t, mqtest.WaitUntil(10*time.Second, func() bool { return pm.GetAvailableChannel(producerGroup) != nil }))

	r, err = sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, transaction.CheckResult{Checked: 1}, r, "only the copy is asked about")
	sc.ops++
	require.NoError(t, sc.waitOps(sc.ops), "the producer commits it")
	var bodies []string
	for _, m := range sc.visible() {
		bodies = append(bodies, string(m.Body))
	}
	require.ElementsMatch(t, []string{"decided", "tx"}, bodies, "each visible once")
	r, err = sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, transaction.CheckResult{}, r, "nothing left to ask")
}

// racingListener runs during inside the local transaction, before it answers.
type racingListener struct {
	*answers
	during func()
}

func (l *racingListener) ExecuteLocalTransaction(msg *primitive.Message, arg any) producer.LocalTransactionState {
	l.during()
	return l.answers.ExecuteLocalTransaction(msg, arg)
}

// TestExercise8_LateCommitRacingTheCheckBackIsStoredOnce: the local transaction takes longer
// than transactionTimeOut, so a check pass puts the half message back and asks before the
// producer has said anything; the producer then commits twice — its own END_TRANSACTION for the
// first copy, its check-back answer for the second. Is the message visible twice? Not here: both
// copies are one transaction (one UNIQ_KEY) and the broker's first decision stands; the second
// writes only its op message (RocketMQ would store both commits). No later pass asks again.
func TestExercise8_LateCommitRacingTheCheckBackIsStoredOnce(t *testing.T) {
	stage, err := mqtest.NewStage(io.Discard, t.TempDir(), "ch08-", false)
	require.NoError(t, err)
	t.Cleanup(stage.Close)
	sc, err := newScenario(stage, config{})
	require.NoError(t, err)
	t.Cleanup(sc.shutdown)
	a := &answers{out: io.Discard, local: map[string]producer.LocalTransactionState{"slow": producer.CommitMessage},
		check: map[string][]producer.LocalTransactionState{"slow": {producer.CommitMessage}}}
	var during transaction.CheckResult
	var passErr error
	l := &racingListener{answers: a, during: func() {
		during, passErr = sc.checkPass(7 * time.Second) // the local transaction outlives transactionTimeOut
	}}
	p, err := sc.startProducer("ch08-slow", l)
	require.NoError(t, err)
	m := &primitive.Message{Topic: topicName, Body: []byte("slow")}
	res, err := p.SendMessageInTransaction(context.Background(), m, nil)
	require.NoError(t, err)
	require.Equal(t, producer.CommitMessage, res.LocalTransactionState)
	require.NoError(t, passErr)
	require.Equal(t, transaction.CheckResult{Checked: 1}, during, "asked while the local transaction ran")
	require.NoError(t, sc.waitEnds(2), "two END_TRANSACTION: the producer's own and its check-back answer")
	require.NoError(t, sc.waitOps(2), "both copies get their op message")
	got := sc.visible()
	require.Len(t, got, 1, "one commit stored")
	require.Equal(t, []byte("slow"), got[0].Body)
	r, err := sc.checkPass(7 * time.Second)
	require.NoError(t, err)
	require.Equal(t, transaction.CheckResult{}, r, "both copies are decided")
}
