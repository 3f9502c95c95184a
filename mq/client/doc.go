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
// The producer itself is mq/client/producer, the push consumer mq/client/consumer; the
// consumer machinery a lite pull consumer would share (rebalance, pull loop, ProcessQueue,
// offset stores) lives here. Java for those: impl.consumer.RebalanceImpl, ProcessQueue,
// PullMessageService, PullAPIWrapper, PullRequest; consumer.store.*; consumer.rebalance.*.
//
// # Files in reading order
//
// The shared core, then the producer side, then the consumer side:
//
//	client_config.go             ClientConfig: name servers, clientId, task periods, clock
//	client_manager.go            MQClientManager: one instance per clientId
//	client_instance.go           MQClientInstance: registration, route refresh, heartbeat,
//	                             broker address tables, the consumer-side services
//	inner.go                     MQProducerInner, MQConsumerInner, TransactionStateChecker
//	topic_route.go               route → TopicPublishInfo / subscribe queues, change detection
//	client_api.go                MQClientAPIImpl: GET_ROUTEINFO_BY_TOPIC, SEND_MESSAGE_V2 /
//	                             SEND_BATCH_MESSAGE (sync, async with retries, oneway),
//	                             HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP
//	client_remoting_processor.go broker → client requests (NOTIFY_CONSUMER_IDS_CHANGED,
//	                             CHECK_TRANSACTION_STATE)
//	errors.go                    sentinels; broker failures are *remoting.RemoteError
//
//	topic_publish_info.go        TopicPublishInfo, ThreadLocalIndex
//	send_result.go               SendStatus, SendResult, CommunicationMode, ServiceState
//	message_batch.go             MessageBatch and its body encoding
//	uniq_id.go                   MessageClientIDSetter: UNIQ_KEY
//
//	rebalance_impl.go            RebalanceImpl: doRebalance, rebalanceByTopic,
//	                             updateProcessQueueTableInRebalance; RebalanceHooks (the push
//	                             consumer's part lives in mq/client/consumer/rebalance_push.go)
//	allocate.go                  AllocateMessageQueueAveragely, …AveragelyByCircle
//	process_queue.go             ProcessQueue: msgTreeMap by queue offset, count/size/span for
//	                             flow control, the offset to commit (removeMessage)
//	pull_message_service.go      PullRequest, PullMessageService (the pull loop; DoPull/DoPullQueue)
//	pull_api_wrapper.go          PullAPIWrapper: pullKernelImpl, processPullResult (client-side
//	                             tag filter, zlib inflate, MIN_OFFSET/MAX_OFFSET), broker choice
//	pull_result.go               PullStatus, PullResult, ReadOffsetType
//	client_api_consumer.go       PULL_MESSAGE (async), QUERY/UPDATE_CONSUMER_OFFSET,
//	                             CONSUMER_SEND_MSG_BACK, GET_MAX_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP
//	offset_store.go              OffsetStore; RemoteBrokerOffsetStore (CLUSTERING),
//	                             LocalFileOffsetStore (BROADCASTING, <dir>/<clientId>/<group>/
//	                             offsets.json written via mq/internal/configfile: .tmp, rename, .bak)
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
// Per instance, unless ClientConfig.DisableScheduledTasks: five ServiceThreads (route poll,
// heartbeat + offline-broker cleanup, offset persistence, RebalanceService, PullMessageService)
// and the remoting client's goroutines. An async send's callback and a pull's callback run on a
// remoting callback goroutine; a PullRequest put back after a delay waits on a time.Timer that
// PullMessageService tracks and stops at shutdown. With DisableScheduledTasks nothing runs by
// itself: the caller drives DoRebalance, PullMessageService.DoPull/DoPullQueue (which wait until
// the pull's callback, and with it the consumer's batch, finished) and
// RunPersistConsumerOffsetTask.
//
// Which lock guards what:
//
//   - MQClientInstance: mu guards state and the producer/consumer tables; routeMu the route,
//     broker address and broker version tables; lockNamesrv (a 1-slot channel, tried for 3 s)
//     serializes route updates and the offline-broker cleanup; lockHeartbeat keeps heartbeats
//     from overlapping. Producers and consumers are called without mu held.
//   - MQClientAPIImpl: nsMu guards the name server list and the chosen one. MQClientManager: mu.
//   - TopicPublishInfo is immutable once built except its atomic index.
//   - RebalanceImpl: mu guards processQueueTable, topicSubscribeInfoTable and
//     subscriptionInner; it is never held while hooks run or the broker is asked.
//   - ProcessQueue: mu (Java lockTreeMap, a RWMutex) guards the tree, msgCount, msgSize,
//     queueOffsetMax, consuming and msgAccCnt; dropped, locked and the timestamps are atomics;
//     consumeMu (Java consumeLock) is for orderly consumption.
//   - PullRequest: mu guards nextOffset. PullMessageService: mu guards the pending queue, the
//     delay timers and closed; signal (1-slot channel) wakes its loop.
//   - PullAPIWrapper: mu guards pullFromWhichNodeTable (the broker id to pull each queue from).
//   - OffsetStores: the offset table has its own mu; LocalFileOffsetStore's file is written
//     whole (configfile.Store), so a reader sees the old or the new file, never a mix.
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
