package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// ErrSubscriptionConflict is returned by Subscribe after Assign and by Assign after Subscribe:
// a lite pull consumer reads either by subscription or by assignment.
// Java: "Subscribe and assign are mutually exclusive."
var ErrSubscriptionConflict = errors.New("subscribe and assign are mutually exclusive")

// ErrNotAssigned is returned by Seek for a queue the consumer does not read now.
var ErrNotAssigned = errors.New("the message queue is not in assigned list")

// ErrSeekOffsetIllegal is returned by Seek for an offset outside the queue's [min, max].
var ErrSeekOffsetIllegal = errors.New("seek offset illegal")

// subscriptionType is how a lite pull consumer chose its queues. Java: SubscriptionType.
type subscriptionType int

const (
	subscriptionNone subscriptionType = iota
	subscriptionSubscribe
	subscriptionAssign
)

func (t subscriptionType) String() string {
	return [...]string{"NONE", "SUBSCRIBE", "ASSIGN"}[t]
}

// DefaultLitePullConsumer is the pull side of RocketMQ's consumers: the application calls Poll
// at its own pace, while one pull task per queue keeps a bounded cache of pulled messages
// filled behind it. Its queues come from a subscription (Subscribe: the group's rebalance
// divides them, RebalanceLitePullImpl tells the consumer through its MessageQueueListener) or
// from the application (Assign: no rebalance). Progress is the offset after the last message
// Poll returned; it is committed to the offset store automatically (AutoCommit, every
// AutoCommitInterval, checked by Poll) or by CommitSync, and the store sends it to the broker
// with the instance's persist task and at Shutdown. Seek moves a queue's next pull.
// Mirrors org.apache.rocketmq.client.consumer.DefaultLitePullConsumer (API and config) and
// impl.consumer.DefaultLitePullConsumerImpl (logic) in one type.
//
// Locks: mu guards state transitions, the subscription type, the pre-start subscriptions and
// the auto-commit deadline; Poll, CommitSync and Seek run one at a time under pollMu (Java's
// synchronized methods); seekMu (Java's messageQueueLock) orders a seek against a pull task
// storing its result; tasksMu guards taskTable. The queue table and the consume request cache
// have their own locks, and neither is held while the other is taken (a pull task storing its
// result and Poll choosing a request once deadlocked taking them in opposite orders).
// Order: pollMu → seekMu → AssignedMessageQueue or cache.
type DefaultLitePullConsumer struct {
	consumerInner
	cfg LitePullConfig
	tr  *trace.Tracer
	log *slog.Logger

	subType      subscriptionType
	subs         map[string]string
	listener     MessageQueueListener
	nextCommitAt time.Time

	pullAPI  *PullAPIWrapper
	offsets  OffsetStore
	assigned *AssignedMessageQueue
	cache    *consumeRequestCache
	sem      chan struct{} // PullThreadNums slots for pulls in flight

	pollMu  sync.Mutex
	seekMu  sync.Mutex
	seekSeq map[primitive.MessageQueue]int64

	tasksMu   sync.Mutex
	taskTable map[primitive.MessageQueue]*pullTask
	closed    bool
	tasks     service.Group // task goroutines, cancelled ones included
	baseCtx   context.Context
	stopAll   context.CancelFunc
}

// NewDefaultLitePullConsumer returns a consumer for cfg (see DefaultLitePullConfig); nothing
// happens until Start. Steps trace as component "consumer" (Options.TraceName adds a suffix).
func NewDefaultLitePullConsumer(cfg LitePullConfig) *DefaultLitePullConsumer {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &DefaultLitePullConsumer{consumerInner: newConsumerInner(cfg.ConsumerGroup, cfg.MessageModel, cfg.ConsumeFromWhere, cfg.UnitMode),
		cfg: cfg, tr: trace.New(cfg.Options.Logger, cfg.Options.Component("consumer")),
		log: cfg.Options.Log(), subs: map[string]string{}, assigned: newAssignedMessageQueue(),
		cache: newConsumeRequestCache(), seekSeq: map[primitive.MessageQueue]int64{},
		taskTable: map[primitive.MessageQueue]*pullTask{}, baseCtx: ctx, stopAll: cancel}
}

