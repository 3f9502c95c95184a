package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// registerFirstDelay is the wait before the first periodic registration (the one in Start
// comes first). Java: scheduleAtFixedRate(..., 1000 * 10, period).
const registerFirstDelay = 10 * time.Second

// registerMaxPeriod caps RegisterNameServerPeriod (Java: min(period, 60 s)).
const registerMaxPeriod = 60 * time.Second

// Queue capacities of the worker pools (Java: BrokerConfig *ThreadPoolQueueCapacity).
const (
	pullPoolQueueCapacity      = 100000
	heartbeatPoolQueueCapacity = 50000
)

// messageStore is the part of the store the processors use (*store.DefaultMessageStore).
type messageStore interface {
	AsyncPutMessage(msg *primitive.MessageExtBrokerInner) <-chan store.PutMessageResult
	PutMessages(batch *primitive.MessageExtBrokerInner) store.PutMessageResult
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetMessageResult
	GetMaxOffsetInQueue(topic string, queueID int32) int64
	GetMinOffsetInQueue(topic string, queueID int32) int64
	GetOffsetInQueueByTime(topic string, queueID int32, timestampMs int64) int64
	CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset int64) bool
}

// ErrBrokerState is returned when the life-cycle methods are called out of order.
var ErrBrokerState = errors.New("broker: wrong life-cycle state")

// BrokerController owns one broker: its managers, the message store, the remoting server with
// its processors, the background services, and the registration with the name servers.
// Mirrors org.apache.rocketmq.broker.BrokerController.
//
// Life cycle: NewBrokerController → Initialize → Start → Shutdown (Shutdown is safe at any
// point, also after a failed Initialize or Start).
type BrokerController struct {
	cfg       BrokerConfig
	serverCfg remoting.ServerConfig
	storeCfg  store.MessageStoreConfig
	tr        *trace.Tracer
	log       *slog.Logger

	topicConfigManager        *TopicConfigManager
	consumerOffsetManager     *ConsumerOffsetManager
	subscriptionGroupManager  *SubscriptionGroupManager
	consumerIdsChangeListener *DefaultConsumerIdsChangeListener
	consumerManager           *ConsumerManager
	producerManager           *ProducerManager
	clientHousekeepingService *ClientHousekeepingService
	pullRequestHoldService    *PullRequestHoldService
	messageArrivingListener   *NotifyMessageArrivingListener
	brokerOuterAPI            *BrokerOuterAPI

	messageStore *store.DefaultMessageStore
	store        messageStore

	remotingServer          *remoting.Server
	sendMessageProcessor    *SendMessageProcessor
	pullMessageProcessor    *PullMessageProcessor
	clientManageProcessor   *ClientManageProcessor
	consumerManageProcessor *ConsumerManageProcessor
	adminBrokerProcessor    *AdminBrokerProcessor

	// registerService runs RegisterBrokerAll periodically; Wakeup runs it now (topic created).
	registerService *service.ServiceThread
	// registerMu serializes registrations (Java: synchronized registerBrokerAll).
	registerMu sync.Mutex

	// addr is brokerIP1:boundPort once the server listens; hostBytes its raw store-host form.
	addr      atomic.Pointer[string]
	hostBytes atomic.Pointer[[]byte]

	stateMu      sync.Mutex
	initialized  bool
	started      bool
	shutdownDone bool
}

// NewBrokerController validates the configs and returns a controller; nothing runs and nothing
// touches the disk until Initialize. The listen port is cfg.ListenPort; when that is 0, the
// port of serverCfg.ListenAddr (0 = ephemeral). The listen host is serverCfg.ListenAddr's
// (empty = all interfaces). tr nil turns the step trace off; operating logs go to tr's logger.
// Java: BrokerController(brokerConfig, nettyServerConfig, nettyClientConfig, messageStoreConfig).
func NewBrokerController(cfg BrokerConfig, serverCfg remoting.ServerConfig, storeCfg store.MessageStoreConfig,
	tr *trace.Tracer) (*BrokerController, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := storeCfg.Validate(); err != nil {
		return nil, err
	}
	b := &BrokerController{
		cfg:             cfg,
		serverCfg:       serverCfg,
		storeCfg:        storeCfg,
		tr:              tr,
		log:             orDiscard(tr.Logger()),
		registerService: service.New("BrokerRegisterService"),
	}
	c := &b.cfg
	b.topicConfigManager = NewTopicConfigManager(c, b.log)
	b.topicConfigManager.SetRegisterBroker(b.registerService.Wakeup)
	b.consumerOffsetManager = NewConsumerOffsetManager()
	b.subscriptionGroupManager = NewSubscriptionGroupManager(c, b.log)
	b.consumerIdsChangeListener = NewDefaultConsumerIdsChangeListener(c, tr, b.log)
	b.consumerManager = NewConsumerManager(b.consumerIdsChangeListener, c.ChannelExpiredTimeout, tr, b.log)
	b.producerManager = NewProducerManager(c.ChannelExpiredTimeout, b.log)
	b.clientHousekeepingService = NewClientHousekeepingService(b.consumerManager, b.producerManager, c.ClientHousekeepingInterval)
	b.messageArrivingListener = &NotifyMessageArrivingListener{}
	b.brokerOuterAPI = NewBrokerOuterAPI(remoting.ClientConfig{}, tr)
	return b, nil
}

