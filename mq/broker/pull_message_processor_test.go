package broker

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// createTopic creates topic with n queues through UPDATE_AND_CREATE_TOPIC.
func (tb *testBroker) createTopic(t testing.TB, topic string, n int32) {
	t.Helper()
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: protocol.DefaultTopic, ReadQueueNums: n,
		WriteQueueNums: n, Perm: 6, TopicFilterType: protocol.SingleTag}
	resp := tb.invoke(t, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
}

// startWithTopic starts an untraced test broker and creates topic on it with n queues.
func startWithTopic(t *testing.T, topic string, n int32) *testBroker {
	t.Helper()
	tb := startTestBroker(t, nil)
	tb.createTopic(t, topic, n)
	return tb
}

// TestPullStatusMapping pins PullMessageProcessor's status → code table
// (remoting-protocol.md §4.6): an empty queue at offset 0 and a pull at exactly the max offset
// are 19, the same empty queue at a non-zero offset and a pull beyond the max are 21
// (nextBeginOffset corrected), and every answer carries nextBeginOffset, minOffset and maxOffset.
func TestPullStatusMapping(t *testing.T) {
	tb := startWithTopic(t, "PullTopic", 2)
	tb.sendOK(t, "PullTopic", 1, "", []byte("a"))
	tb.sendOK(t, "PullTopic", 1, "", []byte("b"))
	tb.waitDispatched(t, "PullTopic", 1, 2)

	cases := []struct {
		name    string
		queueID int32
		offset  int64
		code    int32
		remark  string
		next    int64
	}{
		{"empty queue, offset 0", 0, 0, protocol.PullNotFound, "NO_MATCHED_LOGIC_QUEUE", 0},
		{"empty queue, offset 5", 0, 5, protocol.PullOffsetMoved, "NO_MATCHED_LOGIC_QUEUE", 0},
		{"found", 1, 0, protocol.Success, "FOUND", 2},
		{"at max offset", 1, 2, protocol.PullNotFound, "OFFSET_OVERFLOW_ONE", 2},
		{"beyond max offset", 1, 9, protocol.PullOffsetMoved, "OFFSET_OVERFLOW_BADLY", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := tb.pull(t, "g", "PullTopic", c.queueID, c.offset, "*")
			require.Equal(t, c.code, resp.Code, resp.Remark)
			require.Equal(t, c.remark, resp.Remark)
			rh := pullResponseHeader(t, resp)
			require.Equal(t, c.next, rh.NextBeginOffset)
			if c.code != protocol.Success {
				require.Empty(t, resp.Body)
			}
		})
	}
}

// TestPullPreconditions pins the checks before the store is read.
func TestPullPreconditions(t *testing.T) {
	tb := startWithTopic(t, "Pre", 2)
	cases := []struct {
		name   string
		h      *protocol.PullMessageRequestHeader
		code   int32
		remark string
	}{
		{"unknown topic", pullHeader("g", "NoSuchTopic", 0, 0, protocol.PullFlagSubscription, 0, "*"),
			protocol.TopicNotExist, "topic[NoSuchTopic] not exist"},
		{"queueId >= readQueueNums", pullHeader("g", "Pre", 2, 0, protocol.PullFlagSubscription, 0, "*"),
			protocol.SystemError, "queueId[2] is illegal"},
		{"no heartbeat, no subscription flag", pullHeader("g", "Pre", 0, 0, 0, 0, ""),
			protocol.SubscriptionNotExist, "group info not exist"},
		{"bad expression", pullHeader("g", "Pre", 0, 0, protocol.PullFlagSubscription, 0, " || "),
			protocol.SubscriptionParseFailed, "parse the consumer's subscription failed"},
		{"SQL92 expression (not supported)", func() *protocol.PullMessageRequestHeader {
			h := pullHeader("g", "Pre", 0, 0, protocol.PullFlagSubscription, 0, "a > 5")
			h.ExpressionType = "SQL92"
			return h
		}(), protocol.SystemError, "does not support consumer to filter message by SQL92"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(c.h), nil))
			require.Equal(t, c.code, resp.Code)
			require.Contains(t, resp.Remark, c.remark)
		})
	}
	// a header without topic names the field
	resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, map[string]string{"consumerGroup": "g"}, nil))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "topic")
}