// Config returns the consumer's config (defaults filled in).
func (c *DefaultLitePullConsumer) Config() LitePullConfig { return c.cfg }

func (c *DefaultLitePullConsumer) now() time.Time { return c.cfg.Options.Now() }

func (c *DefaultLitePullConsumer) running() error {
	if st := client.ServiceState(c.state.Load()); st != client.Running {
		return fmt.Errorf("%w: the consumer not running, please start it first (%s)", client.ErrServiceState, st)
	}
	return nil
}

// setSubscriptionType fixes the consumer's mode on first use. Errors: ErrSubscriptionConflict.
// Call with mu held. Java: DefaultLitePullConsumerImpl#setSubscriptionType.
func (c *DefaultLitePullConsumer) setSubscriptionType(t subscriptionType) error {
	if c.subType == subscriptionNone {
		c.subType = t
	} else if c.subType != t {
		return ErrSubscriptionConflict
	}
	return nil
}

// Subscribe reads topic's share the group's rebalance gives this consumer, filtered by
// subExpression ("*", "TagA || TagB"). After Start it takes effect at once: a heartbeat tells
// the brokers and the topic's route is fetched. Errors: ErrSubscriptionConflict,
// protocol.ErrSubscriptionParse. Java: DefaultLitePullConsumerImpl#subscribe.
func (c *DefaultLitePullConsumer) Subscribe(topic, subExpression string) error {
	sd, err := protocol.BuildSubscriptionData(topic, subExpression)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if err := c.setSubscriptionType(subscriptionSubscribe); err != nil {
		c.mu.Unlock()
		return err
	}
	c.subs[topic] = subExpression
	c.listener = liteListener{c}
	if c.subscribeNow(sd, c.now()) {
		c.updateTopicSubscribeInfoWhenSubscriptionChanged()
	}
	return nil
}

// Assign reads exactly mqs, with no rebalance: the group's other members do not change what
// this consumer reads. After Start the pull tasks follow at once.
// Errors: ErrSubscriptionConflict, an empty mqs. Java: DefaultLitePullConsumerImpl#assign.
func (c *DefaultLitePullConsumer) Assign(mqs []primitive.MessageQueue) error {
	if len(mqs) == 0 {
		return errors.New("message queues can not be null or empty")
	}
	c.mu.Lock()
	if err := c.setSubscriptionType(subscriptionAssign); err != nil {
		c.mu.Unlock()
		return err
	}
	c.mu.Unlock()
	mqs = slices.Clone(mqs)
	SortMessageQueues(mqs)
	c.assigned.update("", mqs, c.newProcessQueue)
	if c.running() == nil {
		c.updatePullTask("", mqs)
	}
	return nil
}

func (c *DefaultLitePullConsumer) newProcessQueue(primitive.MessageQueue) *ProcessQueue {
	return NewProcessQueue(c.now())
}

// messageQueueListener is the listener Subscribe installed (nil in assign mode).
func (c *DefaultLitePullConsumer) messageQueueListener() MessageQueueListener {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listener
}

// liteListener is the consumer's own MessageQueueListener: the queues of the new share become
// the assigned queues, and the pull tasks follow (BROADCASTING takes every queue).
// Java: DefaultLitePullConsumerImpl.MessageQueueListenerImpl.
type liteListener struct{ c *DefaultLitePullConsumer }

func (l liteListener) MessageQueueChanged(topic string, mqAll, mqDivided []primitive.MessageQueue) {
	c := l.c
	mqs := mqDivided
	if c.cfg.MessageModel == protocol.Broadcasting {
		mqs = mqAll
	}
	c.assigned.update(topic, mqs, c.rebalanceProcessQueue)
	c.updatePullTask(topic, mqs)
}

