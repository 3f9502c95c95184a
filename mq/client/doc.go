// Package client is the part of a RocketMQ client process that its producers and consumers
// share: one MQClientInstance per clientId (ip@instanceName), which holds the connections, asks
// the name servers for routes, sends heartbeats to the brokers and calls the producers and
// consumers back through small interfaces (MQProducerInner, MQConsumerInner), as
// rocketmq-client-go's InnerProducer/InnerConsumer do. It also holds the types both sides of a
// send need: TopicPublishInfo (a topic's writable queues and its round-robin index),
// SendResult, MessageBatch and the UNIQ_KEY maker.
//
// Java: org.apache.rocketmq.client — ClientConfig, impl.MQClientManager,
// impl.factory.MQClientInstance, impl.MQClientAPIImpl, impl.ClientRemotingProcessor,
// impl.producer.TopicPublishInfo, common.ThreadLocalIndex, producer.SendResult/SendStatus;
// org.apache.rocketmq.common.message.MessageClientIDSetter and MessageBatch.
// The producer itself is mq/client/producer; consumers will be mq/client/consumer.
//
// # Files in reading order
//
//	client_config.go             ClientConfig: name servers, clientId, task periods, clock
//	client_manager.go            MQClientManager: one instance per clientId
//	client_instance.go           MQClientInstance: registration, route refresh, heartbeat,
//	                             broker address tables, the consumer-side services
//	inner.go                     MQProducerInner, MQConsumerInner, TransactionStateChecker
//	topic_route.go               route → TopicPublishInfo / subscribe queues, change detection
//	topic_publish_info.go        TopicPublishInfo, ThreadLocalIndex
//	client_api.go                MQClientAPIImpl: GET_ROUTEINFO_BY_TOPIC, SEND_MESSAGE_V2 /
//	                             SEND_BATCH_MESSAGE (sync, async with retries, oneway),
//	                             HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP
//	client_remoting_processor.go broker → client requests (NOTIFY_CONSUMER_IDS_CHANGED,
//	                             CHECK_TRANSACTION_STATE)
//	send_result.go               SendStatus, SendResult, CommunicationMode, ServiceState
//	message_batch.go             MessageBatch and its body encoding
//	uniq_id.go                   MessageClientIDSetter: UNIQ_KEY
//	errors.go                    sentinels, MQBrokerError
//
// # Wire formats written here
//
// A single message goes out as SEND_MESSAGE_V2 (310) with the single-letter header a…n
// (remoting-protocol.md §4.3, §4.4), a batch as SEND_BATCH_MESSAGE (320) whose body repeats
//
//	TOTALSIZE 4 | MAGICCODE 4 (0) | BODYCRC 4 (0) | FLAG 4 | BODYLENGTH 4 | BODY n | PROPERTIESLENGTH 2 | PROPERTIES p
//
// (big-endian, TOTALSIZE = 22 + n + p). UNIQ_KEY is 32 upper-case hex characters: IPv4 4 B,
// pid 2 B, a per-process hash 4 B, ms since the start of the month 4 B, counter 2 B.
//
// # Trace
//
// The instance traces as component "client": MQClientInstance#updateTopicRouteInfoFromNameServer,
// MQClientAPIImpl#getTopicRouteInfoFromNameServer, MQClientAPIImpl#sendMessage,
// MQClientAPIImpl#sendMessageAsync (each time an async send's answer or failure arrives) and
// TopicPublishInfo#selectOneMessageQueue. Step values never hold addresses or ports.
//
// # Goroutines and locks
//
// Per instance, unless ClientConfig.DisableScheduledTasks: four ServiceThreads (route poll,
// heartbeat + offline-broker cleanup, offset persistence, RebalanceService) and the remoting
// client's goroutines; an async send's callback runs on a remoting callback goroutine.
// MQClientInstance: mu guards state and the producer/consumer tables; routeMu the route, broker
// address and broker version tables; lockNamesrv (a 1-slot channel, tried for 3 s) serializes
// route updates and the offline-broker cleanup; lockHeartbeat keeps heartbeats from overlapping.
// MQClientAPIImpl: nsMu guards the name server list and the chosen one. MQClientManager: mu.
// TopicPublishInfo is immutable once built except its atomic index. Producers and consumers are
// called without the instance's mu held.
//
// # Deviations
//
//   - ThreadLocalIndex is one atomic counter shared by all goroutines (Java: one per thread).
//   - The UNIQ_KEY's class-loader hash is a random int32 per process.
//   - DisableScheduledTasks, Clock and IndexSeed exist for chapters and tests.
//   - No namespace, no name-server lookup over HTTP, no request/reply (SEND_REPLY_MESSAGE),
//     no TLS, no filter-server upload; the inner CLIENT_INNER_PRODUCER is not created (a
//     consumer's send-back fallback will need it).
//   - Routes are fetched with version 409 (4.9.8), so name servers answer standard JSON.
package client