// TestPullMaxMsgNumsBounds: a pull asking for fewer than 0 or more than MaxPullMsgNums (1024)
// messages is refused with SYSTEM_ERROR and a remark naming the count (a marked Deviation:
// Java serves it); 0 and 1024 are served (0 returns one message, as Java's isTheBatchFull).
func TestPullMaxMsgNumsBounds(t *testing.T) {
	tb := startWithTopic(t, "Nums", 1)
	tb.sendOK(t, "Nums", 0, "", []byte("a"))
	tb.sendOK(t, "Nums", 0, "", []byte("b"))
	tb.waitDispatched(t, "Nums", 0, 2)
	for _, c := range []struct {
		nums int32
		code int32
		msgs int
	}{{-1, protocol.SystemError, 0}, {-2000000000, protocol.SystemError, 0}, {1025, protocol.SystemError, 0},
		{2000000000, protocol.SystemError, 0}, {0, protocol.Success, 1}, {1, protocol.Success, 1}, {1024, protocol.Success, 2}} {
		h := pullHeader("g", "Nums", 0, 0, protocol.PullFlagSubscription, 0, "*")
		h.MaxMsgNums = c.nums
		resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
		require.Equal(t, c.code, resp.Code, "maxMsgNums %d: %s", c.nums, resp.Remark)
		if c.code != protocol.Success {
			require.Contains(t, resp.Remark, fmt.Sprintf("maxMsgNums[%d] is illegal", c.nums))
			require.Empty(t, resp.Body)
			continue
		}
		msgs, err := primitive.DecodeMessages(resp.Body)
		require.NoError(t, err)
		require.Len(t, msgs, c.msgs, "maxMsgNums %d", c.nums)
	}
}

// asyncPull starts a suspended pull and returns a channel with its response.
func (tb *testBroker) asyncPull(t *testing.T, h *protocol.PullMessageRequestHeader) <-chan *remoting.RemotingCommand {
	t.Helper()
	out := make(chan *remoting.RemotingCommand, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	err := tb.client.InvokeAsync(ctx, tb.addr, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil),
		func(resp *remoting.RemotingCommand, err error) {
			if err != nil {
				resp = remoting.NewResponse(-100, err.Error())
			}
			out <- resp
		})
	require.NoError(t, err)
	return out
}

