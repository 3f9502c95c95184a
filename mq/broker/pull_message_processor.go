package broker

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// masterID is the broker id of a master. Java: MixAll.MASTER_ID.
const masterID = 0

// MaxPullMsgNums is the largest maxMsgNums a pull may ask for: the upper bound of a
// consumer's pullBatchSize (DefaultMQPushConsumer#checkConfig, [1, 1024]).
const MaxPullMsgNums = 1024

// PullMessageProcessor answers PULL_MESSAGE (11): checks, subscription, store read, status →
// code, and long polling through the PullRequestHoldService when nothing is there yet.
// Mirrors org.apache.rocketmq.broker.processor.PullMessageProcessor.
//
// Which broker the consumer should pull from next (suggestWhichBrokerId): with the broker's
// slaveReadEnable, the group's whichBrokerWhenConsumeSlowly when the read lags more than the
// store's in-memory window (accessMessageInMemoryMaxRatio, 40 %, of its physical memory) behind
// the CommitLog's end, else the group's brokerId (the master). A test or chapter makes "the
// master is slow" happen with small data by giving the store a small memory
// (store.Options.TotalPhysicalMemory through WithStoreOptions, e.g. 10 000 bytes: a 4 000-byte
// window) and sending more than that ahead of the consumer.
//
// Wake-up replays (executeRequestWhenWakeup) run on their own goroutines, counted in replays,
// which refuses new ones once shutdown began.
//
// Deviation: a pull whose maxMsgNums is negative or above MaxPullMsgNums is refused
// (SYSTEM_ERROR, "maxMsgNums[n] is illegal ..."). Java serves it: the store caps the batch by
// maxTransferCountOnMessageInMemory and a negative count still returns one message. 0 is
// served (at least one message, as Java's isTheBatchFull gives).
type PullMessageProcessor struct {
	remoting.NeverRejects
	b       *BrokerController
	replays service.Group
}

// NewPullMessageProcessor returns the processor of b.
func NewPullMessageProcessor(b *BrokerController) *PullMessageProcessor {
	return &PullMessageProcessor{b: b}
}

// ProcessRequest implements remoting.RequestProcessor: a pull from the network may be held.
func (p *PullMessageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	return p.processRequest(ch, req, true), nil
}

