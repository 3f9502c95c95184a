// Package admin is the admin client mqadmin is built on: DefaultMQAdminExt sends the admin
// requests to the name servers and brokers over mq/client's remoting and decodes RocketMQ's
// JSON bodies (mq/remoting/protocol's admin bodies). The subcommands are mq/admin/command.
//
// Java: org.apache.rocketmq.tools.admin.DefaultMQAdminExt / DefaultMQAdminExtImpl and
// org.apache.rocketmq.client.impl.MQAdminImpl (queryMessage, viewMessage).
//
// # Files in reading order
//
//	admin.go        Config, DefaultMQAdminExt (New, Shutdown), invoke (SUCCESS or a
//	                *remoting.RemoteError naming the address) and invokeNamesrv
//	namesrv_ops.go  cluster info, routes, topic lists, DELETE_TOPIC_IN_NAMESRV, MasterAddrsOfCluster
//	broker_ops.go   topics, runtime stats, topic and consume stats, connections, broker config,
//	                subscription groups, who consumes a topic
//	query_ops.go    QueryMessage (by key or UNIQ_KEY, re-checked: HasKey), ViewMessage (by
//	                offsetMsgId), ViewMessageByID, PullMessages
//	offset_ops.go   ResetOffsetByTimestamp (through the broker to the running consumers), its
//	                fallback ResetOffsetByTimestampOld, RollbackStats
//	describe.go     what mqadmin and the console both show: MessageFields (printMsg's fields),
//	                HumanTime, PropertiesString, FirstRate, VersionDesc, ConsumeTypeDesc
//
// Every request is synchronous and bounded by Config.Timeout; a request to several brokers
// goes to them one after the other, in broker-name order. No goroutines of its own; the
// remoting client's connection goroutines end at Shutdown.
//
// # Deviations
//
//   - No MQClientInstance is started (Java's admin runs one under TOOLS_CONSUMER): nothing here
//     needs the brokers to know the tool as a client.
package admin
