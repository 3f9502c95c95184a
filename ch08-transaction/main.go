// Command ch08-transaction is chapter 8 of the annotated text: transactional messages
// (事务的实现原理), a two-phase commit on top of the store — the half message, the op queue
// that records decisions, and the check-back that asks a producer about a transaction left
// undecided.
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  0. a name server and broker-a, TopicTest with 2 queues; a TransactionMQProducer of group
//     ch08_tx_producer_group knows the route and has sent its heartbeat (not traced);
//  1. transaction 1: the half message is stored in RMQ_SYS_TRANS_HALF_TOPIC, the local
//     transaction answers COMMIT_MESSAGE, END_TRANSACTION copies it to TopicTest and records an
//     op message;
//  2. transaction 2: ROLLBACK_MESSAGE — only the op message;
//  3. transaction 3: UNKNOW — the broker writes nothing and waits;
//  4. +7 s (past transactionTimeOut, 6 s) one pass of the check service: the decided halves
//     are skipped, the third is put back and its producer asked; the check-back answers
//     COMMIT_MESSAGE and END_TRANSACTION (fromTransactionCheck=true) commits it.
//
// Nothing runs behind the scenario's back: the store runs with ManualServices (so the check
// service's loop does not run either) and one manual clock, the producer's instance runs no
// scheduled task, and the scenario calls the loop bodies (DoReput, OnWaitEnd) itself, waiting
// for each one-way END_TRANSACTION to land before the next step, so the output is the same every
// run. `go test ./ch08-transaction` compares it with the chapter's golden file.
//
// Run: go run ./ch08-transaction
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("ch08-transaction", run) }

// config is what a run may vary.
type config struct {
	// Dir receives the broker's store; "" makes a temp dir removed at the end.
	Dir string
	// TransactionCheckMax, when > 0, replaces the broker's transactionCheckMax (15).
	TransactionCheckMax int
}

const (
	topicName     = "TopicTest"
	producerGroup = "ch08_tx_producer_group"
)

// epoch is where the one clock (store, broker, producer) starts.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg config) error {
	return mqtest.Play(w, cfg.Dir, "ch08-transaction", false, func(stage *mqtest.Stage) error { return play(stage, cfg) })
}

// answers is a TransactionListener whose answers the scenario sets per message body: the
// local transaction's, then the check-backs' in turn (the last one repeats).
type answers struct {
	local map[string]producer.LocalTransactionState
	check map[string][]producer.LocalTransactionState
	out   io.Writer
}

func (a *answers) ExecuteLocalTransaction(msg *primitive.Message, _ any) producer.LocalTransactionState {
	s := a.local[string(msg.Body)]
	mqtest.Say(a.out, "local transaction of %q: %s", msg.Body, s)
	return s
}

func (a *answers) CheckLocalTransaction(msg *primitive.MessageExt) producer.LocalTransactionState {
	body := string(msg.Body)
	q := a.check[body]
	if len(q) == 0 {
		return producer.Unknown
	}
	s := q[0]
	if len(q) > 1 {
		a.check[body] = q[1:]
	}
	mqtest.Say(a.out, "check-back of %q (topic %s, queue %d): %s", body, msg.Topic, msg.QueueID, s)
	return s
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage, cfg config) error {
	out, gate := stage.Out, stage.Gate
	mqtest.Say(out, "== 0. a name server and broker-a; %s with 2 queues; the transaction producer knows the route (not traced) ==", topicName)
	a := &answers{out: out,
		local: map[string]producer.LocalTransactionState{"order 1": producer.CommitMessage, "order 2": producer.RollbackMessage, "order 3": producer.Unknown},
		check: map[string][]producer.LocalTransactionState{"order 3": {producer.CommitMessage}}}
	sc, err := newScenario(stage, cfg)
	if err != nil {
		return err
	}
	defer func() {
		gate.Close()
		sc.shutdown()
	}()
	p, err := sc.startProducer("ch08-producer", a)
	if err != nil {
		return err
	}
	gate.Open()

	for i, title := range []string{"commit", "rollback", "unknown"} {
		body := fmt.Sprintf("order %d", i+1)
		mqtest.Say(out, "== %d. 事务消息 — transaction %d (%s): half message, local transaction, END_TRANSACTION ==", i+1, i+1, title)
		res, err := sc.sendInTransaction(p, body)
		if err != nil {
			return err
		}
		mqtest.Say(out, "send: status=%s queueId=%d halfQueueOffset=%d state=%s", res.SendStatus, res.MessageQueue.QueueID,
			res.QueueOffset, res.LocalTransactionState)
	}
	sc.printQueues(out)

	mqtest.Say(out, "== 4. 事务回查 — +7 s (transactionTimeOut 6 s): one pass of the check service ==")
	r, err := sc.checkPass(7 * time.Second)
	if err != nil {
		return err
	}
	sc.ops++
	if err := sc.waitOps(sc.ops); err != nil {
		return err
	}
	mqtest.Say(out, "check pass: checked=%d discarded=%d", r.Checked, r.Discarded)
	sc.printQueues(out)
	return nil
}

// scenario holds the cluster and what the steps share.
type scenario struct {
	*mqtest.Scene
	logger    *slog.Logger
	rec       *trace.Recorder // every step, to wait for those of other goroutines
	clk       *clock.Manual
	producers []*producer.TransactionMQProducer
	ends      int // END_TRANSACTION requests the broker has processed so far
	ops       int // op messages the broker has written so far
}

