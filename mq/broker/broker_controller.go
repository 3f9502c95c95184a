package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/acl"
	"github.com/annotated-rocketmq/rocketmq-go/mq/broker/transaction"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/service"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/ha"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store/schedule"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// registerFirstDelay is the wait before the first periodic registration (the one in Start
// comes first). Java: scheduleAtFixedRate(..., 1000 * 10, period).
const registerFirstDelay = 10 * time.Second

// registerMaxPeriod caps RegisterNameServerPeriod (Java: min(period, 60 s)).
const registerMaxPeriod = 60 * time.Second

// persistFirstDelay is the wait before the first periodic consumerOffset.json write.
// Java: scheduleAtFixedRate(persist, 1000 * 10, flushConsumerOffsetInterval).
const persistFirstDelay = 10 * time.Second

// fastPortOffset is how far below listenPort the fast (VIP) server listens (10911 → 10909).
// Java: BrokerController#initialize, fastConfig.setListenPort(listenPort - 2).
const fastPortOffset = 2

// Queue capacities of the worker pools (Java: BrokerConfig *ThreadPoolQueueCapacity).
const (
	pullPoolQueueCapacity      = 100000
	heartbeatPoolQueueCapacity = 50000
	// endTransactionPoolQueueCapacity: Java's endTransactionPoolQueueCapacity.
	endTransactionPoolQueueCapacity = 100000
)

// messageStore is the part of the store the processors use (*store.DefaultMessageStore).
type messageStore interface {
	AsyncPutMessage(msg *primitive.MessageExtBrokerInner) <-chan store.PutMessageResult
	PutMessageOrWait(msg *primitive.MessageExtBrokerInner) (store.PutMessageResult, <-chan store.PutMessageResult)
	PutMessagesOrWait(batch *primitive.MessageExtBrokerInner) (store.PutMessageResult, <-chan store.PutMessageResult)
	GetMessage(group, topic string, queueID int32, offset store.QueueOffset, maxMsgNums int32, filter store.MessageFilter) *store.GetMessageResult
	GetMaxOffsetInQueue(topic string, queueID int32) store.QueueOffset
	GetMinOffsetInQueue(topic string, queueID int32) store.QueueOffset
	GetOffsetInQueueByTime(topic string, queueID int32, timestampMs int64) store.QueueOffset
	CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset store.QueueOffset) bool
	LookMessageByOffset(commitLogOffset store.CommitLogOffset) (*primitive.MessageExt, error)
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
	storeOpts store.Options // the store's Go-only options (WithStoreOptions)
	tr        *trace.Tracer
	log       *slog.Logger
	// clock is the broker's one clock (WithClock); see options.go for who reads it.
	clock clock.Clock

	topicConfigManager        *TopicConfigManager
	consumerOffsetManager     *ConsumerOffsetManager
	subscriptionGroupManager  *SubscriptionGroupManager
	consumerIdsChangeListener *DefaultConsumerIdsChangeListener
	consumerManager           *ConsumerManager
	rebalanceLockManager      *RebalanceLockManager
	producerManager           *ProducerManager
	clientHousekeepingService *ClientHousekeepingService
	pullRequestHoldService    *PullRequestHoldService
	messageArrivingListener   *NotifyMessageArrivingListener
	brokerOuterAPI            *BrokerOuterAPI

	messageStore *store.DefaultMessageStore
	store        messageStore
	// scheduleMessageService delivers delayed messages (Java keeps it inside the store).
	scheduleMessageService *schedule.ScheduleMessageService
	// The transaction parts (transaction_hooks.go); the check service runs on a master.
	transactionalMessageService      transaction.TransactionalMessageService
	transactionalMessageCheckService *transaction.TransactionalMessageCheckService
	// haService replicates the store's CommitLog (Java: DefaultMessageStore#haService).
	haService *ha.HAService
	// haTracer traces the HA service's steps (WithHATracer); nil: not traced.
	haTracer *trace.Tracer
	// updateMasterHAServerAddrPeriodically: a slave without haMasterAddress follows the HA
	// address each registration answer names. Java: BrokerController#updateMasterHAServerAddrPeriodically.
	updateMasterHAServerAddrPeriodically bool
	// slaveSynchronize copies the master's config onto a slave; slaveSyncService runs it.
	slaveSynchronize *SlaveSynchronize
	slaveSyncService *service.ServiceThread

	remotingServer *remoting.Server
	// fastRemotingServer is the VIP channel on listenPort-2: every processor but PULL_MESSAGE,
	// on pools of its own (see registerProcessor).
	fastRemotingServer      *remoting.Server
	sendMessageProcessor    *SendMessageProcessor
	pullMessageProcessor    *PullMessageProcessor
	clientManageProcessor   *ClientManageProcessor
	consumerManageProcessor *ConsumerManageProcessor
	adminBrokerProcessor    *AdminBrokerProcessor
	queryMessageProcessor   *QueryMessageProcessor
	endTransactionProcessor *EndTransactionProcessor
	// aclManager holds plain_acl.yml when AclEnable (plain_access_validator.go); nil otherwise.
	aclManager *acl.PlainPermissionManager
	// brokerFastFailure answers stale queued requests SYSTEM_BUSY (broker_fast_failure.go).
	brokerFastFailure *BrokerFastFailure
	fastFailurePools  fastFailurePools
	// metrics counts puts, pulls and responses and reads the broker's state at a scrape
	// (broker_metrics.go); always built, served only when metricsExporterType=PROM.
	metrics *metrics.BrokerMetrics

	// registerService runs RegisterBrokerAll periodically; Wakeup runs it now (topic created).
	registerService *service.ServiceThread
	// masterWaitService registers a slave again while it knows no master (master_wait.go);
	// masterWaitLogged: the wait was logged.
	masterWaitService *service.ServiceThread
	masterWaitLogged  atomic.Bool
	// registerMu serializes registrations (Java: synchronized registerBrokerAll).
	registerMu sync.Mutex
	// persistService writes consumerOffset.json every FlushConsumerOffsetInterval and retries
	// failed topics.json / subscriptionGroup.json writes.
	persistService *service.ServiceThread

	// addr is brokerIP1:boundPort once the server listens; hostBytes its raw store-host form.
	addr      atomic.Pointer[string]
	hostBytes atomic.Pointer[[]byte]
	// vipAddr is brokerIP1:fastBoundPort once the fast server listens.
	vipAddr atomic.Pointer[string]

	stateMu     sync.Mutex
	initialized bool
	// storeLoaded: the store is loaded, so this broker holds the store's lock and may write
	// its config files (Shutdown persists them only then).
	storeLoaded  bool
	started      bool
	shutdownDone bool
}