// TestPullHeldUntilMessageArrives pins long polling: a pull that finds nothing at offset 0
// with the suspend flag is held (no answer), and the arrival of a message on that queue
// (ReputMessageService → NotifyMessageArrivingListener → PullRequestHoldService) answers it
// with the message long before its 20 s hold ends.
func TestPullHeldUntilMessageArrives(t *testing.T) {
	tb := startWithTopic(t, "Held", 1)
	h := pullHeader("g", "Held", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*")
	start := time.Now()
	got := tb.asyncPull(t, h)
	require.Eventually(t, func() bool { return tb.b.PullRequestHoldService().HeldCount() == 1 },
		5*time.Second, 5*time.Millisecond, "the pull is held")
	select {
	case r := <-got:
		t.Fatalf("held pull answered before any message: code %d %s", r.Code, r.Remark)
	default:
	}
	tb.sendOK(t, "Held", 0, "", []byte("wake"))
	select {
	case resp := <-got:
		require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
		msgs, err := primitive.DecodeMessages(resp.Body)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		require.Equal(t, []byte("wake"), msgs[0].Body)
		require.Less(t, time.Since(start), 10*time.Second, "answered on arrival, not at the hold's end")
	case <-time.After(10 * time.Second):
		t.Fatal("held pull not answered after a message arrived")
	}
	require.Equal(t, 0, tb.b.PullRequestHoldService().HeldCount())
}

// TestPullHeldTimesOut pins the hold's end: a held pull whose hold time is up is re-run and
// answered PULL_NOT_FOUND (19), by the hold service's sweep (here short polling: the sweep and
// the hold are shortPollingTimeMills) or by a direct CheckHoldRequest.
func TestPullHeldTimesOut(t *testing.T) {
	t.Run("short polling sweep", func(t *testing.T) {
		tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
			c.LongPollingEnable = false
			c.ShortPollingTime = 100 * time.Millisecond
		})
		tb.createTopic(t, "Held", 1)
		h := pullHeader("g", "Held", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*")
		start := time.Now()
		select {
		case resp := <-tb.asyncPull(t, h):
			require.Equal(t, int32(protocol.PullNotFound), resp.Code, resp.Remark)
			require.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "held for shortPollingTimeMills")
			require.Equal(t, int64(0), pullResponseHeader(t, resp).NextBeginOffset)
		case <-time.After(10 * time.Second):
			t.Fatal("short-polled pull not answered")
		}
	})
	t.Run("long polling, CheckHoldRequest", func(t *testing.T) {
		tb := startWithTopic(t, "Held", 1)
		h := pullHeader("g", "Held", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 50*time.Millisecond, "*")
		got := tb.asyncPull(t, h)
		hold := tb.b.PullRequestHoldService()
		require.Eventually(t, func() bool { return hold.HeldCount() == 1 }, 5*time.Second, 5*time.Millisecond)
		var resp *remoting.RemotingCommand
		require.Eventually(t, func() bool {
			hold.CheckHoldRequest() // the sweep's loop body
			select {
			case resp = <-got:
				return true
			default:
				return false
			}
		}, 5*time.Second, 10*time.Millisecond)
		require.Equal(t, int32(protocol.PullNotFound), resp.Code, resp.Remark)
	})
}

// TestPullHoldMeasuredOnBrokerClock pins the one clock of long polling: a held pull is held for
// its suspend time measured on the broker's clock and released at its deadline on that clock —
// whether that clock stands far behind the wall clock or far ahead of it. (When the processor
// stamped the request with the wall clock and the hold service compared with its own, a clock
// behind the wall held the pull for years and one ahead released it at once.)
// Java: PullRequestHoldService#notifyMessageArriving (suspendTimestamp + timeoutMillis).
func TestPullHoldMeasuredOnBrokerClock(t *testing.T) {
	for _, c := range []struct {
		name  string
		start time.Time
	}{
		{"clock behind the wall clock", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"clock ahead of the wall clock", time.Now().Add(24 * 365 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewManual(c.start)
			tb := startTestBrokerOn(t, clk, nil)
			tb.createTopic(t, "Held", 1)
			h := pullHeader("g", "Held", 0, 0, protocol.PullFlagSuspend|protocol.PullFlagSubscription, 20*time.Second, "*")
			got := tb.asyncPull(t, h)
			hold := tb.b.PullRequestHoldService()
			require.Eventually(t, func() bool { return hold.HeldCount() == 1 }, 5*time.Second, time.Millisecond)
			stillHeld := func(why string) {
				t.Helper()
				hold.CheckHoldRequest()
				require.Equal(t, 1, hold.HeldCount(), why)
				select {
				case r := <-got:
					t.Fatalf("%s: answered early: code %d %s", why, r.Code, r.Remark)
				default:
				}
			}
			stillHeld("just suspended")
			clk.Advance(20*time.Second - time.Millisecond)
			stillHeld("1 ms before the deadline")
			clk.Advance(time.Millisecond)
			hold.CheckHoldRequest()
			select {
			case resp := <-got:
				require.Equal(t, int32(protocol.PullNotFound), resp.Code, resp.Remark)
			case <-time.After(10 * time.Second):
				t.Fatal("held pull not released at its deadline on the broker's clock")
			}
			require.Equal(t, 0, hold.HeldCount())
		})
	}
}