// rebalanceProcessQueue is the ProcessQueue the rebalance made for mq (a new one if none).
// Java: AssignedMessageQueue with rebalanceImpl set.
func (c *DefaultLitePullConsumer) rebalanceProcessQueue(mq primitive.MessageQueue) *ProcessQueue {
	mqs, pqs := c.rebalance.ProcessQueues()
	if i := slices.Index(mqs, mq); i >= 0 {
		return pqs[i]
	}
	return c.newProcessQueue(mq)
}

// Start checks the config, gets the MQClientInstance of its clientId and registers, sets up
// the rebalance (initRebalanceImpl), the pull wrapper and the offset store, starts the
// instance, then, by mode, fetches the subscribed topics' routes and heartbeats (subscribe) or
// starts the pull tasks of the assigned queues (assign).
// Errors: client.ErrIllegalConfig, client.ErrGroupExists, client.ErrServiceState, a load error
// of the local offset file. Java: DefaultLitePullConsumerImpl#start.
func (c *DefaultLitePullConsumer) Start() error {
	c.mu.Lock()
	if err := c.startable("PullConsumer"); err != nil {
		return err
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#start", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("messageModel", string(c.cfg.MessageModel)), slog.String("subscriptionType", c.subType.String()))
	}
	if err := c.prepareStart(c.checkConfig(), &c.cfg.ClientConfig); err != nil {
		return err
	}
	inst := client.GetMQClientManager().GetOrCreateMQClientInstance(c.cfg.ClientConfig, c.cfg.Options)
	c.instance = inst
	c.cfg.Options = inst.Options()
	if !inst.RegisterConsumer(c.cfg.ConsumerGroup, c) {
		c.state.Store(int32(client.CreateJust))
		c.mu.Unlock()
		return fmt.Errorf("%w: the consumer group[%s] has been created before, specify another name please", client.ErrGroupExists, c.cfg.ConsumerGroup)
	}
	c.initRebalanceImpl()
	c.pullAPI = NewPullAPIWrapper(inst, c.cfg.ConsumerGroup, c.cfg.UnitMode)
	c.offsets = newOffsetStore(c.cfg.MessageModel, c.cfg.OffsetStoreDir, inst, c.cfg.ConsumerGroup, c.cfg.Options.Logger)
	fail := func(err error) error {
		inst.UnregisterConsumer(c.cfg.ConsumerGroup)
		c.mu.Unlock()
		return err
	}
	if err := c.offsets.Load(); err != nil {
		return fail(err)
	}
	if !c.cfg.Options.DisableScheduledTasks {
		c.sem = make(chan struct{}, c.cfg.PullThreadNums)
	}
	if err := inst.Start(); err != nil {
		return fail(err)
	}
	c.state.Store(int32(client.Running))
	mode := c.subType
	c.mu.Unlock()

	// Java: operateAfterRunning.
	switch mode {
	case subscriptionSubscribe:
		c.updateTopicSubscribeInfoWhenSubscriptionChanged()
		inst.SendHeartbeatToAllBrokerWithLock()
		inst.RebalanceImmediately()
	case subscriptionAssign:
		c.updatePullTask("", c.assigned.MessageQueues())
	}
	return nil
}