// NewBrokerController validates the configs and returns a controller; nothing runs and nothing
// touches the disk until Initialize. Settings whose feature is not built (notBuiltKeys, e.g.
// brokerRole=SLAVE) are refused with an error naming them. The listen port is cfg.ListenPort;
// when that is 0, the port of serverCfg.ListenAddr (0 = ephemeral); the fast server's is 2
// below it. The listen host is serverCfg.ListenAddr's
// (empty = all interfaces). A broker on an ephemeral listen port gets an ephemeral
// haListenPort too (HAServerAddr publishes the bound one). tr nil turns the step trace off;
// operating logs go to tr's logger.
// Java: BrokerController(brokerConfig, nettyServerConfig, nettyClientConfig, messageStoreConfig).
func NewBrokerController(cfg BrokerConfig, serverCfg remoting.ServerConfig, storeCfg store.MessageStoreConfig,
	tr *trace.Tracer, opts ...Option) (*BrokerController, error) {
	if err := validateConfigs(&cfg, &storeCfg); err != nil {
		return nil, err
	}
	if _, p, err := net.SplitHostPort(listenAddr(serverCfg.ListenAddr, cfg.ListenPort)); err == nil && p == "0" {
		storeCfg.HaListenPort = 0 // an ephemeral listen port: an ephemeral HA port too
	}
	b := &BrokerController{
		cfg:               cfg,
		serverCfg:         serverCfg,
		storeCfg:          storeCfg,
		tr:                tr,
		log:               orDiscard(tr.Logger()),
		clock:             clock.System{},
		registerService:   service.New("BrokerRegisterService"),
		masterWaitService: service.New("SlaveMasterWait"),
		persistService:    service.New("BrokerConfigPersistService"),
		slaveSyncService:  service.New("SlaveSynchronize"),
	}
	b.slaveSynchronize = newSlaveSynchronize(b)
	for _, o := range opts {
		o(b)
	}
	c := &b.cfg
	b.topicConfigManager = NewTopicConfigManager(c, b.log, b.clock)
	b.topicConfigManager.SetRegisterBroker(b.registerService.Wakeup)
	b.consumerOffsetManager = NewConsumerOffsetManager()
	b.subscriptionGroupManager = NewSubscriptionGroupManager(c, b.log, b.clock)
	root := storeCfg.StorePathRootDir
	b.topicConfigManager.SetConfigFilePath(TopicConfigPath(root))
	b.consumerOffsetManager.SetConfigFilePath(ConsumerOffsetPath(root))
	b.subscriptionGroupManager.SetConfigFilePath(SubscriptionGroupPath(root))
	b.consumerIdsChangeListener = NewDefaultConsumerIdsChangeListener(c, tr, b.log)
	b.consumerManager = NewConsumerManager(b.consumerIdsChangeListener, c.ChannelExpiredTimeout, tr, b.log, b.clock)
	b.producerManager = NewProducerManager(c.ChannelExpiredTimeout, b.log, b.clock)
	b.rebalanceLockManager = NewRebalanceLockManager(b.clock, tr)
	b.clientHousekeepingService = NewClientHousekeepingService(b.consumerManager, b.producerManager, c.ClientHousekeepingInterval)
	b.messageArrivingListener = &NotifyMessageArrivingListener{}
	b.brokerOuterAPI = NewBrokerOuterAPI(outerAPIClientConfig(serverCfg), tr)
	b.brokerFastFailure = newBrokerFastFailure(b)
	b.metrics = newBrokerMetrics(b)
	return b, nil
}

