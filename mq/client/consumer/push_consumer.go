package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// DefaultMQPushConsumer receives messages pushed to a listener: behind the scenes it pulls the
// queues a rebalance assigned to it (long polling), caches them per queue, hands them to the
// listener on a worker pool, returns failures to the broker for a later retry and commits
// progress. Mirrors org.apache.rocketmq.client.consumer.DefaultMQPushConsumer (API and config)
// and org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl (logic) in one type.
//
// Locks: mu guards state transitions, the pre-start subscriptions and the listener; state is
// also an atomic for the pull path. The rebalance state has its own lock (RebalanceImpl).
type DefaultMQPushConsumer struct {
	consumerInner
	cfg Config
	tr  *trace.Tracer
	log *slog.Logger

	subs     map[string]string
	listener MessageListenerConcurrently
	// listenerOrderly, when set, makes the consumer orderly (consume_orderly.go).
	listenerOrderly MessageListenerOrderly
	pullAPI         *PullAPIWrapper
	pull            *PullMessageService
	offsets         OffsetStore
	consume         ConsumeMessageService
	paused          atomic.Bool
	pullLater       service.Group // delayed OFFSET_ILLEGAL fix-ups; Shutdown cancels those not yet due
}

// NewDefaultMQPushConsumer returns a consumer for cfg (see DefaultConfig); nothing happens
// until Start. Steps are traced as component "consumer" (Options.TraceName adds a suffix).
func NewDefaultMQPushConsumer(cfg Config) *DefaultMQPushConsumer {
	cfg = cfg.withDefaults()
	return &DefaultMQPushConsumer{consumerInner: newConsumerInner(cfg.ConsumerGroup, cfg.MessageModel, cfg.ConsumeFromWhere, cfg.UnitMode),
		cfg: cfg, tr: trace.New(cfg.Options.Logger, cfg.Options.Component("consumer")), log: cfg.Options.Log(), subs: map[string]string{}}
}

// Config returns the consumer's config (defaults filled in).
func (c *DefaultMQPushConsumer) Config() Config { return c.cfg }

// Subscribe adds topic with a tag expression ("*", "TagA || TagB"). Before Start it is noted
// for copySubscription; afterwards it takes effect at once and a heartbeat tells the brokers.
// Errors: protocol.ErrSubscriptionParse. Java: DefaultMQPushConsumerImpl#subscribe.
func (c *DefaultMQPushConsumer) Subscribe(topic, subExpression string) error {
	sd, err := protocol.BuildSubscriptionData(topic, subExpression)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.subs[topic] = subExpression
	c.subscribeNow(sd, c.now())
	return nil
}

// RegisterMessageListener sets the listener (before Start).
// Java: DefaultMQPushConsumer#registerMessageListener(MessageListenerConcurrently).
func (c *DefaultMQPushConsumer) RegisterMessageListener(l MessageListenerConcurrently) {
	c.mu.Lock()
	c.listener = l
	c.mu.Unlock()
}

// now reads the consumer's clock (Options.Clock; the wall clock when nil).
func (c *DefaultMQPushConsumer) now() time.Time { return c.cfg.Options.Now() }