// initRebalanceImpl gives the consumer its Rebalance: the group, the message model, the
// allocation strategy, the instance, and rebalanceLitePull as the part that differs from a push
// consumer's; the subscriptions named before Start go into it. Call with mu held.
// Java: DefaultLitePullConsumerImpl#initRebalanceImpl.
func (c *DefaultLitePullConsumer) initRebalanceImpl() {
	strategy := c.cfg.AllocateMessageQueueStrategy
	if strategy == nil {
		strategy = AllocateMessageQueueAveragely{Tracer: c.instance.Tracer()}
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#initRebalanceImpl", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("messageModel", string(c.cfg.MessageModel)), slog.String("allocateMessageQueueStrategy", strategy.Name()))
	}
	c.rebalance = NewRebalance(c.cfg.ConsumerGroup, c.cfg.MessageModel, strategy, c.instance, &rebalanceLitePull{c: c})
	ver := c.now().UnixMilli()
	for _, topic := range slices.Sorted(maps.Keys(c.subs)) {
		sd, _ := protocol.BuildSubscriptionData(topic, c.subs[topic]) // parsed by Subscribe
		sd.SubVersion = ver
		c.rebalance.PutSubscription(sd)
	}
}

func (c *DefaultLitePullConsumer) checkConfig() error {
	if err := checkGroupAndModel(c.cfg.ConsumerGroup, c.cfg.MessageModel, c.cfg.OffsetStoreDir); err != nil {
		return err
	}
	switch {
	case c.cfg.ConsumerTimeoutWhenSuspend < c.cfg.BrokerSuspendMaxTime:
		return fmt.Errorf("%w: long polling mode, consumerTimeoutMillisWhenSuspend must be greater than brokerSuspendMaxTimeMillis", client.ErrIllegalConfig)
	case c.cfg.PullBatchSize > 1024:
		return fmt.Errorf("%w: pullBatchSize out of range [1, 1024]", client.ErrIllegalConfig)
	}
	return nil
}

// updateTopicSubscribeInfoWhenSubscriptionChanged fetches each subscribed topic's route.
// Java: DefaultLitePullConsumerImpl#updateTopicSubscribeInfoWhenSubscriptionChanged.
func (c *DefaultLitePullConsumer) updateTopicSubscribeInfoWhenSubscriptionChanged() {
	for _, sd := range c.rebalance.Subscriptions() {
		c.instance.UpdateTopicRouteInfoFromNameServer(sd.Topic)
	}
}

// subscriptionFor is the subscription a pull of topic sends: the subscribed one, or "*" in
// assign mode.
func (c *DefaultLitePullConsumer) subscriptionFor(topic string) *protocol.SubscriptionData {
	if sd := c.rebalance.Subscription(topic); sd != nil {
		return sd
	}
	sd, _ := protocol.BuildSubscriptionData(topic, protocol.SubAll)
	return sd
}

// startOffset is where a queue without a pull offset starts (the committed offset, else by
// ConsumeFromWhere).
func (c *DefaultLitePullConsumer) startOffset() startOffset {
	return startOffset{instance: c.instance, offsets: c.offsets, from: c.cfg.ConsumeFromWhere,
		timestamp: c.cfg.ConsumeTimestamp, now: c.now}
}

// nextPullOffset is the offset mq's next pull asks for: a pending seek (which becomes the
// consume offset too), else the pull offset, else the start offset (computePullFromWhere);
// seq is the queue's seek count, which the task compares before it stores the result.
// Java: DefaultLitePullConsumerImpl#nextPullOffset.
func (c *DefaultLitePullConsumer) nextPullOffset(mq primitive.MessageQueue) (offset, seq int64) {
	c.seekMu.Lock()
	seq = c.seekSeq[mq]
	offset = -1
	c.assigned.with(mq, func(st *messageQueueState) {
		if st.seekOffset != -1 {
			offset, st.consumeOffset, st.seekOffset = st.seekOffset, st.seekOffset, -1
			return
		}
		offset = st.pullOffset
	})
	c.seekMu.Unlock()
	if offset == -1 {
		offset = c.startOffset().compute(mq)
	}
	return offset, seq
}

// RunPullTask runs one pass of mq's pull task now (with DisableScheduledTasks the caller drives
// the tasks) and returns the delay the task chose; ok is false when mq has no task.
func (c *DefaultLitePullConsumer) RunPullTask(mq primitive.MessageQueue) (delay time.Duration, ok bool) {
	c.tasksMu.Lock()
	t := c.taskTable[mq]
	c.tasksMu.Unlock()
	if t == nil {
		return 0, false
	}
	return t.run(), true
}

