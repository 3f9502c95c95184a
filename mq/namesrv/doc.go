// Package namesrv is the name server: brokers register their topics with it, producers and
// consumers ask it for routes.
//
// Java: org.apache.rocketmq.namesrv (namesrv module). Files in reading order:
//
//	namesrv_startup.go           NamesrvStartup: config from flags and a properties file, create, start
//	namesrv_controller.go        NamesrvController: initialize (KV config, server, processor, scan
//	                             service), start, shutdown
//	default_request_processor.go DefaultRequestProcessor: one method per request code (below)
//	route_info_manager.go        RouteInfoManager: the route tables
//	register_broker.go           RouteInfoManager#registerBroker (register_broker_stub.go: its
//	                             blank twin for the exercise mode, tag ex_ch01)
//	scan_not_active_broker.go    RouteInfoManager#scanNotActiveBroker (scan_not_active_broker_stub.go:
//	                             its blank twin, tag ex_ch01)
//	kv_config_manager.go         KVConfigManager: namespaced key/value config, persisted as JSON
//	broker_housekeeping.go       BrokerHousekeepingService: channel close/idle → onChannelDestroy
//	config.go                    NamesrvConfig (with the metrics keys, metrics.ExporterConfig)
//	options.go                   Option, WithClock: the route tables' clock (outside NamesrvConfig)
//
// Request codes answered (DefaultRequestProcessor#processRequest): PUT_KV_CONFIG 100,
// GET_KV_CONFIG 101, DELETE_KV_CONFIG 102, REGISTER_BROKER 103, UNREGISTER_BROKER 104,
// GET_ROUTEINFO_BY_TOPIC 105, GET_BROKER_CLUSTER_INFO 106, GET_ALL_TOPIC_LIST_FROM_NAMESERVER 206,
// DELETE_TOPIC_IN_NAMESRV 216, GET_KVLIST_BY_NAMESPACE 219, GET_TOPICS_BY_CLUSTER 224,
// QUERY_DATA_VERSION 322. Any other code is answered REQUEST_CODE_NOT_SUPPORTED.
//
// Tables (RouteInfoManager, all under one sync.RWMutex, as Java's ReentrantReadWriteLock):
//
//	topicQueueTable   topic      → brokerName → QueueData
//	brokerAddrTable   brokerName → BrokerData{cluster, brokerName, brokerId → "ip:port"}
//	clusterAddrTable  cluster    → set of brokerName
//	brokerLiveTable   brokerAddr → BrokerLiveInfo{lastUpdateTimestamp, dataVersion, channel, haServerAddr}
//	filterServerTable brokerAddr → filter servers (kept empty: filter servers are not supported)
//
// A master's queue data are rebuilt from its topic table only on its first registration or
// when its DataVersion (timestamp, counter) differs from the one it registered last; a slave
// adds only its address. QUERY_DATA_VERSION lets a broker with forceRegister=false ask first:
// an unchanged answer refreshes its liveness without a REGISTER_BROKER.
//
// KV config file (kvConfigPath, default ~/namesrv/kvConfig.json), rewritten whole after every
// PUT_KV_CONFIG and DELETE_KV_CONFIG (write kvConfig.json.tmp, keep kvConfig.json.bak, rename):
//
//	{"configTable":{"ORDER_TOPIC_CONFIG":{"TopicTest":"broker-a:4;broker-b:4"}}}
//
// With orderMessageEnable=true, a route's orderTopicConf is the topic's ORDER_TOPIC_CONFIG item;
// every REGISTER_BROKER response carries that namespace as a KVTable body.
//
// Goroutines: the remoting server's, and one ServiceThread that runs
// RouteInfoManager#scanNotActiveBroker every ScanNotActiveBrokerInterval (10 s; first after 5 s):
// a broker whose last registration is older than BrokerChannelExpiredTime (120 s) is removed as
// if its channel had closed. Scan passes are serialized (RouteInfoManager.scanMu), so a test or
// chapter may call ScanNotActiveBroker directly after advancing the injected clock (WithClock).
// KVConfigManager has its own RWMutex; persisting is serialized by a second mutex.
//
// Step lines name brokers by brokerName and brokerId, never by address: addresses carry
// (ephemeral) ports, and step lines are deterministic.
package namesrv