// Start checks the config, copies the subscriptions (adding %RETRY%group in CLUSTERING), gets
// the MQClientInstance of its clientId, chooses the offset store, starts the consume service,
// registers and starts the instance, fetches the routes of its topics, sends a heartbeat
// carrying its subscriptions and asks for a rebalance at once.
// Errors: client.ErrIllegalConfig, client.ErrGroupExists, client.ErrServiceState, a load error
// of the local offset file. Java: DefaultMQPushConsumerImpl#start.
func (c *DefaultMQPushConsumer) Start() error {
	c.mu.Lock()
	if err := c.startable("PushConsumer"); err != nil {
		return err
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultMQPushConsumerImpl#start", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("messageModel", string(c.cfg.MessageModel)), slog.String("consumeFromWhere", string(c.cfg.ConsumeFromWhere)))
	}
	if err := c.prepareStart(c.checkConfig(), &c.cfg.ClientConfig); err != nil {
		return err
	}
	subs, err := c.copySubscription()
	if err != nil {
		c.mu.Unlock()
		return err
	}
	inst := client.GetMQClientManager().GetOrCreateMQClientInstance(c.cfg.ClientConfig, c.cfg.Options)
	c.instance = inst
	// The instance's options are the first registrant's; the consumer follows them, so its
	// clock and scheduling never differ from the rebalance and heartbeat it shares.
	c.cfg.Options = inst.Options()
	strategy := c.cfg.AllocateMessageQueueStrategy
	if strategy == nil {
		strategy = AllocateMessageQueueAveragely{Tracer: inst.Tracer()}
	}
	c.rebalance = NewRebalance(c.cfg.ConsumerGroup, c.cfg.MessageModel, strategy, inst, &rebalancePush{c: c})
	for _, sd := range subs {
		c.rebalance.PutSubscription(sd)
	}
	c.pullAPI = NewPullAPIWrapper(inst, c.cfg.ConsumerGroup, c.cfg.UnitMode)
	c.pull = newPullMessageService(inst.Tracer(), c.cfg.Options.DisableScheduledTasks, c.PullMessage)
	c.offsets = newOffsetStore(c.cfg.MessageModel, c.cfg.OffsetStoreDir, inst, c.cfg.ConsumerGroup, c.cfg.Options.Logger)
	if err := c.offsets.Load(); err != nil {
		c.mu.Unlock()
		return err
	}
	c.consume = c.newConsumeService()
	c.consume.Start()
	if !inst.RegisterConsumer(c.cfg.ConsumerGroup, c) {
		c.consume.Shutdown()
		c.state.Store(int32(client.CreateJust))
		c.mu.Unlock()
		return fmt.Errorf("%w: the consumer group[%s] has been created before, specify another name please", client.ErrGroupExists, c.cfg.ConsumerGroup)
	}
	c.pull.start() // Java: MQClientInstance#start starts pullMessageService, then rebalanceService
	if err := inst.Start(); err != nil {
		inst.UnregisterConsumer(c.cfg.ConsumerGroup)
		c.pull.shutdown()
		c.consume.Shutdown()
		c.mu.Unlock()
		return err
	}
	c.state.Store(int32(client.Running))
	c.mu.Unlock()

	c.updateTopicSubscribeInfoWhenSubscriptionChanged()
	inst.SendHeartbeatToAllBrokerWithLock()
	inst.RebalanceImmediately()
	return nil
}

// updateTopicSubscribeInfoWhenSubscriptionChanged fetches the route of every subscribed topic
// (the retry topic included), so that the rebalance that follows knows each topic's readable
// queues. Java: DefaultMQPushConsumerImpl#updateTopicSubscribeInfoWhenSubscriptionChanged.
func (c *DefaultMQPushConsumer) updateTopicSubscribeInfoWhenSubscriptionChanged() {
	subs := c.rebalance.Subscriptions()
	if c.tr.Enabled() {
		topics := make([]string, len(subs))
		for i, sd := range subs {
			topics[i] = sd.Topic
		}
		c.tr.Step("DefaultMQPushConsumerImpl#updateTopicSubscribeInfoWhenSubscriptionChanged",
			slog.String("consumerGroup", c.cfg.ConsumerGroup), slog.String("topics", strings.Join(topics, ",")))
	}
	for _, sd := range subs {
		c.instance.UpdateTopicRouteInfoFromNameServer(sd.Topic)
	}
}

func (c *DefaultMQPushConsumer) checkConfig() error {
	if err := checkGroupAndModel(c.cfg.ConsumerGroup, c.cfg.MessageModel, c.cfg.OffsetStoreDir); err != nil {
		return err
	}
	switch {
	case c.listener == nil && c.listenerOrderly == nil:
		return fmt.Errorf("%w: messageListener is null", client.ErrIllegalConfig)
	case c.cfg.ConsumeMessageBatchMaxSize > 1024:
		return fmt.Errorf("%w: consumeMessageBatchMaxSize out of range [1, 1024]", client.ErrIllegalConfig)
	case c.cfg.PullBatchSize > 1024:
		return fmt.Errorf("%w: pullBatchSize out of range [1, 1024]", client.ErrIllegalConfig)
	}
	return nil
}