// PollDefault makes Poll wait the config's PollTimeout.
const PollDefault time.Duration = -1

// maybeAutoCommit commits when the auto-commit deadline has passed. Call with pollMu held.
// Java: DefaultLitePullConsumerImpl#maybeAutoCommit.
func (c *DefaultLitePullConsumer) maybeAutoCommit() {
	now := c.now()
	c.mu.Lock()
	due := !now.Before(c.nextCommitAt)
	if due {
		c.nextCommitAt = now.Add(c.cfg.AutoCommitInterval)
	}
	c.mu.Unlock()
	if due {
		c.commitAll()
	}
}

// CommitSync commits the consume offset of every queue read now to the offset store (the
// broker gets them with the instance's next persist and at Shutdown; a BROADCASTING consumer
// writes its file at once). Errors: client.ErrServiceState. Java: DefaultLitePullConsumer#commitSync.
func (c *DefaultLitePullConsumer) CommitSync() error {
	if err := c.running(); err != nil {
		return err
	}
	c.pollMu.Lock()
	defer c.pollMu.Unlock()
	c.commitAll()
	return nil
}

// commitAll writes each queue's consume offset (those with one) into the offset store.
// Java: DefaultLitePullConsumerImpl#commitAll.
func (c *DefaultLitePullConsumer) commitAll() {
	mqs := c.assigned.MessageQueues()
	table := map[primitive.MessageQueue]int64{}
	var committed []primitive.MessageQueue
	for _, q := range mqs {
		v := c.assigned.ConsumeOffset(q)
		if pq := c.assigned.ProcessQueue(q); v != -1 && pq != nil && !pq.Dropped() {
			c.offsets.UpdateOffset(q, v, false)
			table[q] = v
			committed = append(committed, q)
		}
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#commitAll", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("offsets", formatOffsets(committed, table)))
	}
	if c.cfg.MessageModel == protocol.Broadcasting {
		c.offsets.PersistAll(mqs)
	}
}

// Seek makes mq's next pull start at offset (ConsumeQueue units, within the queue's [min,
// max] as its broker reports them): what the cache holds of mq is dropped, a pull in flight is
// ignored, and the consume offset becomes offset. Errors: client.ErrServiceState,
// ErrNotAssigned, ErrSeekOffsetIllegal, a failed GET_MIN_OFFSET / GET_MAX_OFFSET.
// Java: DefaultLitePullConsumerImpl#seek.
func (c *DefaultLitePullConsumer) Seek(mq primitive.MessageQueue, offset int64) error {
	if err := c.running(); err != nil {
		return err
	}
	if !c.assigned.Contains(mq) {
		return fmt.Errorf("%w: %s", ErrNotAssigned, mq)
	}
	minOff, err := c.MinOffset(mq)
	if err != nil {
		return err
	}
	maxOff, err := c.MaxOffset(mq)
	if err != nil {
		return err
	}
	if offset < minOff || offset > maxOff {
		return fmt.Errorf("%w: seek offset = %d, min offset = %d, max offset = %d", ErrSeekOffsetIllegal, offset, minOff, maxOff)
	}
	c.pollMu.Lock()
	defer c.pollMu.Unlock()
	c.seekMu.Lock()
	defer c.seekMu.Unlock()
	pq := c.assigned.ProcessQueue(mq)
	if pq == nil || pq.Dropped() {
		return fmt.Errorf("%w: %s", ErrNotAssigned, mq)
	}
	c.seekSeq[mq]++
	c.assigned.with(mq, func(st *messageQueueState) { st.seekOffset, st.consumeOffset = offset, offset })
	for _, r := range c.cache.removeQueue(mq) {
		pq.RemoveMessage(r.msgs)
	}
	// Java: updatePullTask(mq) — a new task, so a pull in flight from the old offset is cancelled.
	c.tasksMu.Lock()
	if _, ok := c.taskTable[mq]; ok {
		c.newPullTask(mq)
	}
	c.tasksMu.Unlock()
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#seek", slog.String("topic", mq.Topic), slog.Int("queueId", int(mq.QueueID)),
			slog.Int64("offset", offset), slog.Int64("minOffset", minOff), slog.Int64("maxOffset", maxOff))
	}
	return nil
}