// TestPullCommitOffset pins the commit-offset side effect: with sysFlag bit0 the request's
// commitOffset is stored for (group, topic, queue).
func TestPullCommitOffset(t *testing.T) {
	tb := startTestBroker(t, nil)
	tb.sendOK(t, "C", 0, "", []byte("x"))
	tb.waitDispatched(t, "C", 0, 1)
	h := pullHeader("g", "C", 0, 0, protocol.PullFlagSubscription|protocol.PullFlagCommitOffset, 0, "*")
	h.CommitOffset = 1
	resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, store.QueueOffset(1), tb.b.ConsumerOffsetManager().QueryOffset("g", "C", 0))
}

// TestPullTagFilteringNonASCII pins the tag-code rebuild: client-go sends codeSet hashed over
// UTF-8 (−1887180642 for "中文"), Java's hash is 646394; the broker rebuilds codes from tagsSet
// with Java's hash, so a push consumer (no subscription on the pull) gets only the 中文 message.
func TestPullTagFilteringNonASCII(t *testing.T) {
	tb := startWithTopic(t, "Tags", 1)
	tb.sendOK(t, "Tags", 0, "other", []byte("skip me"))
	tb.sendOK(t, "Tags", 0, "中文", []byte("take me"))
	tb.waitDispatched(t, "Tags", 0, 2)
	require.Equal(t, int64(646394), primitive.TagsString2TagsCode("中文"))

	sub := protocol.SubscriptionData{Topic: "Tags", SubString: "中文", TagsSet: []string{"中文"},
		CodeSet: []int32{-1887180642}, SubVersion: 1, ExpressionType: "TAG"}
	require.Equal(t, int32(protocol.Success), heartbeat(t, tb.client, tb.addr, "10.0.0.1@1", "tg", sub).Code)

	h := pullHeader("tg", "Tags", 0, 0, 0, 0, "")
	resp := tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	msgs, err := primitive.DecodeMessages(resp.Body)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, []byte("take me"), msgs[0].Body)
	require.Equal(t, int64(2), pullResponseHeader(t, resp).NextBeginOffset, "filtered units count in nextBeginOffset")

	// only filtered-out messages ahead: PULL_RETRY_IMMEDIATELY (20)
	tb.sendOK(t, "Tags", 0, "other", []byte("skip me too"))
	tb.waitDispatched(t, "Tags", 0, 3)
	h.QueueOffset = 2
	resp = tb.invoke(t, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
	require.Equal(t, int32(protocol.PullRetryImmediately), resp.Code, resp.Remark)
	require.Equal(t, "NO_MATCHED_MESSAGE", resp.Remark)
}

// TestPullSuggestWhichBroker pins the pull answer's suggestWhichBrokerId. Without
// slaveReadEnable it is always the master (0). With it, it is the group's brokerId while the
// data read is in memory, and the group's whichBrokerWhenConsumeSlowly once the consumer is
// further behind than accessMessageInMemoryMaxRatio of RAM (0 % here, so any backlog past the
// batch counts: 40 messages, a pull takes 32). Java: PullMessageProcessor#processRequest (the slaveReadEnable block).
func TestPullSuggestWhichBroker(t *testing.T) {
	for _, tc := range []struct {
		name        string
		slaveRead   bool
		memoryRatio int
		want        int64
	}{
		{name: "slaveReadEnable=false", slaveRead: false, memoryRatio: 0, want: 0},
		{name: "in memory: the group's brokerId", slaveRead: true, memoryRatio: 40, want: 3},
		{name: "behind: whichBrokerWhenConsumeSlowly", slaveRead: true, memoryRatio: 0, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := startTestBroker(t, nil, func(c *BrokerConfig, s storeSetup) {
				c.SlaveReadEnable = tc.slaveRead
				s.AccessMessageInMemoryMaxRatio = tc.memoryRatio
			})
			g := NewSubscriptionGroupConfig("sg")
			g.BrokerID = 3
			tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(g)
			for i := 0; i < 40; i++ {
				tb.sendOK(t, "SlaveReadTopic", 0, "", []byte("m"))
			}
			require.Eventually(t, func() bool { return tb.b.MessageStore().GetMaxOffsetInQueue("SlaveReadTopic", 0) == 40 },
				5*time.Second, time.Millisecond)
			resp := tb.pull(t, "sg", "SlaveReadTopic", 0, 0, "*")
			require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
			require.Equal(t, tc.want, pullResponseHeader(t, resp).SuggestWhichBrokerID)
		})
	}
}