// Initialize loads config/topics.json, consumerOffset.json and subscriptionGroup.json (each
// falling back to its .bak; a file that is corrupt with no readable .bak is an error naming
// it), creates and loads the message store, creates the remoting servers (main and fast) and
// registers the processors. Java: BrokerController#initialize (same order: the config files
// before the store).
func (b *BrokerController) Initialize() error {
	b.stateMu.Lock()
	defer b.stateMu.Unlock()
	if b.initialized || b.shutdownDone {
		return fmt.Errorf("%w: Initialize called twice or after Shutdown", ErrBrokerState)
	}
	if err := b.loadConfigFiles(); err != nil {
		return err
	}
	if b.storeOpts.Clock == nil {
		b.storeOpts.Clock = b.clock // one clock per broker unless the store was given its own
	}
	ms, err := store.NewDefaultMessageStore(b.storeCfg, b.storeOpts, b.messageArrivingListener, b.tr)
	if err != nil {
		return fmt.Errorf("broker: create message store: %w", err)
	}
	b.messageStore = ms
	b.store = ms
	if err := ms.Load(); err != nil {
		return fmt.Errorf("broker: load message store: %w", err)
	}
	b.storeLoaded = true
	b.haService = ha.NewHAService(ms, b.haTracer, b.log)
	if b.storeCfg.BrokerRole == store.Slave {
		// Java: BrokerController#initialize — a configured haMasterAddress (6 chars or more)
		// is fixed; otherwise the registration answers keep it up to date.
		b.updateMasterHAServerAddrPeriodically = len(b.storeCfg.HaMasterAddress) < 6
	}
	if err := b.initScheduleMessageService(); err != nil {
		return err
	}
	b.initTransaction()

	b.pullMessageProcessor = NewPullMessageProcessor(b)
	b.pullRequestHoldService = NewPullRequestHoldService(&b.cfg, ms, b.pullMessageProcessor.executeRequestWhenWakeup, b.tr, b.log, b.clock)
	b.messageArrivingListener.hold = b.pullRequestHoldService

	sc := b.serverCfg
	sc.ListenAddr = listenAddr(b.serverCfg.ListenAddr, b.cfg.ListenPort)
	b.remotingServer = remoting.NewServer(sc, b.clientHousekeepingService, b.tr, remoting.WithResponseObserver(b.metrics))
	fc := sc
	fc.ListenAddr = fastListenAddr(sc.ListenAddr)
	b.fastRemotingServer = remoting.NewServer(fc, b.clientHousekeepingService, b.tr, remoting.WithResponseObserver(b.metrics))
	b.registerProcessor()
	if err := b.initialAcl(); err != nil {
		return err
	}
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

// loadConfigFiles loads the three config files (Java: topicConfigManager.load(),
// consumerOffsetManager.load(), subscriptionGroupManager.load()).
func (b *BrokerController) loadConfigFiles() error {
	for _, f := range []struct {
		what string
		load func() (string, error)
	}{
		{"topic config", b.topicConfigManager.Load},
		{"consumer offsets", b.consumerOffsetManager.Load},
		{"subscription groups", b.subscriptionGroupManager.Load},
	} {
		used, err := f.load()
		if err != nil {
			return err
		}
		if used != "" {
			b.log.Info("load "+f.what+" OK", "file", used)
		}
	}
	return nil
}

// fastListenAddr is the fast (VIP) server's address: main's host, main's port - 2, or an
// ephemeral port when main's is (or is below 3).
func fastListenAddr(mainAddr string) string {
	host, p, err := net.SplitHostPort(mainAddr)
	if err != nil {
		return net.JoinHostPort("", "0")
	}
	port, _ := strconv.Atoi(p)
	if port < fastPortOffset+1 {
		port = 0
	} else {
		port -= fastPortOffset
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// registerProcessor routes request codes to processors on the main and the fast server.
// Java: BrokerController#registerProcessor.
func (b *BrokerController) registerProcessor() {
	b.sendMessageProcessor = NewSendMessageProcessor(b)
	b.clientManageProcessor = NewClientManageProcessor(b)
	b.consumerManageProcessor = NewConsumerManageProcessor(b)
	b.adminBrokerProcessor = NewAdminBrokerProcessor(b)
	b.queryMessageProcessor = NewQueryMessageProcessor(b)
	b.endTransactionProcessor = NewEndTransactionProcessor(b)
	b.registerProcessors(b.remotingServer, true)
	b.registerProcessors(b.fastRemotingServer, false)
}

// registerProcessors routes the codes of one server, each group on its own worker pool, as
// Java does; the fast server (withPull false) gets every processor but PULL_MESSAGE, which it
// answers through the admin processor as REQUEST_CODE_NOT_SUPPORTED.
//
// Deviation: Java's two servers share one executor per processor; ours have a pool set each,
// so each server's Shutdown can drain its own connections and then stop its own pools without
// turning the other server's last requests into SYSTEM_BUSY.
func (b *BrokerController) registerProcessors(s *remoting.Server, withPull bool) {
	c := &b.cfg
	sendPool := remoting.NewWorkerPool(c.SendMessageThreadPoolNums, remoting.DefaultPoolQueueCapacity, remoting.WithClock(b.clock))
	b.fastFailurePools.send = append(b.fastFailurePools.send, sendPool)
	for _, code := range []int32{protocol.SendMessage, protocol.SendMessageV2, protocol.SendBatchMessage, protocol.ConsumerSendMsgBack} {
		s.RegisterProcessorPool(code, b.sendMessageProcessor, sendPool)
	}
	if withPull {
		pullPool := remoting.NewWorkerPool(c.PullMessageThreadPoolNums, pullPoolQueueCapacity, remoting.WithClock(b.clock))
		b.fastFailurePools.pull = append(b.fastFailurePools.pull, pullPool)
		s.RegisterProcessorPool(protocol.PullMessage, b.pullMessageProcessor, pullPool)
	}
	queryPool := remoting.NewWorkerPool(queryMessageThreadPoolNums, remoting.DefaultPoolQueueCapacity, remoting.WithClock(b.clock))
	s.RegisterProcessorPool(protocol.QueryMessage, b.queryMessageProcessor, queryPool)
	s.RegisterProcessorPool(protocol.ViewMessageByID, b.queryMessageProcessor, queryPool)

	heartbeatPool := remoting.NewWorkerPool(c.HeartbeatThreadPoolNums, heartbeatPoolQueueCapacity, remoting.WithClock(b.clock))
	b.fastFailurePools.heartbeat = append(b.fastFailurePools.heartbeat, heartbeatPool)
	s.RegisterProcessorPool(protocol.HeartBeat, b.clientManageProcessor, heartbeatPool)
	clientPool := remoting.NewWorkerPool(c.ClientManageThreadPoolNums, remoting.DefaultPoolQueueCapacity, remoting.WithClock(b.clock))
	s.RegisterProcessorPool(protocol.UnregisterClient, b.clientManageProcessor, clientPool)
	s.RegisterProcessorPool(protocol.CheckClientConfig, b.clientManageProcessor, clientPool)

	consumerPool := remoting.NewWorkerPool(c.ConsumerManageThreadPoolNums, remoting.DefaultPoolQueueCapacity, remoting.WithClock(b.clock))
	for _, code := range []int32{protocol.GetConsumerListByGroup, protocol.UpdateConsumerOffset, protocol.QueryConsumerOffset} {
		s.RegisterProcessorPool(code, b.consumerManageProcessor, consumerPool)
	}

	s.RegisterProcessor(protocol.GetAllDelayOffset, remoting.ProcessorFunc(b.getAllDelayOffset), 1)
	endTxPool := remoting.NewWorkerPool(c.EndTransactionThreadPoolNums, endTransactionPoolQueueCapacity, remoting.WithClock(b.clock))
	b.fastFailurePools.endTransaction = append(b.fastFailurePools.endTransaction, endTxPool)
	s.RegisterProcessorPool(protocol.EndTransaction, b.endTransactionProcessor, endTxPool)

	// SEND_REPLY_MESSAGE(_V2): request/reply (reply_message_processor.go).
	replyPool := remoting.NewWorkerPool(c.ProcessReplyMessageThreadPoolNums, remoting.DefaultPoolQueueCapacity, remoting.WithClock(b.clock))
	reply := NewReplyMessageProcessor(b.sendMessageProcessor)
	s.RegisterProcessorPool(protocol.SendReplyMessage, reply, replyPool)
	s.RegisterProcessorPool(protocol.SendReplyMessageV2, reply, replyPool)

	// Java registers the admin processor as the default one: it answers every other code,
	// REQUEST_CODE_NOT_SUPPORTED for those it does not know.
	s.RegisterDefaultProcessor(b.adminBrokerProcessor, c.AdminBrokerThreadPoolNums)
}

// Start starts the store, the main and the fast server and the services, registers with the
// name servers once, then every RegisterNameServerPeriod (first after 10 s), and persists
// consumerOffset.json every FlushConsumerOffsetInterval (first after 10 s, or after the
// interval when that is shorter). A taken port is an error naming it ("broker listen port
// 10911 is taken: ..."). Java: BrokerController#start.
//
// Deviation: the first periodic persist comes after min(10 s, interval) rather than always
// 10 s, so tests and chapters with short intervals see it.
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
	// Java: DefaultMessageStore#start → haService.start(), before the broker's servers
	if err := b.haService.Start(); err != nil {
		return listenError("HA port (haListenPort)", net.JoinHostPort("", strconv.Itoa(b.storeCfg.HaListenPort)), err)
	}
	if b.storeCfg.BrokerRole != store.Slave { // Java: handleScheduleMessageService (master only)
		if err := b.scheduleMessageService.Start(); err != nil {
			return fmt.Errorf("broker: start schedule message service: %w", err)
		}
		if !b.storeOpts.ManualServices { // Java: startProcessorByHa (master only)
			b.transactionalMessageCheckService.Start()
		}
	}
	mainAddr := listenAddr(b.serverCfg.ListenAddr, b.cfg.ListenPort)
	if err := b.remotingServer.Start(); err != nil {
		return listenError("listen port", mainAddr, err)
	}
	if err := b.fastRemotingServer.Start(); err != nil {
		return listenError("fast (VIP) listen port", fastListenAddr(mainAddr), err)
	}
	vip := net.JoinHostPort(b.cfg.BrokerIP1, strconv.Itoa(b.fastRemotingServer.Port()))
	b.vipAddr.Store(&vip)
	addr := net.JoinHostPort(b.cfg.BrokerIP1, strconv.Itoa(b.remotingServer.Port()))
	hb, err := primitive.HostBytes(addr)
	if err != nil {
		return fmt.Errorf("broker: brokerIP1 %q: %w", b.cfg.BrokerIP1, err)
	}
	b.addr.Store(&addr)
	b.hostBytes.Store(&hb)

	b.pullRequestHoldService.Start()
	b.clientHousekeepingService.Start()
	b.brokerFastFailure.start()
	b.RegisterBrokerAll()
	if b.storeCfg.BrokerRole == store.Slave && !b.storeOpts.ManualServices {
		// Deviation: Java's first sync comes 3 s after start; ours comes at once (the first
		// registration named the master), so a slave serves its master's topics from the start.
		b.syncFromMaster()
		b.slaveSyncService.RunEvery(slaveSyncInterval, slaveSyncInterval, func() { b.slaveSynchronize.timerPass(b.syncFromMaster) })
	}
	b.startMasterWait()
	period := min(b.cfg.RegisterNameServerPeriod, registerMaxPeriod)
	b.registerService.RunEvery(registerFirstDelay, period, func() { b.RegisterBrokerAllWith(b.cfg.ForceRegister) })
	interval := b.cfg.FlushConsumerOffsetInterval
	b.persistService.RunEvery(min(persistFirstDelay, interval), interval, b.persistPeriodically)
	b.log.Info("broker started", "brokerName", b.cfg.BrokerName, "cluster", b.cfg.BrokerClusterName,
		"brokerId", b.cfg.BrokerID, "brokerRole", b.storeCfg.BrokerRole, "addr", addr, "vipAddr", vip,
		"haAddr", b.HAServerAddr(), "namesrvAddr", b.cfg.NamesrvAddr, "storePathRootDir", b.storeCfg.StorePathRootDir)
	return nil
}

// listenError names the port a server could not listen on; a port in use says so plainly.
func listenError(what, addr string, err error) error {
	_, port, _ := net.SplitHostPort(addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("broker %s %s is taken: %w", what, port, err)
	}
	return fmt.Errorf("broker: %s %s: %w", what, port, err)
}

// persistPeriodically is one pass of the persist service: consumerOffset.json, plus a retry of
// topics.json / subscriptionGroup.json when their last write failed. Failures are logged.
// Java: the scheduled consumerOffsetManager.persist() of BrokerController#initialize.
func (b *BrokerController) persistPeriodically() {
	if err := b.consumerOffsetManager.Persist(); err != nil {
		b.log.Error("persist consumer offsets failed", "err", err)
	}
	if err := b.topicConfigManager.PersistIfDirty(); err != nil {
		b.log.Error("persist topic config failed", "err", err)
	}
	if err := b.subscriptionGroupManager.PersistIfDirty(); err != nil {
		b.log.Error("persist subscription groups failed", "err", err)
	}
}

// PersistAll writes the three config files now (as Shutdown does); it returns the first
// failure, after trying all three.
func (b *BrokerController) PersistAll() error {
	return errors.Join(b.consumerOffsetManager.Persist(), b.topicConfigManager.Persist(),
		b.subscriptionGroupManager.Persist())
}

// RegisterBrokerAll registers this broker and its whole topic table with every name server
// (in parallel, RegisterBrokerTimeoutMills each). When the broker is not readable and
// writable, every topic is registered with the broker's permission. Safe to call any time after
// Start; calls are serialized. Java: BrokerController#registerBrokerAll.
func (b *BrokerController) RegisterBrokerAll() { b.RegisterBrokerAllWith(true) }

// RegisterBrokerAllWith is RegisterBrokerAll with Java's forceRegister flag: when false, the
// broker asks every name server QUERY_DATA_VERSION first (BrokerOuterAPI.NeedRegister) and
// sends REGISTER_BROKER only when one of them reports a change. The registration service passes
// BrokerConfig.ForceRegister. Java: BrokerController#registerBrokerAll(checkOrderConfig, oneway, forceRegister).
func (b *BrokerController) RegisterBrokerAllWith(forceRegister bool) {
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
			slog.Int64("dataVersion", w.DataVersion.Counter), slog.Bool("forceRegister", forceRegister))
	}
	if !forceRegister && !b.brokerOuterAPI.NeedRegister(b.cfg.BrokerClusterName, b.BrokerAddr(), b.cfg.BrokerName,
		b.cfg.BrokerID, w.DataVersion, b.cfg.RegisterBrokerTimeout) {
		return
	}
	results := b.brokerOuterAPI.RegisterBrokerAll(b.cfg.BrokerClusterName, b.BrokerAddr(), b.cfg.BrokerName, b.cfg.BrokerID,
		b.HAServerAddr(), w, b.cfg.RegisterBrokerTimeout)
	if len(results) > 0 && b.updateMasterHAServerAddrPeriodically && results[0].HaServerAddr != "" && b.haService != nil {
		// Java: registerBrokerAll → messageStore.updateHaMasterAddress(result.haServerAddr)
		b.haService.UpdateMasterAddress(results[0].HaServerAddr)
	}
	if len(results) > 0 { // "" once the master is gone: the slave stops syncing from it
		b.slaveSynchronize.SetMasterAddr(results[0].MasterAddr)
	}
	b.logMasterWait(results)
}