// SeekToBegin seeks mq to its min offset. Java: DefaultLitePullConsumerImpl#seekToBegin.
func (c *DefaultLitePullConsumer) SeekToBegin(mq primitive.MessageQueue) error {
	v, err := c.MinOffset(mq)
	if err != nil {
		return err
	}
	return c.Seek(mq, v)
}

// SeekToEnd seeks mq to its max offset (the next message sent). Java: DefaultLitePullConsumerImpl#seekToEnd.
func (c *DefaultLitePullConsumer) SeekToEnd(mq primitive.MessageQueue) error {
	v, err := c.MaxOffset(mq)
	if err != nil {
		return err
	}
	return c.Seek(mq, v)
}

// MinOffset asks mq's broker for the queue's min offset (GET_MIN_OFFSET). Java: MQAdminImpl#minOffset.
func (c *DefaultLitePullConsumer) MinOffset(mq primitive.MessageQueue) (int64, error) {
	return c.queueOffset(mq, c.instance.MQClientAPI().GetMinOffset)
}

// MaxOffset asks mq's broker for the queue's max offset (GET_MAX_OFFSET). Java: MQAdminImpl#maxOffset.
func (c *DefaultLitePullConsumer) MaxOffset(mq primitive.MessageQueue) (int64, error) {
	return c.queueOffset(mq, c.instance.MQClientAPI().GetMaxOffset)
}

