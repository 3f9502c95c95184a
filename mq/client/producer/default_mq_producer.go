package producer

import (
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// The send API re-exports mq/client's result types, so a producer's user needs one import.
type (
	SendResult        = client.SendResult
	SendStatus        = client.SendStatus
	CommunicationMode = client.CommunicationMode
)

// Send statuses (see client.SendStatus).
const (
	SendOK            = client.SendOK
	FlushDiskTimeout  = client.FlushDiskTimeout
	FlushSlaveTimeout = client.FlushSlaveTimeout
	SlaveNotAvailable = client.SlaveNotAvailable
)

// SendCallback receives the outcome of an asynchronous send: a result, or an error. It is
// called exactly once per accepted SendAsync, on a goroutine of its own.
// Mirrors org.apache.rocketmq.client.producer.SendCallback (onSuccess / onException).
type SendCallback func(*SendResult, error)

// DefaultMQProducer sends messages: it finds a topic's route through its MQClientInstance,
// picks a queue with its MQFaultStrategy and sends with retries.
// Mirrors org.apache.rocketmq.client.producer.DefaultMQProducer (the API and config) and
// org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl (the logic) in one type.
//
// Safe for concurrent use after Start. Locks: mu guards state, closing, the instance and the
// hooks (state is an atomic too, for the send fast path); tpMu guards topicPublishInfoTable.
// Goroutines: the async sender executor, GOMAXPROCS workers (at least 2) draining a queue of
// up to 50000 asynchronous sends (Java: asyncSenderExecutor, availableProcessors threads and a
// 50000-task queue); Shutdown waits for every accepted send's callback, then stops them.
type DefaultMQProducer struct {
	cfg           Config
	tr            *trace.Tracer
	log           *slog.Logger
	faultStrategy *MQFaultStrategy
	retryCodes    map[int32]bool

	mu       sync.Mutex
	state    atomic.Int32 // client.ServiceState
	instance *client.MQClientInstance
	hooks    []SendMessageHook
	closing  bool           // Shutdown began: no new asynchronous send is accepted
	asyncWG  sync.WaitGroup // accepted asynchronous sends whose callback has not returned

	asyncQueue   chan func()    // the asyncSenderExecutor's queue
	asyncWorkers sync.WaitGroup // its goroutines

	tpMu                  sync.RWMutex
	topicPublishInfoTable map[string]*client.TopicPublishInfo

	// registrant is what Start registers with the instance: p itself, or the
	// TransactionMQProducer around it (so CHECK_TRANSACTION_STATE reaches its listener).
	registrant client.MQProducerInner
}

// NewDefaultMQProducer returns a producer for cfg (see DefaultConfig); it does nothing until
// Start. Steps are traced as component "producer" to cfg.Options.Logger.
func NewDefaultMQProducer(cfg Config) *DefaultMQProducer {
	cfg = cfg.withDefaults()
	p := &DefaultMQProducer{
		cfg:                   cfg,
		tr:                    trace.New(cfg.Options.Logger, "producer"),
		log:                   cfg.Options.Log(),
		retryCodes:            map[int32]bool{},
		topicPublishInfoTable: map[string]*client.TopicPublishInfo{},
	}
	for _, c := range cfg.RetryResponseCodes {
		p.retryCodes[c] = true
	}
	p.faultStrategy = NewMQFaultStrategy(cfg.LatencyMax, cfg.NotAvailableDuration, clock.Or(cfg.Options.Clock), cfg.Options.NextIndexSeed(), p.tr)
	p.faultStrategy.SetSendLatencyFaultEnable(cfg.SendLatencyFaultEnable)
	return p
}

// Config returns the producer's config (defaults filled in; after Start, the instance name
// made unique).
func (p *DefaultMQProducer) Config() Config {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cfg
}

// now reads the producer's clock (Options.Clock; the wall clock when nil).
func (p *DefaultMQProducer) now() time.Time { return p.cfg.Options.Now() }

func (p *DefaultMQProducer) nowMillis() int64 { return p.now().UnixMilli() }

// Start registers the producer with the MQClientInstance of its clientId (creating and
// starting it if needed) and sends a heartbeat to the brokers the instance knows. A producer
// starts once. Errors: ErrIllegalConfig (group), ErrGroupExists, ErrServiceState.
// Java: DefaultMQProducerImpl#start(true).
func (p *DefaultMQProducer) Start() error {
	p.mu.Lock()
	switch client.ServiceState(p.state.Load()) {
	case client.CreateJust:
	default:
		st := client.ServiceState(p.state.Load())
		p.mu.Unlock()
		return fmt.Errorf("%w: the producer service state not OK, maybe started once, %s", client.ErrServiceState, st)
	}
	if p.tr.Enabled() {
		p.tr.Step("DefaultMQProducerImpl#start", slog.String("producerGroup", p.cfg.ProducerGroup),
			slog.Bool("sendLatencyFaultEnable", p.faultStrategy.SendLatencyFaultEnable()),
			slog.Int("retryTimesWhenSendFailed", p.cfg.RetryTimesWhenSendFailed),
			slog.Duration("sendMsgTimeout", p.cfg.SendMsgTimeout))
	}
	p.state.Store(int32(client.StartFailed))
	if err := p.checkConfig(); err != nil {
		p.state.Store(int32(client.CreateJust))
		p.mu.Unlock()
		return err
	}
	if p.cfg.ProducerGroup != protocol.ClientInnerProducerGroup {
		p.cfg.ChangeInstanceNameToPID()
	}
	inst := client.GetMQClientManager().GetOrCreateMQClientInstance(p.cfg.ClientConfig, p.cfg.Options)
	var registrant client.MQProducerInner = p
	if p.registrant != nil {
		registrant = p.registrant
	}
	if !inst.RegisterProducer(p.cfg.ProducerGroup, registrant) {
		p.state.Store(int32(client.CreateJust))
		p.mu.Unlock()
		return fmt.Errorf("%w: the producer group[%s] has been created before, specify another name please",
			client.ErrGroupExists, p.cfg.ProducerGroup)
	}
	p.instance = inst
	p.tpMu.Lock()
	p.topicPublishInfoTable[p.cfg.CreateTopicKey] = client.NewTopicPublishInfo()
	p.tpMu.Unlock()
	if err := inst.Start(); err != nil {
		inst.UnregisterProducer(p.cfg.ProducerGroup)
		p.mu.Unlock()
		return err
	}
	p.startAsyncSenderExecutor()
	p.log.Info("the producer start OK", "producerGroup", p.cfg.ProducerGroup, "clientId", inst.ClientID())
	p.state.Store(int32(client.Running))
	p.mu.Unlock()
	inst.SendHeartbeatToAllBrokerWithLock()
	return nil
}

// asyncQueueCapacity is the async sender executor's queue bound (Java: LinkedBlockingQueue(50000)).
const asyncQueueCapacity = 50000

func (p *DefaultMQProducer) startAsyncSenderExecutor() {
	p.asyncQueue = make(chan func(), asyncQueueCapacity)
	for range max(runtime.GOMAXPROCS(0), 2) {
		p.asyncWorkers.Go(func() {
			for task := range p.asyncQueue {
				task()
			}
		})
	}
}

// checkConfig: a valid group name that is not DEFAULT_PRODUCER. Java: DefaultMQProducerImpl#checkConfig.
func (p *DefaultMQProducer) checkConfig() error {
	if err := protocol.ValidateGroup(p.cfg.ProducerGroup); err != nil {
		return fmt.Errorf("%w: %w", client.ErrIllegalConfig, err)
	}
	if p.cfg.ProducerGroup == protocol.DefaultProducerGroup {
		return fmt.Errorf("%w: producerGroup can not equal %s, please specify another one",
			client.ErrIllegalConfig, protocol.DefaultProducerGroup)
	}
	return nil
}

// Shutdown stops accepting sends, waits for the callbacks of pending asynchronous sends,
// unregisters the producer (UNREGISTER_CLIENT to the brokers) and shuts the instance down if
// nothing else uses it. Safe to call more than once. Java: DefaultMQProducerImpl#shutdown(true).
func (p *DefaultMQProducer) Shutdown() {
	p.mu.Lock()
	if client.ServiceState(p.state.Load()) != client.Running || p.closing {
		p.mu.Unlock()
		return
	}
	p.closing = true
	inst := p.instance
	p.mu.Unlock()
	p.asyncWG.Wait() // accepted asynchronous sends run to their callback
	close(p.asyncQueue)
	p.asyncWorkers.Wait()
	p.state.Store(int32(client.ShutdownAlready))
	inst.UnregisterProducer(p.cfg.ProducerGroup)
	inst.Shutdown()
	p.log.Info("the producer shutdown OK", "producerGroup", p.cfg.ProducerGroup)
}

// makeSureStateOK: sends need a running producer. Java: DefaultMQProducerImpl#makeSureStateOK.
func (p *DefaultMQProducer) makeSureStateOK() error {
	if st := client.ServiceState(p.state.Load()); st != client.Running {
		return fmt.Errorf("%w: the producer service state not OK, %s", client.ErrServiceState, st)
	}
	return nil
}

// MQClientInstance returns the instance the producer is registered with (nil before Start).
// Java: DefaultMQProducerImpl#getMqClientFactory.
func (p *DefaultMQProducer) MQClientInstance() *client.MQClientInstance {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.instance
}

// FaultStrategy returns the producer's MQFaultStrategy (its fault table, its switch).
func (p *DefaultMQProducer) FaultStrategy() *MQFaultStrategy { return p.faultStrategy }

// SetSendLatencyFaultEnable turns the latency fault tolerance on or off, also while running.
// Java: DefaultMQProducer#setSendLatencyFaultEnable.
func (p *DefaultMQProducer) SetSendLatencyFaultEnable(on bool) {
	p.faultStrategy.SetSendLatencyFaultEnable(on)
}

// RegisterSendMessageHook adds a hook called around every send attempt.
// Java: DefaultMQProducerImpl#registerSendMessageHook.
func (p *DefaultMQProducer) RegisterSendMessageHook(h SendMessageHook) {
	p.mu.Lock()
	p.hooks = append(slices.Clip(p.hooks), h)
	p.mu.Unlock()
}

func (p *DefaultMQProducer) sendHooks() []SendMessageHook {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hooks
}

// SelectOneMessageQueue picks the queue of a send attempt through the fault strategy
// (implements client.AsyncSendProducer). Java: DefaultMQProducerImpl#selectOneMessageQueue.
func (p *DefaultMQProducer) SelectOneMessageQueue(tp *client.TopicPublishInfo, lastBrokerName string) (primitive.MessageQueue, bool) {
	return p.faultStrategy.SelectOneMessageQueue(tp, lastBrokerName)
}

// UpdateFaultItem records a send's latency (ms) on brokerName; isolation marks a failure
// (implements client.AsyncSendProducer). Java: DefaultMQProducerImpl#updateFaultItem.
func (p *DefaultMQProducer) UpdateFaultItem(brokerName string, currentLatency int64, isolation bool) {
	p.faultStrategy.UpdateFaultItem(brokerName, currentLatency, isolation)
}

// PublishTopicList implements client.MQProducerInner: the topics of the publish table, sorted.
// Java: DefaultMQProducerImpl#getPublishTopicList.
func (p *DefaultMQProducer) PublishTopicList() []string {
	p.tpMu.RLock()
	defer p.tpMu.RUnlock()
	return slices.Sorted(maps.Keys(p.topicPublishInfoTable))
}

// IsPublishTopicNeedUpdate implements client.MQProducerInner: no info, or an info without
// queues. Java: DefaultMQProducerImpl#isPublishTopicNeedUpdate.
func (p *DefaultMQProducer) IsPublishTopicNeedUpdate(topic string) bool {
	p.tpMu.RLock()
	defer p.tpMu.RUnlock()
	return !p.topicPublishInfoTable[topic].OK()
}

// UpdateTopicPublishInfo implements client.MQProducerInner: install info for topic.
// Java: DefaultMQProducerImpl#updateTopicPublishInfo.
func (p *DefaultMQProducer) UpdateTopicPublishInfo(topic string, info *client.TopicPublishInfo) {
	if info == nil || topic == "" {
		return
	}
	p.tpMu.Lock()
	p.topicPublishInfoTable[topic] = info
	p.tpMu.Unlock()
}

// IsUnitMode implements client.MQProducerInner.
func (p *DefaultMQProducer) IsUnitMode() bool { return p.cfg.UnitMode }

// TopicPublishInfo returns the producer's current info for topic (nil if none).
func (p *DefaultMQProducer) TopicPublishInfo(topic string) *client.TopicPublishInfo {
	p.tpMu.RLock()
	defer p.tpMu.RUnlock()
	return p.topicPublishInfoTable[topic]
}