// syncFromMaster is one pass of the slave's sync: SyncAll, and a registration when the topic
// table changed (so the name server has the slave's new topic table). Failures are logged.
func (b *BrokerController) syncFromMaster() {
	changed, err := b.slaveSynchronize.SyncAll()
	if err != nil {
		b.log.Warn("slave synchronize from master failed", "masterAddr", b.slaveSynchronize.MasterAddr(), "err", err)
	}
	if changed {
		b.RegisterBrokerAll()
	}
}

// SlaveSynchronize is the slave's copier of its master's config. With the store's
// ManualServices nothing runs it: call SyncAll (then RegisterBrokerAll) by hand.
func (b *BrokerController) SlaveSynchronize() *SlaveSynchronize { return b.slaveSynchronize }

// Shutdown stops the broker gracefully and waits for every goroutine; safe to call more than
// once and at any point (also after a failed Initialize or Start). In order:
//
//  1. stop the periodic registration and persist services;
//  2. unregister from the name servers (UNREGISTER_BROKER);
//  3. stop client housekeeping and long polling (held pulls are answered);
//  4. stop both servers together: no new connections, every request already read is
//     answered, then the connections close;
//  5. stop the ScheduleMessageService (it writes delayOffset.json), then write
//     consumerOffset.json, topics.json and subscriptionGroup.json (only when this broker
//     loaded the store, i.e. holds its lock — a broker that failed to get the lock must not
//     overwrite another broker's files);
//  6. shut the store down (flush, checkpoint, remove abort, release the lock).
//
// Java: BrokerController#shutdown.
//
// Deviation: Java unregisters near the end, after closing its servers and store; we unregister
// first, so the name servers stop routing new clients here while the broker still answers the
// ones that have it cached (a client refreshes routes every 30 s). Java persists only the
// offsets at shutdown (topics and groups are written on every change); we write all three, and
// before the store releases its lock.
func (b *BrokerController) Shutdown() {
	b.stateMu.Lock()
	defer b.stateMu.Unlock()
	if b.shutdownDone {
		return
	}
	b.shutdownDone = true
	b.registerService.Shutdown()
	b.masterWaitService.Shutdown()
	b.persistService.Shutdown()
	b.slaveSyncService.Shutdown()
	b.brokerFastFailure.shutdown()
	if b.transactionalMessageCheckService != nil {
		b.transactionalMessageCheckService.Shutdown()
	}
	if b.started && b.addr.Load() != nil {
		b.brokerOuterAPI.UnregisterBrokerAll(b.cfg.BrokerClusterName, b.BrokerAddr(), b.cfg.BrokerName, b.cfg.BrokerID)
	}
	b.clientHousekeepingService.Shutdown()
	if b.pullRequestHoldService != nil {
		b.pullRequestHoldService.Shutdown()
	}
	var servers sync.WaitGroup
	for _, s := range []*remoting.Server{b.remotingServer, b.fastRemotingServer} {
		if s != nil {
			servers.Go(s.Shutdown)
		}
	}
	servers.Wait()
	if b.aclManager != nil {
		b.aclManager.Shutdown()
	}
	if b.pullMessageProcessor != nil {
		b.pullMessageProcessor.shutdown()
	}
	if b.scheduleMessageService != nil {
		b.scheduleMessageService.Shutdown() // writes delayOffset.json; before the store closes
	}
	if b.storeLoaded {
		if err := b.PersistAll(); err != nil {
			b.log.Error("persist config files at shutdown failed", "err", err)
		}
	}
	if b.haService != nil {
		b.haService.Shutdown() // Java: DefaultMessageStore#shutdown stops HA first
	}
	if b.messageStore != nil {
		b.messageStore.Shutdown()
	}
	if b.sendMessageProcessor != nil {
		b.sendMessageProcessor.shutdown()
	}
	b.brokerOuterAPI.Shutdown()
	if b.started && b.addr.Load() != nil { // it booted: a failed start shut down nothing that ran
		b.log.Info("broker shut down", "brokerName", b.cfg.BrokerName, "addr", b.BrokerAddr())
	}
}