// copySubscription builds the subscriptions of the topics named before Start and, in
// CLUSTERING, subscribes "*" to the group's retry topic %RETRY%group, where messages sent back
// come again. Java: DefaultMQPushConsumerImpl#copySubscription.
func (c *DefaultMQPushConsumer) copySubscription() ([]*protocol.SubscriptionData, error) {
	var out []*protocol.SubscriptionData
	ver := c.now().UnixMilli()
	for _, topic := range slices.Sorted(maps.Keys(c.subs)) {
		sd, err := protocol.BuildSubscriptionData(topic, c.subs[topic])
		if err != nil {
			return nil, err
		}
		sd.SubVersion = ver
		out = append(out, sd)
	}
	if c.cfg.MessageModel == protocol.Clustering {
		sd, _ := protocol.BuildSubscriptionData(protocol.GetRetryTopic(c.cfg.ConsumerGroup), protocol.SubAll)
		sd.SubVersion = ver
		out = append(out, sd)
	}
	if c.tr.Enabled() {
		topics := make([]string, len(out))
		for i, sd := range out {
			topics[i] = sd.Topic + "(" + sd.SubString + ")"
		}
		c.tr.Step("DefaultMQPushConsumerImpl#copySubscription", slog.Any("subscriptions", topics))
	}
	return out, nil
}

// Shutdown ends the consumer's rebalancing (Rebalance.Stop: the pass in flight finishes first,
// so no GET_CONSUMER_LIST_BY_GROUP follows the UNREGISTER_CLIENT), stops consuming, persists the
// offsets of the queues it holds (to their brokers),
// unregisters the group (UNREGISTER_CLIENT to every broker it knows, so the broker tells the
// group's other members at once), shuts the instance down when nothing else uses it, and drops
// its queues. Java: DefaultMQPushConsumerImpl#shutdown.
//
// Deviation: "stops consuming" waits for every consume request already handed to the consume
// service (the listener calls running and those waiting for a worker) before the offsets are
// persisted, so what the listener acknowledged is committed and the group's next owner does not
// consume it again; a listener that never returns keeps Shutdown from returning. (With
// Options.DisableScheduledTasks a batch runs inside the pull that delivered it, which the
// caller drives and Shutdown does not wait for.) Java's
// default (awaitTerminationMillisWhenShutdown 0) does not wait: a message still being consumed
// is not committed and comes again.
func (c *DefaultMQPushConsumer) Shutdown() {
	if !c.beginShutdown() {
		return
	}
	if c.tr.Enabled() {
		mqs, _ := c.rebalance.ProcessQueues()
		c.tr.Step("DefaultMQPushConsumerImpl#shutdown", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("clientId", c.instance.ClientID()), slog.Int("queues", len(mqs)))
	}
	c.pullLater.Close() // no OFFSET_ILLEGAL fix-up runs on a consumer going away
	c.pullLater.Wait()
	c.consume.Shutdown()
	c.PersistConsumerOffset()
	c.instance.UnregisterConsumer(c.cfg.ConsumerGroup)
	c.pull.shutdown() // Java: MQClientInstance#shutdown stops pullMessageService first
	c.instance.Shutdown()
	c.rebalance.DestroyAll()
}

// Suspend pauses pulling (each queue retries every second); Resume continues.
func (c *DefaultMQPushConsumer) Suspend() { c.paused.Store(true) }

// Resume continues pulling after Suspend.
func (c *DefaultMQPushConsumer) Resume() { c.paused.Store(false) }

// OffsetStore is the consumer's offset store (nil before Start).
func (c *DefaultMQPushConsumer) OffsetStore() OffsetStore { return c.offsets }

// Rebalance is the consumer's assignment state (nil before Start).
func (c *DefaultMQPushConsumer) Rebalance() *Rebalance { return c.rebalance }

// PullMessageService is the consumer's pull loop (nil before Start); with
// DisableScheduledTasks the caller drives it (DoPull, DoPullQueue).
func (c *DefaultMQPushConsumer) PullMessageService() *PullMessageService { return c.pull }

// ConsumeService is the consume service (nil before Start).
func (c *DefaultMQPushConsumer) ConsumeService() ConsumeMessageService { return c.consume }

// --- client.MQConsumerInner ---

// ConsumeType is CONSUME_PASSIVELY.
func (c *DefaultMQPushConsumer) ConsumeType() protocol.ConsumeType { return protocol.ConsumePassively }

