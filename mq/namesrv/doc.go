// Package namesrv is the name server: brokers register their topics with it, producers and
// consumers ask it for routes.
//
// Java: org.apache.rocketmq.namesrv (namesrv module). Files in reading order:
//
//	namesrv_startup.go           NamesrvStartup: config from flags and a properties file, create, start
//	namesrv_controller.go        NamesrvController: initialize (server, processor, scan service), start, shutdown
//	default_request_processor.go DefaultRequestProcessor: REGISTER_BROKER, UNREGISTER_BROKER,
//	                             GET_ROUTEINFO_BY_TOPIC, GET_BROKER_CLUSTER_INFO
//	route_info_manager.go        RouteInfoManager: the route tables
//	broker_housekeeping.go       BrokerHousekeepingService: channel close/idle → onChannelDestroy
//	config.go                    NamesrvConfig
//
// Tables (RouteInfoManager, all under one sync.RWMutex, as Java's ReentrantReadWriteLock):
//
//	topicQueueTable   topic      → brokerName → QueueData
//	brokerAddrTable   brokerName → BrokerData{cluster, brokerName, brokerId → "ip:port"}
//	clusterAddrTable  cluster    → set of brokerName
//	brokerLiveTable   brokerAddr → BrokerLiveInfo{lastUpdateTimestamp, dataVersion, channel, haServerAddr}
//	filterServerTable brokerAddr → filter servers (kept empty: filter servers are not supported)
//
// Goroutines: the remoting server's, and one ServiceThread that runs
// RouteInfoManager#scanNotActiveBroker every ScanNotActiveBrokerInterval (10 s; first after 5 s):
// a broker whose last registration is older than BrokerChannelExpiredTime (120 s) is removed as
// if its channel had closed.
package namesrv
