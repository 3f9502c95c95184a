package main

import (
	"context"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// newTestEnv is the chapter's setup without its log: a name server, the store clock at epoch.
func newTestEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(io.Discard, nil, t.TempDir())
	e.Servers = mqtest.MustStartServers(t, e.dir)
	return e
}

// servicesOn lets the store run its own flush services on the wall clock.
func servicesOn(sc storeSetup) {
	sc.ManualServices = false
	sc.Clock = nil
}

// brokerWithTopic starts a broker (adjusted) with topic on one queue and a producer for it.
func brokerWithTopic(t *testing.T, e *env, name, topic string, adjust func(storeSetup)) (*broker.BrokerController, *producer.DefaultMQProducer) {
	t.Helper()
	b, err := e.startBroker(name, adjust)
	require.NoError(t, err)
	require.NoError(t, e.createTopic(b, topic, 1))
	p, err := e.startProducer("p-"+name, -1)
	require.NoError(t, err)
	return b, p
}

// recordEnd is the CommitLog offset (bytes) just past the record a send result names.
func recordEnd(t *testing.T, ms *store.DefaultMessageStore, r *producer.SendResult) store.CommitLogOffset {
	t.Helper()
	_, phy, err := primitive.DecodeOffsetMsgID(r.OffsetMsgID)
	require.NoError(t, err)
	rec, ok := ms.SelectOneMessageByOffset(store.CommitLogOffset(phy))
	require.True(t, ok)
	return store.CommitLogOffset(phy + int64(len(rec)))
}

// TestExercise1_SyncFlushSendReturnsAfterItsRecordIsFlushed asks: under SYNC_FLUSH, when does
// the producer get its answer? It proves that the answer waits for the flush: while the put's
// GroupCommitRequest sits in requestsWrite the send has no answer and flushedWhere is below the
// record; after one GroupCommitService pass the answer is SEND_OK and flushedWhere has passed
// the record's end. With the services running, every answered send finds flushedWhere past its
// record. Java: CommitLog#submitFlushRequest, GroupCommitRequest#wakeupCustomer.
func TestExercise1_SyncFlushSendReturnsAfterItsRecordIsFlushed(t *testing.T) {
	e := newTestEnv(t)
	b, p := brokerWithTopic(t, e, "broker-a", syncTopic, func(sc storeSetup) { sc.FlushDiskType = store.SyncFlush })
	ms := b.MessageStore()
	ch := sendAsync(p, syncTopic, "wait for me")
	require.Eventually(t, func() bool { return ms.GroupCommitService().PendingRequests() == 1 }, 10*time.Second, time.Millisecond)
	select {
	case o := <-ch:
		t.Fatalf("answered before the flush: %v %v", o.r, o.err)
	default:
	}
	require.Equal(t, store.CommitLogOffset(0), ms.FlushedWhere())
	ms.GroupCommitService().RunOnce()
	o := <-ch
	require.NoError(t, o.err)
	require.Equal(t, producer.SendOK, o.r.SendStatus)
	require.GreaterOrEqual(t, ms.FlushedWhere(), recordEnd(t, ms, o.r))

	b2, p2 := brokerWithTopic(t, e, "broker-s", "TopicS", func(sc storeSetup) {
		sc.FlushDiskType = store.SyncFlush
		servicesOn(sc)
	})
	for i := 0; i < 20; i++ {
		r, err := p2.Send(context.Background(), &primitive.Message{Topic: "TopicS", Body: []byte(strings.Repeat("s", 100*i+1))})
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, r.SendStatus)
		require.GreaterOrEqual(t, b2.MessageStore().FlushedWhere(), recordEnd(t, b2.MessageStore(), r), "send %d", i)
	}
}