// Initialize creates and loads the message store, creates the remoting server and registers
// the processors. Java: BrokerController#initialize.
func (b *BrokerController) Initialize() error {
	b.stateMu.Lock()
	defer b.stateMu.Unlock()
	if b.initialized || b.shutdownDone {
		return fmt.Errorf("%w: Initialize called twice or after Shutdown", ErrBrokerState)
	}
	ms, err := store.NewDefaultMessageStore(b.storeCfg, b.messageArrivingListener, b.tr)
	if err != nil {
		return fmt.Errorf("broker: create message store: %w", err)
	}
	b.messageStore = ms
	b.store = ms
	ok, err := ms.Load()
	if err != nil {
		return fmt.Errorf("broker: load message store: %w", err)
	}
	if !ok {
		return fmt.Errorf("broker: load message store failed")
	}

	b.pullMessageProcessor = NewPullMessageProcessor(b)
	b.pullRequestHoldService = NewPullRequestHoldService(&b.cfg, ms, b.pullMessageProcessor.executeRequestWhenWakeup, b.tr, b.log)
	b.messageArrivingListener.hold = b.pullRequestHoldService

	sc := b.serverCfg
	sc.ListenAddr = listenAddr(b.serverCfg.ListenAddr, b.cfg.ListenPort)
	b.remotingServer = remoting.NewServer(sc, b.clientHousekeepingService, b.tr)
	b.registerProcessor()
	if len(b.cfg.NamesrvAddrList()) > 0 {
		b.brokerOuterAPI.UpdateNameServerAddressList(b.cfg.NamesrvAddrList())
	}
	b.initialized = true
	return nil
}

