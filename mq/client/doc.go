// Package client is the part of a RocketMQ client process that its producers and consumers
// share: one MQClientInstance per clientId (ip@instanceName), which holds the connections
// (MQClientAPI over a remoting client), asks the name servers for routes, keeps the broker
// address tables, sends heartbeats to the brokers and schedules the consumer-side tasks
// (rebalance, offset persistence). Producers and consumers register with it and are called
// back through small interfaces (MQProducerInner, MQConsumerInner), as rocketmq-client-go's
// InnerProducer/InnerConsumer do. It also holds the types both sides of a request need:
// TopicPublishInfo (a topic's writable queues and its round-robin index), SendResult,
// PullResult, MessageBatch and the UNIQ_KEY maker. A failing answer is a *remoting.RemoteError
// (code, remark and the broker's address), the one remote-error type of server and client.
//
// Java: org.apache.rocketmq.client — ClientConfig, impl.MQClientManager,
// impl.factory.MQClientInstance, impl.MQClientAPIImpl, impl.ClientRemotingProcessor,
// impl.producer.TopicPublishInfo, common.ThreadLocalIndex, producer.SendResult/SendStatus,
// consumer.PullResult/PullStatus/PullCallback; org.apache.rocketmq.common.message.
// MessageClientIDSetter and MessageBatch. rocketmq-client-go: internal.rmqClient,
// internal.InnerProducer, internal.InnerConsumer.
//
// The producer is mq/client/producer. The consumer — DefaultMQPushConsumer, its pull loop
// (PullMessageService), PullAPIWrapper, ProcessQueue, rebalance, allocation strategies, offset
// stores and consume services — is mq/client/consumer, one package for one loop; it registers
// here as an MQConsumerInner and uses the instance's route tables and MQClientAPI.
//
// # Files in reading order
//
// The shared core, then the send side, then the consumer's requests:
//
//	client_config.go             ClientConfig: name servers, clientId, task periods (RocketMQ's
//	                             keys only)
//	options.go                   Options, beside ClientConfig: the Go-only settings
//	                             (DisableScheduledTasks, Logger, Clock, IndexSeed)
//	client_manager.go            MQClientManager: one instance per clientId
//	client_instance.go           MQClientInstance: registration, route refresh, heartbeat,
//	                             broker address tables, the RebalanceService and the offset
//	                             persistence task (both call MQConsumerInner)
//	inner.go                     MQProducerInner, MQConsumerInner, TransactionStateChecker
//	topic_route.go               route → TopicPublishInfo / subscribe queues, change detection
//	client_api.go                MQClientAPI: GET_ROUTEINFO_BY_TOPIC, SEND_MESSAGE_V2 /
//	                             SEND_BATCH_MESSAGE (sync, async with retries, oneway),
//	                             HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP
//	acl_client_rpc_hook.go       AclClientRPCHook: signs every request when Options carry an AccessKey
//	client_remoting_processor.go broker → client requests (NOTIFY_CONSUMER_IDS_CHANGED,
//	                             CHECK_TRANSACTION_STATE, RESET_CONSUMER_CLIENT_OFFSET,
//	                             PUSH_REPLY_MESSAGE_TO_CLIENT)
//	errors.go                    sentinels; remoteError builds the *remoting.RemoteError
//
//	topic_publish_info.go        TopicPublishInfo, ThreadLocalIndex
//	send_result.go               SendStatus, SendResult, CommunicationMode, ServiceState
//	message_batch.go             MessageBatch and its body encoding
//	uniq_id.go                   MessageClientIDSetter: UNIQ_KEY
//
//	pull_result.go               PullStatus, PullResult (what PULL_MESSAGE answers)
//	client_api_consumer.go       PULL_MESSAGE (async, sync), QUERY/UPDATE_CONSUMER_OFFSET,
//	                             CONSUMER_SEND_MSG_BACK, GET_MAX_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP
//	client_api_transaction.go    END_TRANSACTION (one way)
//	client_api_lock.go           LOCK_BATCH_MQ, UNLOCK_BATCH_MQ (the orderly consumer's queue locks)
//	request_response_future.go   request/reply: RequestFutureTable, RequestResponseFuture,
//	                             PUSH_REPLY_MESSAGE_TO_CLIENT (receiveReplyMessage), RequestTimeoutError
//	message_util.go              CreateReplyMessage: a consumer's reply to a request message
//
// # Wire formats written here
//
// A single message goes out as SEND_MESSAGE_V2 (310) with the single-letter header a…n
// (docs/reference/remoting-protocol.md §4.3, §4.4), a batch as SEND_BATCH_MESSAGE (320) whose
// body repeats
//
//	TOTALSIZE 4 | MAGICCODE 4 (0) | BODYCRC 4 (0) | FLAG 4 | BODYLENGTH 4 | BODY n | PROPERTIESLENGTH 2 | PROPERTIES p
//
// (big-endian, TOTALSIZE = 22 + n + p). UNIQ_KEY is 32 upper-case hex characters: IPv4 4 B,
// pid 2 B, a per-process hash 4 B, ms since the start of the month 4 B, counter 2 B.
//
// # Trace
//
// The instance traces as component "client": MQClientManager#getOrCreateMQClientInstance,
// RebalanceService#run (started by a consumer's instance), MQClientInstance#updateTopicRouteInfoFromNameServer,
// MQClientAPIImpl#getTopicRouteInfoFromNameServer, MQClientAPIImpl#sendMessage,
// MQClientAPIImpl#sendMessageAsync (each time an async send's answer or failure arrives),
// TopicPublishInfo#selectOneMessageQueue, MQClientInstance#rebalanceImmediately,
// MQClientInstance#doRebalance, MQClientInstance#startScheduledTask (the persist task's pass)
// and MQClientAPIImpl#pullMessageAsync. The consumer's machinery traces with the instance's
// tracer too (see mq/client/consumer). Step values never hold addresses or ports.
//
// # Goroutines and locks
//
// Per instance, unless Options.DisableScheduledTasks: four ServiceThreads (route poll,
// heartbeat + offline-broker cleanup, offset persistence, RebalanceService) and the remoting
// client's goroutines. An async send's callback and a pull's callback run on a remoting
// callback goroutine. With DisableScheduledTasks nothing runs by itself: the caller drives
// UpdateAllTopicRouteInfoFromNameServer, SendHeartbeatToAllBrokerWithLock, DoRebalance and
// RunPersistConsumerOffsetTask. (A push consumer's pull loop and consume workers are its own:
// see mq/client/consumer.)
//
// Which lock guards what:
//
//   - MQClientInstance: mu guards state and the producer/consumer tables; routeMu the route,
//     broker address and broker version tables; lockNamesrv (a 1-slot channel, tried for 3 s)
//     serializes route updates and the offline-broker cleanup; lockHeartbeat keeps heartbeats
//     from overlapping. Producers and consumers are called without mu held.
//   - MQClientAPI: nsMu guards the name server list and the chosen one. MQClientManager: mu.
//   - TopicPublishInfo is immutable once built except its atomic index.
//   - MessageClientIDSetter: mu guards the counter and the month window.
//
// # Deviations
//
//   - ThreadLocalIndex is one atomic counter shared by all goroutines (Java: one per thread).
//   - The UNIQ_KEY's class-loader hash is a random int32 per process.
//   - DisableScheduledTasks, Clock and IndexSeed exist for chapters and tests (in Options,
//     beside ClientConfig, which holds only RocketMQ's keys).
//   - There is no PullMessageService on the instance: each push consumer owns its pull loop.
//   - No namespace, no name-server lookup over HTTP, no request/reply (SEND_REPLY_MESSAGE),
//     no TLS, no filter-server upload; the inner CLIENT_INNER_PRODUCER is not created (a
//     consumer's send-back fallback will need it).
//   - Routes are fetched with version 409 (4.9.8), so name servers answer standard JSON.
package client