func (c *DefaultLitePullConsumer) queueOffset(mq primitive.MessageQueue,
	get func(context.Context, string, primitive.MessageQueue) (int64, error)) (int64, error) {
	if err := c.running(); err != nil {
		return 0, err
	}
	addr := c.startOffset().addr(mq)
	if addr == "" {
		return 0, fmt.Errorf("%w: the broker[%s] not exist", client.ErrBrokerNotExist, mq.BrokerName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.instance.Config().MQClientAPITimeout)
	defer cancel()
	return get(ctx, addr, mq)
}

// Pause stops pulling mqs (their tasks check again every second); Poll returns none of their
// messages until Resume. Java: DefaultLitePullConsumer#pause.
func (c *DefaultLitePullConsumer) Pause(mqs []primitive.MessageQueue) {
	c.assigned.setPaused(mqs, true)
}

// Resume lets mqs be pulled and polled again. Java: DefaultLitePullConsumer#resume.
func (c *DefaultLitePullConsumer) Resume(mqs []primitive.MessageQueue) {
	c.assigned.setPaused(mqs, false)
	select {
	case c.cache.signal <- struct{}{}:
	default:
	}
}

// Committed returns mq's committed offset (ConsumeQueue units): the one in memory, else the
// broker's (-1: none). Errors: client.ErrServiceState, a failed broker query.
// Java: DefaultLitePullConsumerImpl#committed.
func (c *DefaultLitePullConsumer) Committed(mq primitive.MessageQueue) (int64, error) {
	if err := c.running(); err != nil {
		return 0, err
	}
	v := c.offsets.ReadOffset(mq, MemoryFirstThenStore)
	if v == -2 {
		return 0, fmt.Errorf("fetch consume offset from broker exception: %s", mq)
	}
	return v, nil
}

// FetchMessageQueues returns topic's readable queues, from a route asked of the name server now.
// Errors: client.ErrServiceState, the name server's error, none found.
// Java: DefaultLitePullConsumerImpl#fetchMessageQueues (MQAdminImpl#fetchSubscribeMessageQueues).
func (c *DefaultLitePullConsumer) FetchMessageQueues(topic string) ([]primitive.MessageQueue, error) {
	if err := c.running(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.instance.Config().MQClientAPITimeout)
	defer cancel()
	route, err := c.instance.MQClientAPI().GetTopicRouteInfoFromNameServer(ctx, topic, true)
	if err != nil {
		return nil, err
	}
	mqs := client.TopicRouteData2TopicSubscribeInfo(topic, route)
	if len(mqs) == 0 {
		return nil, fmt.Errorf("can not find message queue for this topic, %s", topic)
	}
	return mqs, nil
}

// Assignment returns the queues read now, sorted.
func (c *DefaultLitePullConsumer) Assignment() []primitive.MessageQueue {
	return c.assigned.MessageQueues()
}

// OffsetStore is the consumer's offset store (nil before Start).
func (c *DefaultLitePullConsumer) OffsetStore() OffsetStore { return c.offsets }

// CachedMessages returns how many messages the consume request cache holds, and how many of
// them are mq's (flow control reads both).
func (c *DefaultLitePullConsumer) CachedMessages(mq primitive.MessageQueue) (all, queue int64) {
	c.cache.mu.Lock()
	defer c.cache.mu.Unlock()
	for _, r := range c.cache.reqs {
		all += int64(len(r.msgs))
		if r.mq == mq {
			queue += int64(len(r.msgs))
		}
	}
	return all, queue
}

// Shutdown ends the consumer's rebalancing (Rebalance.Stop: the pass in flight finishes first,
// so no GET_CONSUMER_LIST_BY_GROUP follows the UNREGISTER_CLIENT), cancels the pull tasks (and
// pulls in flight), persists the offsets of the queues
// read now, unregisters the group and shuts the instance down when nothing else uses it, then
// waits for the tasks. Java: DefaultLitePullConsumerImpl#shutdown.
func (c *DefaultLitePullConsumer) Shutdown() {
	if !c.beginShutdown() {
		return
	}
	if c.tr.Enabled() {
		c.tr.Step("DefaultLitePullConsumerImpl#shutdown", slog.String("consumerGroup", c.cfg.ConsumerGroup),
			slog.String("clientId", c.instance.ClientID()), slog.Int("queues", len(c.assigned.MessageQueues())))
	}
	c.tasksMu.Lock()
	c.closed = true
	c.taskTable = map[primitive.MessageQueue]*pullTask{}
	c.tasksMu.Unlock()
	c.tasks.Close()
	c.stopAll()
	c.tasks.Wait()
	c.PersistConsumerOffset()
	c.instance.UnregisterConsumer(c.cfg.ConsumerGroup)
	c.instance.Shutdown()
	c.rebalance.DestroyAll()
}

// --- client.MQConsumerInner ---

// ConsumeType is CONSUME_ACTIVELY.
func (c *DefaultLitePullConsumer) ConsumeType() protocol.ConsumeType { return protocol.ConsumeActively }

// DoRebalance reassigns the queues in subscribe mode; an assigning consumer ignores the group's
// rebalance. Java: DefaultLitePullConsumerImpl#doRebalance.
func (c *DefaultLitePullConsumer) DoRebalance() {
	c.mu.Lock()
	sub := c.subType == subscriptionSubscribe
	c.mu.Unlock()
	if sub && c.rebalance != nil {
		c.rebalance.DoRebalance(false)
	}
}

// PersistConsumerOffset sends the offsets of the queues read now to the offset store's home.
// Java: DefaultLitePullConsumerImpl#persistConsumerOffset.
func (c *DefaultLitePullConsumer) PersistConsumerOffset() {
	if c.offsets == nil {
		return
	}
	c.offsets.PersistAll(c.assigned.MessageQueues())
}