// listenAddr combines the host of addr with port, or with addr's own port when port is 0.
func listenAddr(addr string, port int) string {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return net.JoinHostPort("", strconv.Itoa(port)) // no or bad address: all interfaces
	}
	if port == 0 {
		return net.JoinHostPort(host, p)
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// registerProcessor routes request codes to processors, each group on its own worker pool, as
// Java does. Java: BrokerController#registerProcessor.
func (b *BrokerController) registerProcessor() {
	s, c := b.remotingServer, &b.cfg
	b.sendMessageProcessor = NewSendMessageProcessor(b)
	sendPool := remoting.NewWorkerPool(c.SendMessageThreadPoolNums, remoting.DefaultPoolQueueCapacity)
	for _, code := range []int32{protocol.SendMessage, protocol.SendMessageV2, protocol.SendBatchMessage} {
		s.RegisterProcessorPool(code, b.sendMessageProcessor, sendPool)
	}
	s.RegisterProcessorPool(protocol.PullMessage, b.pullMessageProcessor,
		remoting.NewWorkerPool(c.PullMessageThreadPoolNums, pullPoolQueueCapacity))

	b.clientManageProcessor = NewClientManageProcessor(b)
	s.RegisterProcessorPool(protocol.HeartBeat, b.clientManageProcessor,
		remoting.NewWorkerPool(c.HeartbeatThreadPoolNums, heartbeatPoolQueueCapacity))
	clientPool := remoting.NewWorkerPool(c.ClientManageThreadPoolNums, remoting.DefaultPoolQueueCapacity)
	s.RegisterProcessorPool(protocol.UnregisterClient, b.clientManageProcessor, clientPool)
	s.RegisterProcessorPool(protocol.CheckClientConfig, b.clientManageProcessor, clientPool)

	b.consumerManageProcessor = NewConsumerManageProcessor(b)
	consumerPool := remoting.NewWorkerPool(c.ConsumerManageThreadPoolNums, remoting.DefaultPoolQueueCapacity)
	for _, code := range []int32{protocol.GetConsumerListByGroup, protocol.UpdateConsumerOffset, protocol.QueryConsumerOffset} {
		s.RegisterProcessorPool(code, b.consumerManageProcessor, consumerPool)
	}

	// Java registers the admin processor as the default one: it answers every other code,
	// REQUEST_CODE_NOT_SUPPORTED for those it does not know.
	b.adminBrokerProcessor = NewAdminBrokerProcessor(b)
	s.RegisterDefaultProcessor(b.adminBrokerProcessor, c.AdminBrokerThreadPoolNums)
}

// Start starts the store, the server and the services, registers with the name servers once,
// then every RegisterNameServerPeriod (first after 10 s). Java: BrokerController#start.
func (b *BrokerController) Start() error {
	b.stateMu.Lock()
	defer b.stateMu.Unlock()
	if !b.initialized || b.started || b.shutdownDone {
		return fmt.Errorf("%w: Start needs a successful Initialize and no Start or Shutdown before", ErrBrokerState)
	}
	if b.tr.Enabled() {
		b.tr.Step("BrokerController#start", slog.String("brokerName", b.cfg.BrokerName),
			slog.String("cluster", b.cfg.BrokerClusterName), slog.Int64("brokerId", b.cfg.BrokerID))
	}
	if err := b.messageStore.Start(); err != nil {
		return fmt.Errorf("broker: start message store: %w", err)
	}
	b.started = true // from here Shutdown has things to stop
	if err := b.remotingServer.Start(); err != nil {
		return fmt.Errorf("broker: start remoting server: %w", err)
	}
	addr := net.JoinHostPort(b.cfg.BrokerIP1, strconv.Itoa(b.remotingServer.Port()))
	hb, err := primitive.HostBytes(addr)
	if err != nil {
		return fmt.Errorf("broker: brokerIP1 %q: %w", b.cfg.BrokerIP1, err)
	}
	b.addr.Store(&addr)
	b.hostBytes.Store(&hb)

	b.pullRequestHoldService.Start()
	b.clientHousekeepingService.Start()
	b.RegisterBrokerAll()
	period := min(b.cfg.RegisterNameServerPeriod, registerMaxPeriod)
	b.registerService.RunEvery(registerFirstDelay, period, b.RegisterBrokerAll)
	return nil
}

// RegisterBrokerAll registers this broker and its whole topic table with every name server
// (in parallel, RegisterBrokerTimeoutMills each). When the broker is not readable and
// writable, every topic is registered with the broker's permission. Safe to call any time after
// Start; calls are serialized. Java: BrokerController#registerBrokerAll.
func (b *BrokerController) RegisterBrokerAll() {
	b.registerMu.Lock()
	defer b.registerMu.Unlock()
	w := b.topicConfigManager.BuildTopicConfigSerializeWrapper()
	perm := int32(b.cfg.BrokerPermission)
	if !protocol.IsWriteable(perm) || !protocol.IsReadable(perm) {
		for name, tc := range w.TopicConfigTable {
			cp := *tc
			cp.Perm = perm
			w.TopicConfigTable[name] = &cp
		}
	}
	namesrvs := b.brokerOuterAPI.NameServerAddressList()
	if b.tr.Enabled() {
		b.tr.Step("BrokerController#registerBrokerAll", slog.String("brokerName", b.cfg.BrokerName),
			slog.Int("namesrvs", len(namesrvs)), slog.Int("topics", len(w.TopicConfigTable)),
			slog.Int64("dataVersion", w.DataVersion.Counter))
	}
	b.brokerOuterAPI.RegisterBrokerAll(b.cfg.BrokerClusterName, b.BrokerAddr(), b.cfg.BrokerName, b.cfg.BrokerID,
		b.HAServerAddr(), w, b.cfg.RegisterBrokerTimeoutMills)
}

// Shutdown unregisters from the name servers, then stops services, server and store, in
// reverse order of Start, and waits for every goroutine. Safe to call more than once.
// Java: BrokerController#shutdown.
//
// Deviation: Java unregisters after closing its server and store; we unregister first, so name
// servers stop routing clients here while the broker can still answer them.
func (b *BrokerController) Shutdown() {
	b.stateMu.Lock()
	defer b.stateMu.Unlock()
	if b.shutdownDone {
		return
	}
	b.shutdownDone = true
	b.registerService.Shutdown()
	if b.started && b.addr.Load() != nil {
		b.brokerOuterAPI.UnregisterBrokerAll(b.cfg.BrokerClusterName, b.BrokerAddr(), b.cfg.BrokerName, b.cfg.BrokerID)
	}
	b.clientHousekeepingService.Shutdown()
	if b.pullRequestHoldService != nil {
		b.pullRequestHoldService.Shutdown()
	}
	if b.remotingServer != nil {
		b.remotingServer.Shutdown()
	}
	if b.pullMessageProcessor != nil {
		b.pullMessageProcessor.shutdown()
	}
	if b.messageStore != nil {
		b.messageStore.Shutdown()
	}
	if b.sendMessageProcessor != nil {
		b.sendMessageProcessor.shutdown()
	}
	b.brokerOuterAPI.Shutdown()
}

// BrokerAddr is "brokerIP1:port": the port actually bound once started (a broker configured
// with port 0 publishes its ephemeral port), ListenPort before. Java: BrokerController#getBrokerAddr.
func (b *BrokerController) BrokerAddr() string {
	if a := b.addr.Load(); a != nil {
		return *a
	}
	return net.JoinHostPort(b.cfg.BrokerIP1, strconv.Itoa(b.cfg.ListenPort))
}

// HAServerAddr is "brokerIP2:port+1", the HA address published to name servers.
// Java: BrokerController#getHAServerAddr (BrokerStartup forces haListenPort = listenPort + 1).
func (b *BrokerController) HAServerAddr() string {
	port := b.cfg.ListenPort
	if b.remotingServer != nil {
		if p := b.remotingServer.Port(); p != 0 {
			port = p
		}
	}
	ip := b.cfg.BrokerIP2
	if ip == "" {
		ip = b.cfg.BrokerIP1
	}
	return net.JoinHostPort(ip, strconv.Itoa(port+1))
}

// storeHostBytes is BrokerAddr as a raw host field (4-byte IPv4 or 16-byte IPv6 + port).
func (b *BrokerController) storeHostBytes() []byte {
	if h := b.hostBytes.Load(); h != nil {
		return *h
	}
	h, _ := primitive.HostBytes(b.BrokerAddr())
	return h
}

// BrokerConfig returns the broker's configuration.
func (b *BrokerController) BrokerConfig() *BrokerConfig { return &b.cfg }

// MessageStoreConfig returns the store configuration.
func (b *BrokerController) MessageStoreConfig() *store.MessageStoreConfig { return &b.storeCfg }

// MessageStore returns the store (nil before Initialize).
func (b *BrokerController) MessageStore() *store.DefaultMessageStore { return b.messageStore }

// RemotingServer returns the server (nil before Initialize).
func (b *BrokerController) RemotingServer() *remoting.Server { return b.remotingServer }

// TopicConfigManager returns the topic table.
func (b *BrokerController) TopicConfigManager() *TopicConfigManager { return b.topicConfigManager }

// ConsumerOffsetManager returns the committed offsets.
func (b *BrokerController) ConsumerOffsetManager() *ConsumerOffsetManager {
	return b.consumerOffsetManager
}

// SubscriptionGroupManager returns the subscription group table.
func (b *BrokerController) SubscriptionGroupManager() *SubscriptionGroupManager {
	return b.subscriptionGroupManager
}

// ConsumerManager returns the consumer groups.
func (b *BrokerController) ConsumerManager() *ConsumerManager { return b.consumerManager }

// ProducerManager returns the producer groups.
func (b *BrokerController) ProducerManager() *ProducerManager { return b.producerManager }

// PullRequestHoldService returns the long-polling service (nil before Initialize).
func (b *BrokerController) PullRequestHoldService() *PullRequestHoldService {
	return b.pullRequestHoldService
}

// ClientHousekeepingService returns the client channel housekeeping.
func (b *BrokerController) ClientHousekeepingService() *ClientHousekeepingService {
	return b.clientHousekeepingService
}

// BrokerOuterAPI returns the name-server client.
func (b *BrokerController) BrokerOuterAPI() *BrokerOuterAPI { return b.brokerOuterAPI }