// TestExercise2_ConcurrentSendersShareAGroupCommit asks: why is SYNC_FLUSH not one fdatasync
// per message? It proves group commit: 16 senders sending 25 messages each at the same time
// get all 400 answered SUCCESS by fewer doCommit calls than messages — each doCommit (one
// flush) serves every request that queued while the previous one ran.
// Java: GroupCommitService#swapRequests, #doCommit.
func TestExercise2_ConcurrentSendersShareAGroupCommit(t *testing.T) {
	e := newTestEnv(t)
	b, err := e.startBroker("broker-a", func(sc storeSetup) {
		sc.FlushDiskType = store.SyncFlush
		servicesOn(sc)
	})
	require.NoError(t, err)
	require.NoError(t, e.createTopic(b, syncTopic, 4))
	const senders, each = 16, 25
	var wg sync.WaitGroup
	var ok atomic.Int64
	for g := 0; g < senders; g++ {
		wg.Go(func() {
			c := remoting.NewClient(remoting.ClientConfig{}, nil)
			defer c.Shutdown()
			for i := 0; i < each; i++ {
				h := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: syncTopic, DefaultTopic: protocol.DefaultTopic,
					DefaultTopicQueueNums: 4, QueueID: int32(g % 4), BornTimestamp: time.Now().UnixMilli()}
				resp, err := mqtest.Invoke(c, b.BrokerAddr(), remoting.NewRequest(protocol.SendMessage, protocol.EncodeHeader(&h), []byte("group")))
				if err == nil && resp.Code == protocol.Success {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, int64(senders*each), ok.Load())
	commits := b.MessageStore().GroupCommitService().GroupCommits()
	require.Positive(t, commits)
	require.Less(t, commits, int64(senders*each), "a doCommit serves a group of requests")
	t.Logf("%d sends, %d group commits", senders*each, commits)
}

// TestExercise3_AReaderNeverSeesUncommittedBytes asks: with transientStorePoolEnable, when can
// a consumer read a message the broker already acknowledged? It proves that only committed
// bytes are readable: before CommitRealTimeService commits the write buffer, the CommitLog
// data a reader gets is empty, the reput service dispatches nothing, a pull finds nothing and
// the file holds zeros; after the commit all of it is there. And with the services running, a
// reader walking the CommitLog while producers write only ever finds whole, valid records.
// Java: MappedFile#getReadPosition (committedPosition with a write buffer).
func TestExercise3_AReaderNeverSeesUncommittedBytes(t *testing.T) {
	e := newTestEnv(t)
	pool := func(sc storeSetup) {
		sc.TransientStorePoolEnable = true
		sc.TransientStorePoolSize = 3
	}
	b, p := brokerWithTopic(t, e, "broker-b", asyncTopic, pool)
	ms := b.MessageStore()
	for i := 0; i < 3; i++ {
		r, err := p.Send(context.Background(), &primitive.Message{Topic: asyncTopic, Body: []byte("acknowledged")})
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, r.SendStatus)
	}
	require.Positive(t, ms.MaxWrotePosition())
	_, ok := ms.GetCommitLogData(0)
	require.False(t, ok, "no committed byte to read")
	ms.ReputMessageService().RunOnce()
	require.Equal(t, store.QueueOffset(0), ms.GetMaxOffsetInQueue(asyncTopic, 0))
	g := ms.GetMessage("g", asyncTopic, 0, 0, 32, nil)
	require.Equal(t, 0, g.MessageCount)

	ms.CommitRealTimeService().RunOnce() // the first pass is thorough
	data, ok := ms.GetCommitLogData(0)
	require.True(t, ok)
	require.Equal(t, ms.MaxWrotePosition(), store.CommitLogOffset(data.Size()))
	data.Release()
	ms.ReputMessageService().RunOnce()
	require.Equal(t, store.QueueOffset(3), ms.GetMaxOffsetInQueue(asyncTopic, 0))

	b2, p2 := brokerWithTopic(t, e, "broker-c", "TopicC", func(sc storeSetup) {
		pool(sc)
		servicesOn(sc)
	})
	ms2 := b2.MessageStore()
	stop := make(chan struct{})
	var bad atomic.Value
	var seen atomic.Int64
	var readers sync.WaitGroup
	readers.Go(func() {
		var off int64
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, ok := ms2.GetCommitLogData(store.CommitLogOffset(off))
			if !ok {
				runtime.Gosched()
				continue
			}
			data, i := res.Data, 0
			for i < len(data) {
				if len(data)-i >= 8 && binary.BigEndian.Uint32(data[i+4:]) == primitive.BlankMagicCode {
					i = len(data) // the blank record fills the rest of the file
					break
				}
				m, n, err := primitive.DecodeMessage(data[i:])
				if err != nil {
					bad.Store(err.Error())
					break
				}
				if m.Topic != "TopicC" {
					bad.Store("a record of another topic: " + m.Topic)
				}
				seen.Add(1)
				i += n
			}
			off = res.StartOffset + int64(i)
			res.Release()
			if bad.Load() != nil {
				return
			}
		}
	})
	for i := 0; i < 300; i++ {
		r, err := p2.Send(context.Background(), &primitive.Message{Topic: "TopicC", Body: []byte(strings.Repeat("c", 700))})
		require.NoError(t, err)
		require.Equal(t, producer.SendOK, r.SendStatus)
	}
	require.Eventually(t, func() bool { return seen.Load() == 300 }, 10*time.Second, time.Millisecond)
	close(stop)
	readers.Wait()
	require.Nil(t, bad.Load(), "a reader saw bytes that are not a whole record")
}

// TestExercise4_FlushLeastPagesHoldsBackASmallFlush asks: under ASYNC_FLUSH, what decides
// whether a FlushRealTimeService pass flushes? It proves flushCommitLogLeastPages: a pass with
// fewer than 4 new 4 KiB pages (by page number) flushes nothing, one with 4 flushes them all,
// and the thorough pass, flushCommitLogThoroughInterval (10 s) after the last, flushes any byte.
// Java: FlushRealTimeService#run, MappedFile#isAbleToFlush.
func TestExercise4_FlushLeastPagesHoldsBackASmallFlush(t *testing.T) {
	e := newTestEnv(t)
	b, p := brokerWithTopic(t, e, "broker-a", asyncTopic, func(storeSetup) {})
	ms := b.MessageStore()
	flush := ms.FlushRealTimeService()
	flush.RunOnce() // the first pass is thorough
	send := func(n, size int) {
		for i := 0; i < n; i++ {
			_, err := p.Send(context.Background(), &primitive.Message{Topic: asyncTopic, Body: []byte(strings.Repeat("f", size))})
			require.NoError(t, err)
		}
	}
	send(2, 6000) // 12330 bytes: page 3
	flush.RunOnce()
	require.Equal(t, store.CommitLogOffset(0), ms.FlushedWhere(), "3 pages < flushCommitLogLeastPages")
	send(1, 6000) // page 4
	flush.RunOnce()
	require.Equal(t, ms.GetMaxPhyOffset(), ms.FlushedWhere())
	send(1, 10)
	flush.RunOnce()
	require.Less(t, ms.FlushedWhere(), ms.GetMaxPhyOffset())
	e.clock.Advance(9999 * time.Millisecond)
	flush.RunOnce()
	require.Less(t, ms.FlushedWhere(), ms.GetMaxPhyOffset())
	e.clock.Advance(time.Millisecond)
	flush.RunOnce()
	require.Equal(t, ms.GetMaxPhyOffset(), ms.FlushedWhere(), "the thorough pass flushes any byte")
}

// TestExercise5_AStalledFlushAnswersFlushDiskTimeout asks: what does a SYNC_FLUSH producer get
// when the disk does not answer? It proves that after syncFlushTimeout the FlushDiskWatcher
// completes the put with FLUSH_DISK_TIMEOUT, which the broker answers as code 10 with the
// message's id and queue offset, and the producer returns as SendStatus FLUSH_DISK_TIMEOUT —
// not an error: the message is stored and readable; only its durability is unknown.
// Java: FlushDiskWatcher#run, SendMessageProcessor#handlePutMessageResult,
// MQClientAPIImpl#processSendResponse.
func TestExercise5_AStalledFlushAnswersFlushDiskTimeout(t *testing.T) {
	e := newTestEnv(t)
	release := make(chan struct{})
	var stalled atomic.Bool
	b, p := brokerWithTopic(t, e, "broker-a", syncTopic, func(sc storeSetup) {
		sc.FlushDiskType = store.SyncFlush
		servicesOn(sc)
		sc.SyncFlushTimeout = 200 * time.Millisecond
		sc.Events.BeforeFlush = func(file string) {
			if stalled.Load() && strings.HasPrefix(file, "commitlog/") {
				<-release
			}
		}
	})
	defer close(release)
	stalled.Store(true)
	r, err := p.Send(context.Background(), &primitive.Message{Topic: syncTopic, Body: []byte("stalled")})
	require.NoError(t, err)
	require.Equal(t, producer.FlushDiskTimeout, r.SendStatus)
	require.Equal(t, int64(0), r.QueueOffset)
	_, phy, err := primitive.DecodeOffsetMsgID(r.OffsetMsgID)
	require.NoError(t, err)
	m, err := b.MessageStore().LookMessageByOffset(store.CommitLogOffset(phy))
	require.NoError(t, err)
	require.Equal(t, "stalled", string(m.Body))
	require.Less(t, b.MessageStore().FlushedWhere(), recordEnd(t, b.MessageStore(), r))
	stalled.Store(false)
}

// TestExercise6_WaitFalseDoesNotWaitForTheDisk asks: can a producer opt out of waiting under
// SYNC_FLUSH? It proves the WAIT property: a message with WAIT=false is answered SEND_OK at
// once, with no GroupCommitRequest queued and its record not yet flushed; the service's next
// pass flushes it all the same. Java: CommitLog#submitFlushRequest (isWaitStoreMsgOK).
func TestExercise6_WaitFalseDoesNotWaitForTheDisk(t *testing.T) {
	e := newTestEnv(t)
	b, p := brokerWithTopic(t, e, "broker-a", syncTopic, func(sc storeSetup) { sc.FlushDiskType = store.SyncFlush })
	ms := b.MessageStore()
	msg := &primitive.Message{Topic: syncTopic, Body: []byte("no wait")}
	msg.PutProperty(primitive.PropertyWaitStoreMsgOK, "false")
	r, err := p.Send(context.Background(), msg)
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, r.SendStatus)
	require.Equal(t, 0, ms.GroupCommitService().PendingRequests())
	end := recordEnd(t, ms, r)
	require.Less(t, ms.FlushedWhere(), end, "answered before its record reached the disk")
	ms.GroupCommitService().RunOnce()
	require.Equal(t, end, ms.FlushedWhere())
}