// TestPullSuggestsSlaveWhenMasterLagsMemory: with slaveReadEnable the master suggests the
// group's whichBrokerWhenConsumeSlowly (1) once the read lags more than
// accessMessageInMemoryMaxRatio (40 %) of the store's physical memory behind the CommitLog's
// end, and the master (the group's brokerId, 0) when it lags no more; the step line carries
// the lag, the window and the suggestion. The memory is 10 000 bytes here (store.Options
// TotalPhysicalMemory): the window is 4 000 bytes, some 20 small records. Java:
// PullMessageProcessor#processRequest, DefaultMessageStore#getMessage (diff > memory).
func TestPullSuggestsSlaveWhenMasterLagsMemory(t *testing.T) {
	rec := trace.NewRecorder()
	tb := startTestBroker(t, rec.Tracer("broker-a"), func(c *BrokerConfig, s storeSetup) {
		c.SlaveReadEnable = true
		s.Options.TotalPhysicalMemory = 10_000
	})
	tb.b.SubscriptionGroupManager().UpdateSubscriptionGroupConfig(NewSubscriptionGroupConfig("sg"))
	for i := 0; i < 100; i++ {
		tb.sendOK(t, "SlowTopic", 0, "", []byte("m"))
	}
	require.Eventually(t, func() bool { return tb.b.MessageStore().GetMaxOffsetInQueue("SlowTopic", 0) == 100 },
		5*time.Second, time.Millisecond)
	lastStep := func() trace.Recorded {
		steps := rec.Steps()
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i].Label == "PullMessageProcessor#processRequest" {
				return steps[i]
			}
		}
		t.Fatal("no PullMessageProcessor#processRequest step")
		return trace.Recorded{}
	}
	resp := tb.pull(t, "sg", "SlowTopic", 0, 0, "*") // 32 messages of the first ones: far behind
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, int64(1), pullResponseHeader(t, resp).SuggestWhichBrokerID, "behind: the slave")
	s := lastStep()
	require.Equal(t, "true", s.Attrs["slaveReadEnable"])
	require.Equal(t, "4000", s.Attrs["inMemoryBytes"])
	lag, err := strconv.ParseInt(s.Attrs["lagBytes"], 10, 64)
	require.NoError(t, err)
	require.Greater(t, lag, int64(4000))
	require.Equal(t, "1", s.Attrs["suggestWhichBrokerId"])

	resp = tb.pull(t, "sg", "SlowTopic", 0, 96, "*") // the last 4: caught up
	require.Equal(t, int32(protocol.Success), resp.Code, resp.Remark)
	require.Equal(t, int64(0), pullResponseHeader(t, resp).SuggestWhichBrokerID, "caught up: the master")
	s = lastStep()
	lag, err = strconv.ParseInt(s.Attrs["lagBytes"], 10, 64)
	require.NoError(t, err)
	require.LessOrEqual(t, lag, int64(4000))
	require.Equal(t, "0", s.Attrs["suggestWhichBrokerId"])
}