// processRequest is Java's processRequest(channel, request, brokerAllowSuspend): nil means the
// request is held (or the answer goes out later). Java: PullMessageProcessor#processRequest.
func (p *PullMessageProcessor) processRequest(ch *remoting.Channel, req *remoting.RemotingCommand, brokerAllowSuspend bool) *remoting.RemotingCommand {
	b := p.b
	start := b.clock.Now()
	defer func() { b.metrics.ObservePullLatency(b.clock.Now().Sub(start)) }()
	var h protocol.PullMessageRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("pull message", err)
	}
	resp := remoting.NewResponse(protocol.SystemError, "")
	var rh protocol.PullMessageResponseHeader

	if !protocol.IsReadable(int32(b.cfg.BrokerPermission)) {
		return respond(resp, protocol.NoPermission, fmt.Sprintf("the broker[%s] pulling message is forbidden", b.cfg.BrokerIP1))
	}
	sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(h.ConsumerGroup)
	if sgc == nil {
		return respond(resp, protocol.SubscriptionGroupNotExist, fmt.Sprintf("subscription group [%s] does not exist", h.ConsumerGroup))
	}
	if !sgc.ConsumeEnable {
		return respond(resp, protocol.NoPermission, "subscription group no permission, "+h.ConsumerGroup)
	}
	hasSuspend := protocol.HasSuspendFlag(h.SysFlag)
	hasCommitOffset := protocol.HasCommitOffsetFlag(h.SysFlag)
	hasSubscription := protocol.HasSubscriptionFlag(h.SysFlag)
	var suspendTimeout time.Duration
	if hasSuspend {
		suspendTimeout = time.Duration(h.SuspendTimeoutMillis) * time.Millisecond
	}
	tc := b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil {
		return respond(resp, protocol.TopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please!", h.Topic))
	}
	if !protocol.IsReadable(tc.Perm) {
		return respond(resp, protocol.NoPermission, "the topic["+h.Topic+"] pulling message is forbidden")
	}
	if h.QueueID < 0 || h.QueueID >= tc.ReadQueueNums {
		return respond(resp, protocol.SystemError, fmt.Sprintf("queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d] consumer:[%s]",
			h.QueueID, h.Topic, tc.ReadQueueNums, ch.RemoteAddr()))
	}
	if h.MaxMsgNums < 0 || h.MaxMsgNums > MaxPullMsgNums {
		return respond(resp, protocol.SystemError, fmt.Sprintf("maxMsgNums[%d] is illegal, it must be in [0, %d], consumer:[%s]",
			h.MaxMsgNums, MaxPullMsgNums, ch.RemoteAddr()))
	}

	var sub protocol.SubscriptionData
	if hasSubscription {
		s, err := protocol.BuildSubscriptionData(h.Topic, h.Subscription)
		if err != nil {
			return respond(resp, protocol.SubscriptionParseFailed, "parse the consumer's subscription failed")
		}
		if h.ExpressionType != "" {
			s.ExpressionType = h.ExpressionType
		}
		sub = *s
	} else {
		gi := b.consumerManager.GetConsumerGroupInfo(h.ConsumerGroup)
		if gi == nil {
			return respond(resp, protocol.SubscriptionNotExist, "the consumer's group info not exist")
		}
		if !sgc.ConsumeBroadcastEnable && gi.MessageModel == "BROADCASTING" {
			return respond(resp, protocol.NoPermission, "the consumer group["+h.ConsumerGroup+"] can not consume by broadcast way")
		}
		s, ok := gi.FindSubscriptionData(h.Topic)
		if !ok {
			return respond(resp, protocol.SubscriptionNotExist, "the consumer's subscription not exist")
		}
		if s.SubVersion < h.SubVersion {
			return respond(resp, protocol.SubscriptionNotLatest, "the consumer's subscription not latest")
		}
		sub = s
	}
	if !isTagType(sub.ExpressionType) {
		return respond(resp, protocol.SystemError, "The broker does not support consumer to filter message by "+sub.ExpressionType)
	}
	filter := NewExpressionMessageFilter(&sub)

	r := b.store.GetMessage(h.ConsumerGroup, h.Topic, h.QueueID, store.QueueOffset(h.QueueOffset), h.MaxMsgNums, filter)
	if r == nil {
		return respond(resp, protocol.SystemError, "store getMessage return null")
	}
	resp.Remark = r.Status.String()
	rh.NextBeginOffset, rh.MinOffset, rh.MaxOffset = int64(r.NextBeginOffset), int64(r.MinOffset), int64(r.MaxOffset)
	// Which broker the consumer should pull from next (Java: PullMessageProcessor, the
	// slaveReadEnable block): with slaveReadEnable the group's whichBrokerWhenConsumeSlowly
	// when the data read is no longer in memory, else the group's brokerId; without it the
	// master. On a slave without slaveReadEnable Java also sets PULL_RETRY_IMMEDIATELY, but the
	// status mapping below overwrites it (remoting-protocol.md §4.6).
	rh.SuggestWhichBrokerID = masterID
	if b.cfg.SlaveReadEnable {
		if r.SuggestPullingFromSlave {
			rh.SuggestWhichBrokerID = sgc.WhichBrokerWhenConsumeSlowly
		} else {
			rh.SuggestWhichBrokerID = sgc.BrokerID
		}
	}

	switch r.Status {
	case store.Found:
		resp.Code = protocol.Success
	case store.MessageWasRemoving, store.NoMatchedMessage:
		resp.Code = protocol.PullRetryImmediately
	case store.NoMatchedLogicQueue, store.NoMessageInQueue:
		if h.QueueOffset != 0 {
			resp.Code = protocol.PullOffsetMoved
			b.log.Info("the broker stores no queue data, fix the request offset",
				"topic", h.Topic, "queueId", h.QueueID, "requestOffset", h.QueueOffset,
				"nextBeginOffset", r.NextBeginOffset, "consumer", ch.RemoteAddr())
		} else {
			resp.Code = protocol.PullNotFound
		}
	case store.OffsetFoundNull, store.OffsetOverflowOne:
		resp.Code = protocol.PullNotFound
	case store.OffsetOverflowBadly, store.OffsetTooSmall:
		resp.Code = protocol.PullOffsetMoved
	default:
		resp.Code = protocol.SystemError
	}
	resp.ExtFields = protocol.EncodeHeader(&rh)

	suspended := false
	switch resp.Code {
	case protocol.Success:
		resp.Body = r.Body()
		b.metrics.RecordGet(h.Topic, r.MessageCount, r.BufferTotalSize)
	case protocol.PullNotFound:
		if brokerAllowSuspend && hasSuspend {
			hold := suspendTimeout
			if !b.cfg.LongPollingEnable {
				hold = b.cfg.ShortPollingTime
			}
			// Over maxHeldPullRequests the pull is answered now, PULL_NOT_FOUND as it stands.
			suspended = b.pullRequestHoldService.SuspendPullRequest(h.Topic, h.QueueID, &PullRequest{
				RequestCommand:     req,
				ClientChannel:      ch,
				Timeout:            hold,
				PullFromThisOffset: h.QueueOffset,
				SubscriptionData:   sub,
				MessageFilter:      filter,
			})
		}
	case protocol.PullOffsetMoved:
		// Java (master, or offsetCheckInSlave) also writes an OFFSET_MOVED_EVENT message for
		// tools; not built yet.
	}
	if tr := b.tr; tr.Enabled() {
		attrs := []slog.Attr{slog.String("topic", h.Topic),
			slog.Int("queueId", int(h.QueueID)), slog.Int64("queueOffset", h.QueueOffset),
			slog.String("status", r.Status.String()), slog.Int("code", int(resp.Code)),
			slog.Int("messages", r.MessageCount), slog.Int64("nextBeginOffset", int64(r.NextBeginOffset)),
			slog.Bool("suspended", suspended), slog.Bool("wakeup", !brokerAllowSuspend)}
		if b.cfg.SlaveReadEnable {
			// Why the answer names that broker: the read lagged lagBytes behind the CommitLog's
			// end, more (whichBrokerWhenConsumeSlowly) or not (the group's brokerId) than the
			// in-memory window. Without slaveReadEnable the suggestion is always the master.
			attrs = append(attrs, slog.Bool("slaveReadEnable", true), slog.Int64("lagBytes", r.LagBytes),
				slog.Int64("inMemoryBytes", r.InMemoryBytes), slog.Int64("suggestWhichBrokerId", rh.SuggestWhichBrokerID))
		} else if b.storeCfg.BrokerRole == store.Slave {
			// A slave without slaveReadEnable serves the pull but sends the consumer back to
			// the master: the line shows it.
			attrs = append(attrs, slog.Int64("suggestWhichBrokerId", rh.SuggestWhichBrokerID))
		}
		tr.Step("PullMessageProcessor#processRequest", attrs...)
	}
	// The commit-offset side effect also happens for a held request, never for a replay.
	if brokerAllowSuspend && hasCommitOffset && b.storeCfg.BrokerRole != store.Slave {
		b.consumerOffsetManager.CommitOffset(ch.RemoteAddr(), h.ConsumerGroup, h.Topic, h.QueueID, store.QueueOffset(h.CommitOffset))
	}
	if suspended {
		return nil
	}
	return resp
}