// BrokerAddr is "brokerIP1:port": the port actually bound once started (a broker configured
// with port 0 publishes its ephemeral port), ListenPort before. Java: BrokerController#getBrokerAddr.
func (b *BrokerController) BrokerAddr() string {
	if a := b.addr.Load(); a != nil {
		return *a
	}
	return net.JoinHostPort(b.cfg.BrokerIP1, strconv.Itoa(b.cfg.ListenPort))
}

// HAServerAddr is "brokerIP2:haPort", the HA address published to name servers: the port the
// HA service bound once started (haListenPort, an ephemeral one when that is 0), before that
// the listen port + 1. Java: BrokerController#getHAServerAddr (BrokerStartup forces
// haListenPort = listenPort + 1).
func (b *BrokerController) HAServerAddr() string {
	ip := b.cfg.BrokerIP2
	if ip == "" {
		ip = b.cfg.BrokerIP1
	}
	if b.haService != nil {
		if p := b.haService.AcceptSocketService().Port(); p != 0 {
			return net.JoinHostPort(ip, strconv.Itoa(p))
		}
	}
	port := b.cfg.ListenPort
	if b.remotingServer != nil {
		if p := b.remotingServer.Port(); p != 0 {
			port = p
		}
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

// HAService returns the store's replication service (nil before Initialize).
func (b *BrokerController) HAService() *ha.HAService { return b.haService }

// MessageStore returns the store (nil before Initialize).
func (b *BrokerController) MessageStore() *store.DefaultMessageStore { return b.messageStore }

// RemotingServer returns the server (nil before Initialize).
func (b *BrokerController) RemotingServer() *remoting.Server { return b.remotingServer }

// FastRemotingServer returns the fast (VIP) server (nil before Initialize).
func (b *BrokerController) FastRemotingServer() *remoting.Server { return b.fastRemotingServer }

// VIPAddr is "brokerIP1:port" of the fast (VIP) server: the port actually bound once started
// (ListenPort-2, or an ephemeral port when ListenPort is 0), "" before. Java clients with
// sendMessageWithVIPChannel send here; the official Go client never does.
// Java: MixAll#brokerVIPChannel.
func (b *BrokerController) VIPAddr() string {
	if a := b.vipAddr.Load(); a != nil {
		return *a
	}
	return ""
}

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

// RebalanceLockManager is the broker's table of orderly consumers' queue locks.
func (b *BrokerController) RebalanceLockManager() *RebalanceLockManager {
	return b.rebalanceLockManager
}

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
