// Package broker is the RocketMQ broker: it stores what producers send, serves what consumers
// pull, keeps consumer offsets and group membership, and registers its topics with the name
// servers.
//
// Java: org.apache.rocketmq.broker (broker module). Files in reading order:
//
//	broker_startup.go                 BrokerStartup: flags (-n; -c, -p as the name server's, from
//	                                  internal/startup), CreateBrokerController, Start
//	broker_config.go                  BrokerConfig (RocketMQ keys in `prop` tags), properties reader/printer
//	startup_config.go                 the one validation of -p and of a start (with startup.ServerKeys),
//	                                  the unknown keys' "did you mean"
//	not_built_config.go               notBuiltKeys: settings refused because their feature is not built
//	dashboard_keys.go                 DashboardKeys: dashboardAddr, dashboardWriteEnable (the console
//	                                  mqbroker serves, mq/dashboard)
//	plain_access_validator.go         PlainAccessValidator: the ACL check (aclEnable) as an RPC hook on both servers;
//	                                  ParseAccessResource: the permissions each request code needs
//	options.go                        Option, WithClock: the broker's one clock (outside its configs)
//	broker_store_options.go           WithStoreOptions: the store's Go-only options (store.Options)
//	broker_controller.go              BrokerController: initialize (config files, store, main and fast
//	                                  servers, processors), start, registerBrokerAll, shutdown
//	config_json.go                    BrokerPathConfigHelper paths, fastjson's JSON dialect (read and
//	                                  indented by internal/fastjson), ConfigManager load/decode/persist
//	                                  (over internal/configfile)
//	broker_outer_api.go               BrokerOuterAPI: REGISTER_BROKER / UNREGISTER_BROKER to the name servers
//	topic_config_manager.go           TopicConfigManager: built-in topics, auto-create, DataVersion
//	topic_validator.go                TopicValidator: topic name rules
//	subscription_group_manager.go     SubscriptionGroupManager, SubscriptionGroupConfig
//	consumer_offset_manager.go        ConsumerOffsetManager: "topic@group" → queueId → offset
//	client_channel_info.go            ClientChannelInfo, ConsumerGroupEvent, ConsumerIdsChangeListener
//	consumer_group_info.go            ConsumerGroupInfo: a group's channels and subscriptions
//	consumer_manager.go               ConsumerManager: register/unregister, channel close, expiry scan
//	producer_manager.go               ProducerManager
//	default_consumer_ids_change_listener.go  NOTIFY_CONSUMER_IDS_CHANGED to a group's channels
//	client_housekeeping_service.go    ClientHousekeepingService: channel events → cleanup; 10 s scan
//	send_message_processor.go         SendMessageProcessor: SEND_MESSAGE(_V2), SEND_BATCH_MESSAGE
//	send_message_back.go              SendMessageProcessor: CONSUMER_SEND_MSG_BACK (retry, DLQ)
//	broker_tls.go                     the TLS of the broker's connections to the name servers
//	reply_message_processor.go        ReplyMessageProcessor: SEND_REPLY_MESSAGE(_V2) → PUSH_REPLY_MESSAGE_TO_CLIENT, reply topic
//	schedule_hooks.go                 the ScheduleMessageService (../store/schedule) wiring,
//	                                  GET_ALL_DELAY_OFFSET
//	end_transaction_processor.go      EndTransactionProcessor: END_TRANSACTION (commit, rollback)
//	transaction_hooks.go              the transaction (./transaction) wiring, Broker2Client's
//	                                  CHECK_TRANSACTION_STATE
//	pull_message_processor.go         PullMessageProcessor: PULL_MESSAGE, status → code, long polling
//	expression_message_filter.go      ExpressionMessageFilter: TAG filtering on ConsumeQueue tagsCode
//	pull_request_hold_service.go      PullRequestHoldService, PullRequest, ManyPullRequest,
//	                                  NotifyMessageArrivingListener
//	client_manage_processor.go        ClientManageProcessor: HEART_BEAT, UNREGISTER_CLIENT, CHECK_CLIENT_CONFIG
//	consumer_manage_processor.go      ConsumerManageProcessor: consumer list, query/update offset
//	admin_broker_processor.go         AdminBrokerProcessor: topics, max/min/search offset, the GET_ALL_*
//	                                  config tables a slave syncs (default processor)
//	admin_broker_stats.go             mqadmin's reads: runtime info, topic stats, consume stats, who
//	                                  consumes a topic
//	admin_broker_clients.go           connection lists of consumer and producer groups, reset offset
//	                                  (Broker2Client#resetOffset: RESET_CONSUMER_CLIENT_OFFSET to consumers)
//	admin_broker_acl.go               the ACL admin codes 50-53: rewrite or read plain_acl.yml
//	admin_broker_config.go            GET/UPDATE_BROKER_CONFIG (BrokerConfigPath), create/delete
//	                                  subscription groups
//	admin_managers.go                 the managers' lookups only the admin requests use
//	lock_batch_mq.go                  AdminBrokerProcessor: LOCK_BATCH_MQ, UNLOCK_BATCH_MQ (orderly consumers)
//	rebalance_lock_manager.go         RebalanceLockManager: group → queue → client id, 60 s expiry
//	try_lock_batch.go                 RebalanceLockManager#tryLockBatch (try_lock_batch_stub.go: its
//	                                  blank twin for the exercise mode, tag ex_ch07)
//	slave_synchronize.go              SlaveSynchronize: a slave copies its master's topics, offsets,
//	                                  delay offsets and groups (at start, then every 10 s); the broker
//	                                  owns the store's HAService (../store/ha) and starts it with the store
//	master_wait.go                    a slave started before its master: says so once, registers
//	                                  again every 5 s until it learns the master's HA address
//	query_message_processor.go        QueryMessageProcessor: QUERY_MESSAGE (by key), VIEW_MESSAGE_BY_ID
//	broker_fast_failure.go            BrokerFastFailure, FastFailureConfig: SYSTEM_BUSY for requests
//	                                  queued too long or while the page cache is busy
//	broker_metrics.go                 the broker's mq/metrics collector (Metrics): recordPut on the send
//	                                  path, brokerState read at each scrape (offsets, lags, connections,
//	                                  held pulls, queued sends, ConsumeQueues, group diffs, slaves)
//	util.go                           orDiscard: the silent default logger; badHeader: the answer
//	                                  to a request header that does not decode
//
// Request codes → processors → worker pools (as Java's registerProcessor):
//
//	10, 310, 320, 36     SendMessageProcessor      sendMessageThreadPoolNums (1)
//	45                   getAllDelayOffset         1 worker (Java: the admin processor's pool)
//	37                   EndTransactionProcessor   endTransactionThreadPoolNums (8 + 2·cores)
//	11                   PullMessageProcessor      pullMessageThreadPoolNums (16 + 2·cores)
//	12, 33               QueryMessageProcessor     queryMessageThreadPoolNums (8 + cores)
//	34                   ClientManageProcessor     heartbeatThreadPoolNums (min(32, cores))
//	35, 46               ClientManageProcessor     clientManageThreadPoolNums (32)
//	14, 15, 38           ConsumerManageProcessor   consumerManageThreadPoolNums (32)
//	everything else      AdminBrokerProcessor      adminBrokerThreadPoolNums (16); unknown codes
//	                                               are answered REQUEST_CODE_NOT_SUPPORTED (3)
//
// Registration: REGISTER_BROKER goes to every name server in parallel (registerBrokerTimeoutMills
// each) once in Start, then every registerNameServerPeriod (first after 10 s), and again right
// after a topic is created on demand. Header: brokerName, brokerAddr (brokerIP1:bound port),
// clusterName, haServerAddr (brokerIP2:port+1), brokerId, compressed=false, bodyCrc32 (CRC-32
// IEEE of the body & 0x7FFFFFFF). Body: RegisterBrokerBody JSON
// {"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{...},"topicConfigTable":{...}}}.
// Shutdown sends UNREGISTER_BROKER first (see BrokerController.Shutdown for the order).
//
// Ports: listenPort (10911) serves everything; the fast (VIP) server on listenPort-2 (10909)
// serves every code but PULL_MESSAGE (Java's fastRemotingServer; with listenPort 0 both are
// ephemeral). Both share the ClientHousekeepingService; each has its own worker pools.
//
// Config files under storePathRootDir/config/ (docs/reference/store-formats.md §7), in
// fastjson's dialect (pretty-printed with tabs; consumerOffset.json's queue ids unquoted), each
// written atomically with a .bak copy (internal/configfile) and read back with a .bak fallback:
//
//	topics.json             {"dataVersion":{"counter","timestamp"},"topicConfigTable":{name:TopicConfig}}
//	                        written on every change; loaded over the built-in topics
//	subscriptionGroup.json  {"dataVersion":{...},"subscriptionGroupTable":{group:SubscriptionGroupConfig}}
//	                        written on every change; loaded over the built-in groups
//	consumerOffset.json     {"offsetTable":{"topic@group":{queueId:offset}}}
//	                        written every flushConsumerOffsetInterval (5 s) and at shutdown
//	delayOffset.json        {"offsetTable":{level:offset}}, by the ScheduleMessageService
//	                        (../store/schedule): every 10 s and at shutdown; loaded after the store
//
// All three are loaded in Initialize before the store (Java's order) and written at Shutdown
// while the store lock is still held. A file that does not decode falls back to its .bak; with
// no readable .bak the broker refuses to start with an error naming the file. Consumer and
// producer tables are in memory, as in Java.
//
// Goroutines (each a service.ServiceThread unless said otherwise; Shutdown stops them all):
//   - BrokerRegisterService: RegisterBrokerAll every registerNameServerPeriod; woken when a topic
//     is created on demand.
//   - PullRequestHoldService: CheckHoldRequest every 5 s (long polling) or shortPollingTimeMills.
//   - ClientHousekeepingService: expiry scan of client channels every 10 s.
//   - BrokerConfigPersistService: consumerOffset.json every flushConsumerOffsetInterval (first
//     after min(10 s, interval)); retries a failed topics.json / subscriptionGroup.json write.
//   - BrokerFastFailure: every 10 ms (first after 1 s) with brokerFastFailureEnable, answers
//     queued sends, pulls, heartbeats and END_TRANSACTIONs that waited too long (or sends while
//     the page cache is busy) SYSTEM_BUSY.
//   - wake-up replays of held pulls and delayed send answers: one short-lived goroutine each,
//     counted by a WaitGroup in their processor.
//   - the ScheduleMessageService's two (delivery every 100 ms, delayOffset.json persist);
//     started on a master after the store, stopped before it.
//   - TransactionalMessageCheckService (./transaction): one check pass every
//     transactionCheckInterval (60 s); on a master, unless ManualServices; stopped first.
//   - SlaveSynchronize (a slave, unless ManualServices): SyncAll every 10 s (and once at Start).
//   - the store's HAService (master/slave replication, ../store/ha): started after the store,
//     stopped before it.
//   - the remoting server's and the store's own goroutines.
//
// Time: the broker has one clock (WithClock, default the system clock; not a BrokerConfig key).
// It stamps the DataVersions, client channel refreshes and their expiry, held pulls and their
// deadlines, and the requests its worker pools queue (whose age fast failure reads). The
// remoting servers and the name-server client keep the system clock (connection idleness).
//
// Locks: TopicConfigManager.mu (table + DataVersion), SubscriptionGroupManager.mu,
// ConsumerOffsetManager.mu, each manager's configFile.mu (one file write at a time; taken
// before, never inside, the manager's mu, which the encoder takes briefly for its snapshot),
// ConsumerManager.mu (all groups and their ConsumerGroupInfo; the change listener runs after
// it is released), ProducerManager.mu, PullRequestHoldService.mu
// (the hold table) plus one mutex per ManyPullRequest, BrokerController.registerMu (one
// registration at a time) and stateMu (held through Initialize, Start and Shutdown). Apart
// from those two, no lock is held while calling another component.
//
// A send with TRAN_MSG=true is stored as a half message (./transaction), or refused with
// NO_PERMISSION under rejectTransactionMessage=true.
//
// Not built yet (later issues): order-message locks,
// OFFSET_MOVED_EVENT messages, SQL92 filtering. Settings that would turn such a feature on
// (enableDLegerCommitLog=true, enablePropertyFilter=true, ...) are refused at start: notBuiltKeys in
// not_built_config.go is the one list.
package broker