// executeRequestWhenWakeup re-runs a held request with suspension disabled and writes the
// answer with the original opaque. Runs on its own goroutine (Java: the pull executor).
// Java: PullMessageProcessor#executeRequestWhenWakeup.
func (p *PullMessageProcessor) executeRequestWhenWakeup(ch *remoting.Channel, req *remoting.RemotingCommand) {
	p.replays.Go(func() {
		resp := p.processRequest(ch, req, false)
		if resp == nil {
			return
		}
		if err := ch.WriteResponse(resp.ResponseTo(req)); err != nil {
			if remoting.IsPeerGone(err) { // the consumer went away while its pull was held
				p.b.log.Debug("held pull answered a closed channel", "remoteAddr", ch.RemoteAddr(), "err", err)
			} else {
				p.b.log.Warn("write held pull response failed", "remoteAddr", ch.RemoteAddr(), "err", err)
			}
		}
	})
}

// shutdown stops new replays and waits for running ones.
func (p *PullMessageProcessor) shutdown() {
	p.replays.Close()
	p.replays.Wait()
}

// isTagType reports whether an expression type means TAG ("", "TAG").
// Java: ExpressionType#isTagType.
func isTagType(t string) bool { return t == "" || t == "TAG" }

// respond sets code and remark and returns resp.
func respond(resp *remoting.RemotingCommand, code int32, remark string) *remoting.RemotingCommand {
	resp.Code = code
	resp.Remark = remark
	return resp
}
