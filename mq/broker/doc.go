// Package broker is the RocketMQ broker: it stores what producers send, serves what consumers
// pull, keeps consumer offsets and group membership, and registers its topics with the name
// servers.
//
// Java: org.apache.rocketmq.broker (broker module). Files in reading order:
//
//	broker_startup.go                 BrokerStartup: flags (-n, -c, -p), CreateBrokerController, Start
//	broker_config.go                  BrokerConfig (RocketMQ keys in `prop` tags), properties reader/printer
//	broker_controller.go              BrokerController: initialize (store, server, processors), start,
//	                                  registerBrokerAll, shutdown
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
//	pull_message_processor.go         PullMessageProcessor: PULL_MESSAGE, status → code, long polling
//	expression_message_filter.go      ExpressionMessageFilter: TAG filtering on ConsumeQueue tagsCode
//	pull_request_hold_service.go      PullRequestHoldService, PullRequest, ManyPullRequest,
//	                                  NotifyMessageArrivingListener
//	client_manage_processor.go        ClientManageProcessor: HEART_BEAT, UNREGISTER_CLIENT, CHECK_CLIENT_CONFIG
//	consumer_manage_processor.go      ConsumerManageProcessor: consumer list, query/update offset
//	admin_broker_processor.go         AdminBrokerProcessor: topics, max/min/search offset (default processor)
//
// Request codes → processors → worker pools (as Java's registerProcessor):
//
//	10, 310, 320         SendMessageProcessor      sendMessageThreadPoolNums (1)
//	11                   PullMessageProcessor      pullMessageThreadPoolNums (16 + 2·cores)
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
// Shutdown sends UNREGISTER_BROKER.
//
// State kept in memory for now (persistence to config/*.json is the next issue; each manager
// has a persist() hook called after every change): topics, subscription groups, consumer
// offsets. Consumer and producer tables are in memory in Java too.
//
// Goroutines (each a service.ServiceThread unless said otherwise; Shutdown stops them all):
//   - BrokerRegisterService: RegisterBrokerAll every registerNameServerPeriod; woken when a topic
//     is created on demand.
//   - PullRequestHoldService: CheckHoldRequest every 5 s (long polling) or shortPollingTimeMills.
//   - ClientHousekeepingService: expiry scan of client channels every 10 s.
//   - wake-up replays of held pulls and delayed send answers: one short-lived goroutine each,
//     counted by a WaitGroup in their processor.
//   - the remoting server's and the store's own goroutines.
//
// Locks: TopicConfigManager.mu (table + DataVersion), SubscriptionGroupManager.mu,
// ConsumerOffsetManager.mu, ConsumerManager.mu (all groups and their ConsumerGroupInfo; the
// change listener runs after it is released), ProducerManager.mu, PullRequestHoldService.mu
// (the hold table) plus one mutex per ManyPullRequest, BrokerController.registerMu (one
// registration at a time) and stateMu (held through Initialize, Start and Shutdown). Apart
// from those two, no lock is held while calling another component.
//
// Not built yet (later issues): CONSUMER_SEND_MSG_BACK and delay levels, transactions
// (a send with TRAN_MSG=true is refused with NO_PERMISSION), order-message locks, broker fast
// failure, persistence of the config JSON files, slave synchronization, OFFSET_MOVED_EVENT
// messages, SQL92 filtering.
package broker