// DoRebalance reassigns the queues (unless paused). Java: DefaultMQPushConsumerImpl#doRebalance.
func (c *DefaultMQPushConsumer) DoRebalance() {
	if !c.paused.Load() && c.rebalance != nil {
		c.rebalance.DoRebalance(c.lockQueues())
	}
}

// PersistConsumerOffset writes the offsets of the queues held now.
// Java: DefaultMQPushConsumerImpl#persistConsumerOffset.
func (c *DefaultMQPushConsumer) PersistConsumerOffset() {
	if c.rebalance == nil {
		return
	}
	mqs, _ := c.rebalance.ProcessQueues()
	c.offsets.PersistAll(mqs)
}

// --- the pull path ---

func (c *DefaultMQPushConsumer) executePullRequestLater(req *PullRequest, d time.Duration) {
	c.pull.ExecutePullRequestLater(req, d)
}

// PullMessage runs one pull of req: flow control first (a queue holding too many messages,
// too many bytes or too wide a span of offsets waits 50 ms), then an asynchronous pull with
// the suspend flag (the broker holds it up to BrokerSuspendMaxTime) and, in CLUSTERING, the
// commitOffset flag with the offset in memory; the callback stores what came, hands it to the
// consume service and queues req again. done is called once when all that has happened.
// Java: DefaultMQPushConsumerImpl#pullMessage and its PullCallback.
func (c *DefaultMQPushConsumer) PullMessage(req *PullRequest, done func()) {
	pq := req.ProcessQueue
	mq := req.MessageQueue
	if pq.Dropped() {
		done()
		return
	}
	pq.SetLastPullTimestamp(c.now())
	if client.ServiceState(c.state.Load()) != client.Running {
		c.executePullRequestLater(req, pullTimeDelayWhenException)
		done()
		return
	}
	if c.paused.Load() {
		c.executePullRequestLater(req, pullTimeDelayWhenSuspend)
		done()
		return
	}
	cnt, size, span := pq.MsgCount(), pq.MsgSize()>>20, pq.MaxSpan()
	flow := ""
	switch {
	case cnt > c.cfg.PullThresholdForQueue:
		flow = "count"
	case size > c.cfg.PullThresholdSizeForQueue:
		flow = "size"
	case span > c.cfg.ConsumeConcurrentlyMaxSpan && !c.consumeOrderly(): // the span limit is the concurrent service's
		flow = "span"
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultMQPushConsumerImpl#pullMessage", slog.String("topic", mq.Topic), slog.Int("queueId", int(mq.QueueID)),
			slog.Int64("nextOffset", req.NextOffset()), slog.Int64("cachedCount", cnt), slog.Int64("cachedMiB", size),
			slog.Int64("span", span), slog.String("flowControl", flow))
	}
	if flow != "" {
		c.executePullRequestLater(req, pullTimeDelayWhenFlowControl)
		done()
		return
	}
	if c.pullOrderlyNotLocked(req) {
		done()
		return
	}
	sd := c.rebalance.Subscription(mq.Topic)
	if sd == nil {
		c.executePullRequestLater(req, pullTimeDelayWhenException)
		done()
		return
	}
	commitOffsetEnable := false
	var commitOffsetValue int64
	if c.cfg.MessageModel == protocol.Clustering {
		if v := c.offsets.ReadOffset(mq, ReadFromMemory); v > 0 {
			commitOffsetValue, commitOffsetEnable = v, true
		}
	}
	subExpression := ""
	if c.cfg.PostSubscriptionWhenPull && !sd.ClassFilterMode {
		subExpression = sd.SubString
	}
	sysFlag := protocol.BuildPullSysFlag(commitOffsetEnable, true, subExpression != "", sd.ClassFilterMode)
	err := c.pullAPI.PullKernelImpl(PullKernelRequest{
		MQ: mq, SubExpression: subExpression, ExpressionType: sd.ExpressionType, SubVersion: sd.SubVersion,
		Offset: req.NextOffset(), MaxNums: c.cfg.PullBatchSize, SysFlag: sysFlag, CommitOffset: commitOffsetValue,
		BrokerSuspendMaxTime: c.cfg.BrokerSuspendMaxTime, Timeout: c.cfg.ConsumerPullTimeout,
	}, func(res *client.PullResult, err error) {
		defer done()
		if err != nil {
			c.onPullException(req, err)
			return
		}
		c.onPullSuccess(req, sd, res)
	})
	if err != nil {
		c.log.Error("pullKernelImpl exception", "mq", mq.String(), "err", err)
		c.executePullRequestLater(req, pullTimeDelayWhenException)
		done()
	}
}