// newScenario starts the cluster (one manual clock, ManualServices, one END_TRANSACTION worker
// so the broker handles them in order) and creates TopicTest.
func newScenario(stage *mqtest.Stage, cfg config) (*scenario, error) {
	rec := trace.NewRecorder()
	logger := slog.New(slog.NewMultiHandler(stage.Logger.Handler(), rec))
	clk := clock.NewManual(epoch)
	scene, err := mqtest.StartScene(mqtest.SceneConfig{
		Cluster: mqtest.OneBroker(stage.Dir, logger, clk, func(bc *broker.BrokerConfig, _ *store.MessageStoreConfig) {
			bc.EndTransactionThreadPoolNums = 1
			if cfg.TransactionCheckMax > 0 {
				bc.TransactionCheckMax = cfg.TransactionCheckMax
			}
		}),
		Topics: []mqtest.Topic{{Name: topicName, Queues: 2}},
	})
	if err != nil {
		return nil, err
	}
	return &scenario{Scene: scene, logger: logger, rec: rec, clk: clk}, nil
}

// startProducer starts a transaction producer of the chapter's group named instance, with
// listener l, that knows TopicTest's route and has sent its heartbeat (so the broker has its
// channel for check-backs); the scenario shuts it down.
func (s *scenario) startProducer(instance string, l producer.TransactionListener) (*producer.TransactionMQProducer, error) {
	pc := mqtest.ProducerConfig(producerGroup, s.Cluster.NamesrvAddr(), instance)
	pc.Options.Logger = s.logger
	pc.Options.Clock = s.clk
	p := producer.NewTransactionMQProducer(pc, l)
	if err := p.Start(); err != nil {
		return nil, err
	}
	s.producers = append(s.producers, p)
	inst := p.MQClientInstance()
	inst.UpdateTopicRouteInfoFromNameServer(topicName)
	inst.SendHeartbeatToAllBrokerWithLock()
	pm := s.Master().ProducerManager()
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return pm.GetAvailableChannel(producerGroup) != nil }); err != nil {
		return nil, errors.New("the broker never saw the producer's heartbeat")
	}
	return p, nil
}

// sendInTransaction sends body in a transaction and waits until the broker has processed its
// one-way END_TRANSACTION (and, for a decision, built the op queue's unit).
func (s *scenario) sendInTransaction(p *producer.TransactionMQProducer, body string) (*producer.TransactionSendResult, error) {
	m := &primitive.Message{Topic: topicName, Body: []byte(body)}
	m.PutProperty(primitive.PropertyTags, "TagA")
	res, err := p.SendMessageInTransaction(context.Background(), m, nil)
	if err != nil {
		return nil, err
	}
	s.ends++
	if err := s.waitEnds(s.ends); err != nil {
		return nil, err
	}
	if res.LocalTransactionState != producer.Unknown {
		s.ops++
		if err := s.waitOps(s.ops); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// waitEnds waits until the broker has logged n END_TRANSACTION steps: the steps carrying
// commitOrRollback (a one-way request has no answer to wait for).
func (s *scenario) waitEnds(n int) error {
	return mqtest.WaitUntil(10*time.Second, func() bool {
		seen := 0
		for _, st := range s.rec.Steps() {
			if _, ok := st.Attrs["commitOrRollback"]; ok && st.Component == "broker-a" {
				seen++
			}
		}
		return seen >= n
	})
}

// waitOps waits until the broker has appended its n-th op message: the n-th step carrying an
// op message's tags and body, then an append step after it (the put's last), and builds the
// ConsumeQueues once. Waiting on the trace, not on the store, keeps the scenario from logging
// anything while the broker still works.
func (s *scenario) waitOps(n int) error {
	if err := mqtest.WaitUntil(10*time.Second, func() bool {
		ops := 0
		for _, st := range s.rec.Steps() {
			if st.Attrs["tags"] == transaction.RemoveTag && st.Attrs["body"] != "" {
				ops++
			} else if _, ok := st.Attrs["wroteOffset"]; ok && ops == n {
				return true
			}
		}
		return false
	}); err != nil {
		return fmt.Errorf("the broker never appended op message %d", n)
	}
	s.Master().MessageStore().DoReput()
	return nil
}

// checkPass moves the clock by d and runs one pass of the check service (its loop body).
func (s *scenario) checkPass(d time.Duration) (transaction.CheckResult, error) {
	s.Master().MessageStore().DoReput()
	s.clk.Advance(d)
	return s.Master().TransactionalMessageCheckService().OnWaitEnd(), nil
}

// queueMessages reads every message of topic's queue, as a consumer's pull would find it.
func (s *scenario) queueMessages(topic string, queueID int32) []*primitive.MessageExt {
	r := s.Master().MessageStore().GetMessage("ch08_reader", topic, queueID, 0, 32, nil)
	var out []*primitive.MessageExt
	for _, rec := range r.Messages {
		if m, _, err := primitive.DecodeMessage(rec); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// printQueues prints what each queue of the story holds.
func (s *scenario) printQueues(w io.Writer) {
	s.Master().MessageStore().DoReput()
	t := mqtest.NewTable(w, "queue", "queueOffset", "body / tags", "sysFlag")
	for _, q := range []struct {
		topic string
		id    int32
	}{{transaction.HalfTopic, 0}, {transaction.OpHalfTopic, 0}, {topicName, 0}, {topicName, 1}} {
		for _, m := range s.queueMessages(q.topic, q.id) {
			what := string(m.Body)
			if q.topic == transaction.OpHalfTopic {
				what = "tag " + m.Tags() + ", half offset " + what
			} else if n := m.GetProperty(primitive.PropertyTransactionCheckTimes); n != "" {
				what += " (check " + n + ")"
			}
			t.Row(fmt.Sprintf("%s-%d", q.topic, q.id), m.QueueOffset, what, m.SysFlag)
		}
	}
	t.Render()
}

func (s *scenario) shutdown() {
	for i := len(s.producers) - 1; i >= 0; i-- {
		s.producers[i].Shutdown()
	}
	s.Scene.Shutdown()
}