func (c *DefaultMQPushConsumer) onPullException(req *PullRequest, err error) {
	if !protocol.IsRetryTopic(req.MessageQueue.Topic) {
		c.log.Warn("execute the pull request exception", "mq", req.MessageQueue.String(), "err", err)
	}
	c.executePullRequestLater(req, pullTimeDelayWhenException)
}

// onPullSuccess is PullCallback#onSuccess.
func (c *DefaultMQPushConsumer) onPullSuccess(req *PullRequest, sd *protocol.SubscriptionData, res *client.PullResult) {
	mq, pq := req.MessageQueue, req.ProcessQueue
	res = c.pullAPI.ProcessPullResult(mq, res, sd)
	if c.tr.Enabled() {
		c.tr.Step("PullCallback#onSuccess", slog.String("topic", mq.Topic), slog.Int("queueId", int(mq.QueueID)),
			slog.String("status", res.PullStatus.String()), slog.Int("messages", len(res.MsgFoundList)),
			slog.Int64("nextBeginOffset", res.NextBeginOffset), slog.Int64("maxOffset", res.MaxOffset))
	}
	switch res.PullStatus {
	case client.PullFound:
		req.SetNextOffset(res.NextBeginOffset)
		if len(res.MsgFoundList) == 0 {
			c.pull.ExecutePullRequestImmediately(req)
			return
		}
		dispatch := pq.PutMessage(res.MsgFoundList)
		c.consume.SubmitConsumeRequest(res.MsgFoundList, pq, mq, dispatch)
		if c.cfg.PullInterval > 0 {
			c.executePullRequestLater(req, c.cfg.PullInterval)
		} else {
			c.pull.ExecutePullRequestImmediately(req)
		}
	case client.PullNoNewMsg, client.PullNoMatchedMsg:
		req.SetNextOffset(res.NextBeginOffset)
		if pq.MsgCount() == 0 { // correctTagsOffset
			c.offsets.UpdateOffset(mq, req.NextOffset(), true)
		}
		c.pull.ExecutePullRequestImmediately(req)
	case client.PullOffsetIllegal:
		c.log.Warn("the pull request offset illegal", "mq", mq.String(), "nextBeginOffset", res.NextBeginOffset)
		req.SetNextOffset(res.NextBeginOffset)
		pq.SetDropped(true)
		fix := func() {
			c.offsets.UpdateOffset(mq, req.NextOffset(), false)
			c.offsets.Persist(mq)
			c.rebalance.RemoveProcessQueue(mq)
			c.log.Warn("fix the pull request offset", "mq", mq.String())
		}
		if c.cfg.Options.DisableScheduledTasks {
			fix()
		} else {
			// Deviation: Java's 10 s task still runs after shutdown; here Shutdown cancels it
			// (the queue is dropped either way, and the next start rebalances afresh).
			c.pullLater.AfterFunc(10*time.Second, fix)
		}
	}
}

// sendMessageBack returns msg to its broker with delayLevel (CONSUMER_SEND_MSG_BACK).
// Deviation: Java falls back to sending a copy to %RETRY%group with an inner producer when the
// broker call fails; here the failure is returned and the batch is consumed again locally.
// Java: DefaultMQPushConsumerImpl#sendMessageBack.
func (c *DefaultMQPushConsumer) sendMessageBack(msg *primitive.MessageExt, delayLevel int32, brokerName string) error {
	addr := c.instance.FindBrokerAddressInPublish(brokerName)
	if addr == "" {
		addr = msg.StoreHost
	}
	h := protocol.ConsumerSendMsgBackRequestHeader{
		Offset: msg.CommitLogOffset, Group: c.cfg.ConsumerGroup, DelayLevel: delayLevel,
		OriginMsgID: msg.MsgID, OriginTopic: msg.Topic, UnitMode: c.cfg.UnitMode,
		MaxReconsumeTimes: c.cfg.maxReconsumeTimes(), HasMaxReconsumeTimes: true, BrokerName: brokerName,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.instance.MQClientAPI().ConsumerSendMessageBack(ctx, addr, &h)
}
