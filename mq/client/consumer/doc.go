// Package consumer is the consume loop, whole: DefaultMQPushConsumer and everything one pull
// passes through — its PullMessageService (the pull loop), PullAPIWrapper (PULL_MESSAGE and
// the client-side filter), ProcessQueue (the per-queue cache), Rebalance with the allocation
// strategies (which queues are this consumer's), the offset stores (where its progress goes)
// and the consume services (ConsumeMessageService; ConsumeMessageConcurrentlyService runs a
// MessageListenerConcurrently). The consumer registers with its client.MQClientInstance as a
// client.MQConsumerInner; the instance keeps what every client of a process shares (routes,
// broker addresses, heartbeats, the connections and MQClientAPI, the rebalance and
// offset-persistence schedules) and calls the consumer back only through that interface.
//
// The parts are cut for what comes next: an orderly consume service (per-queue locks, Java's
// ConsumeMessageOrderlyService) is a second ConsumeMessageService; a lite pull consumer
// (DefaultLitePullConsumer) reuses PullAPIWrapper, Rebalance (with its own RebalanceHooks,
// CONSUME_ACTIVELY), ProcessQueue and the offset stores, none of which assumes a push consumer.
// It adds its pull tasks, the consume request cache Poll reads, and AssignedMessageQueue.
//
// Java: org.apache.rocketmq.client.consumer.DefaultMQPushConsumer,
// impl.consumer.DefaultMQPushConsumerImpl, PullMessageService, PullRequest, PullAPIWrapper,
// ProcessQueue, RebalanceImpl, RebalancePushImpl, ConsumeMessageService,
// ConsumeMessageConcurrentlyService, ConsumeMessageOrderlyService, MessageQueueLock,
// DefaultLitePullConsumer, DefaultLitePullConsumerImpl (PullTaskImpl), RebalanceLitePullImpl,
// AssignedMessageQueue; consumer.rebalance.*, consumer.store.*, consumer.listener.*.
// rocketmq-client-go: consumer.pushConsumer, consumer.defaultConsumer, consumer.processQueue,
// consumer.OffsetStore.
//
// # Files in reading order
//
// The consumer, then one pull from the loop to the committed offset:
//
//	config.go                     Config: DefaultMQPushConsumer's fields and defaults
//	push_consumer.go              start (copySubscription, instance, rebalance, offset store,
//	                              consume service, pull loop, heartbeat, rebalanceImmediately),
//	                              shutdown, the MQConsumerInner callbacks, pullMessage with flow
//	                              control and its PullCallback, sendMessageBack
//	consumer_inner.go             consumerInner: the MQConsumerInner callbacks both consumers
//	                              answer alike (group, model, subscriptions, topic routes), their
//	                              service state and instance, and the steps of Start, Subscribe
//	                              and Shutdown they take alike (startable, prepareStart,
//	                              subscribeNow, beginShutdown)
//	rebalance.go                  RebalanceHooks, Rebalance: doRebalance, rebalanceByTopic,
//	                              updateProcessQueueTableInRebalance, removeProcessQueue;
//	                              startOffset (computePullFromWhere, shared by consumer kinds)
//	rebalance_push.go             rebalancePush: the push consumer's RebalanceHooks
//	                              (consumeType, dispatchPullRequest, removeUnnecessaryMessageQueue)
//	allocate.go                   AllocateMessageQueueStrategy: …Averagely, …AveragelyByCircle
//	allocate_averagely.go         AllocateMessageQueueAveragely#allocate (allocate_averagely_stub.go:
//	                              its blank twin for the exercise mode, tag ex_ch06)
//	pull_message_service.go       PullRequest, PullMessageService (the loop; DoPull/DoPullQueue)
//	pull_api_wrapper.go           PullAPIWrapper: pullKernelImpl (async for push, sync for pull),
//	                              processPullResult (client-side tag filter, zlib inflate,
//	                              MIN_OFFSET/MAX_OFFSET), broker choice
//	process_queue.go              ProcessQueue: msgTreeMap by queue offset, count/size/span for
//	                              flow control, the offset to commit (removeMessage)
//	consume_service.go            ConsumeMessageService, the interface the pull callback hands
//	                              messages to
//	consume_concurrently.go       the listener types, ConsumeMessageConcurrentlyService:
//	                              ConsumeRequest#run, processConsumeResult (ackIndex, send back,
//	                              removeMessage, offset update)
//	process_consume_result.go     ConsumeMessageConcurrentlyService#processConsumeResult
//	                              (process_consume_result_stub.go: its blank twin, tag ex_ch05)
//
// Ordered consumption (three locks: the broker's queue lock, MessageQueueLock, the consume lock):
//
//	consume_orderly.go            MessageListenerOrderly, ConsumeOrderlyStatus/Context,
//	                              ConsumeMessageOrderlyService: start (lockAll every 20 s),
//	                              ConsumeRequest#run, processConsumeResult (autoCommit, SUSPEND,
//	                              ROLLBACK/COMMIT, DLQ past maxReconsumeTimes); the consumer's
//	                              orderly hooks (the pull gate: no pull of a queue not locked)
//	message_queue_lock.go         MessageQueueLock: one mutex per queue
//	process_queue_orderly.go      ProcessQueue's orderly part: takeMessages, commit, rollback,
//	                              makeMessageToConsumeAgain, lastLockTimestamp, isLockExpired
//	rebalance_lock.go             RebalanceImpl#lock, #lockAll, #unlock, #unlockAll; the unlock of
//	                              a queue removed, once the consume lock is free (20 s later when
//	                              messages are still cached)
//	rebalance_lock_all.go         RebalanceImpl#lockAll (rebalance_lock_all_stub.go: its blank
//	                              twin for the exercise mode, tag ex_ch07)
//	offset_store.go               OffsetStore, ReadOffsetType, the in-memory table both stores share
//	remote_broker_offset_store.go RemoteBrokerOffsetStore (CLUSTERING): QUERY/UPDATE_CONSUMER_OFFSET
//	local_file_offset_store.go    LocalFileOffsetStore (BROADCASTING): <dir>/<clientId>/<group>/
//	                              offsets.json written via mq/internal/configfile (.tmp, rename, .bak)
//	reset_offset.go               ResetOffset: the queues of a topic restart from the offsets a
//	                              broker's RESET_CONSUMER_CLIENT_OFFSET names (mqadmin resetOffsetByTime)
//
// The lite pull consumer (chapter 10), built from the same parts:
//
//	lite_pull_config.go           LitePullConfig: DefaultLitePullConsumer's fields and defaults
//	lite_pull_consumer.go         DefaultLitePullConsumer: subscribe or assign, start
//	                              (initRebalanceImpl), poll, commitAll / CommitSync, auto-commit,
//	                              seek, pause, resume, committed, fetchMessageQueues, shutdown
//	lite_pull_poll.go             DefaultLitePullConsumerImpl#poll (lite_pull_poll_stub.go: its
//	                              blank twin for the exercise mode, tag ex_ch10)
//	rebalance_lite_pull.go        MessageQueueListener; rebalanceLitePull, its RebalanceHooks
//	                              (CONSUME_ACTIVELY, messageQueueChanged → the listener)
//	assigned_message_queue.go     AssignedMessageQueue: per queue its ProcessQueue, paused, and
//	                              the pull, consume and seek offsets
//	pull_task.go                  PullTaskImpl#run (pause, flow control, long-polling sync pull),
//	                              updatePullTask / startPullTask, the consume request cache and
//	                              submitConsumeRequest
//	consume_request_cache_take.go the consume request cache's take, FIFO
//	                              (consume_request_cache_take_stub.go: its blank twin, tag ex_ch10)
//
// # The flow
//
// RebalanceService (the instance's) → DefaultMQPushConsumer.DoRebalance → Rebalance.DoRebalance
// → allocate → new ProcessQueue and PullRequest per queue → rebalancePush.DispatchPullRequest →
// PullMessageService → DefaultMQPushConsumer.PullMessage → PullAPIWrapper.PullKernelImpl →
// PULL_MESSAGE (suspend 15 s, timeout 30 s, commitOffset = the offset in memory) →
// PullCallback#onSuccess → ProcessQueue.PutMessage → ConsumeMessageService.SubmitConsumeRequest
// → listener → processConsumeResult → CONSUMER_SEND_MSG_BACK for failures →
// ProcessQueue.RemoveMessage → OffsetStore.UpdateOffset; the instance's persist task sends the
// offsets every 5 s (RemoteBrokerOffsetStore) or writes the local file (LocalFileOffsetStore,
// BROADCASTING).
//
// # Trace
//
// The consumer traces as component "consumer" (DefaultMQPushConsumerImpl#start,
// #copySubscription, #pullMessage, PullCallback#onSuccess, the consume service's steps); the
// parts the instance would own in Java — PullMessageService#run, RebalanceImpl#*,
// RebalancePushImpl#dispatchPullRequest, AllocateMessageQueueAveragely#allocate,
// PullAPIWrapper#pullKernelImpl and the offset stores' steps — trace with the instance's tracer
// as component "client", so the labels and components are Java's.
//
// A lite pull consumer: Subscribe → Rebalance.DoRebalance → rebalanceLitePull.MessageQueueChanged
// → its listener → AssignedMessageQueue and updatePullTask / startPullTask (Assign goes there
// directly) → PullTaskImpl#run per queue → PullAPIWrapper.PullKernelImplSync → ProcessQueue and
// submitConsumeRequest → Poll → commitAll → OffsetStore.UpdateOffset → the persist task.
//
// # Goroutines and locks
//
// Per consumer, unless Options.DisableScheduledTasks: the PullMessageService goroutine (a
// ServiceThread); batches queue for up to ConsumeThreadMin workers (orderly: a goroutine per
// request, at most ConsumeThreadMin at once, the semaphore sem); a batch to consume again later, a pull put back after a delay and the
// 10 s OFFSET_ILLEGAL fix-up wait on time.Timers. A pull's callback runs on a remoting
// goroutine. The rebalance runs on the instance's RebalanceService. With DisableScheduledTasks
// nothing runs by itself: the caller drives MQClientInstance.DoRebalance,
// PullMessageService.DoPull/DoPullQueue (which wait for the pull's callback, batches included:
// a batch then runs on the callback's goroutine) and RunPersistConsumerOffsetTask; delayed
// re-consumption waits for RunDelayedConsumeRequests and the OFFSET_ILLEGAL fix-up runs at once.
// Shutdown stops the consume service, persists the offsets, unregisters, stops the pull loop
// and its timers, then the instance (when nothing else uses it), and waits for the fix-ups.
// A lite pull consumer runs one goroutine per pull task, counted by a service.Group (at most
// PullThreadNums pulls in flight); with DisableScheduledTasks none, and the caller runs
// RunPullTask. Its Shutdown cancels the tasks and their pulls, waits for them, then persists
// the offsets and unregisters.
//
// Which lock guards what:
//
//   - DefaultMQPushConsumer: mu guards state transitions, the pre-start subscriptions and the
//     listener; state is also an atomic for the pull path; paused is an atomic (Suspend/Resume);
//     pullLater (a service.Group) holds pending OFFSET_ILLEGAL fix-ups: Shutdown cancels those not yet due and waits for a running one.
//   - Rebalance: mu guards processQueueTable, topicSubscribeInfoTable and subscriptionInner;
//     it is never held while hooks run or the broker is asked. rebalancePush holds no lock.
//   - PullRequest: mu guards nextOffset. PullMessageService: mu guards the pending queue, the
//     delay timers and closed; signal (1-slot channel) wakes its loop.
//   - PullAPIWrapper: mu guards pullFromWhichNodeTable (the broker id to pull each queue from).
//   - ProcessQueue: mu (Java lockTreeMap, a RWMutex) guards the tree, msgCount, msgSize,
//     queueOffsetMax, consuming and msgAccCnt; dropped, locked and the timestamps are atomics;
//     consumeMu (Java consumeLock) is for orderly consumption.
//   - ConsumeMessageConcurrentlyService: mu guards the delayed requests (later), their timers
//     and stopped; wg counts batches running or waiting on a timer, so shutdown waits for them.
//   - ConsumeMessageOrderlyService: mu guards stopped and the delayed work of manual mode;
//     MessageQueueLock's mu guards its table; a ConsumeRequest holds its queue's mutex for its
//     whole run and the ProcessQueue's consumeMu around each listener call; a rebalance that
//     removes the queue takes consumeMu (waiting up to 1 s) before unlocking it on the broker.
//     The ProcessQueue's orderly batch (consuming) is guarded by its mu.
//   - Offset stores: the offset table has its own mu; LocalFileOffsetStore's file is written
//     whole (configfile.Store), so a reader sees the old or the new file, never a mix.
//   - DefaultLitePullConsumer: mu guards the state, the mode and the auto-commit deadline;
//     pollMu serializes Poll, CommitSync and Seek; seekMu orders a seek against a task storing
//     a pull; tasksMu guards taskTable. AssignedMessageQueue and the consume request cache
//     have their own mu, and neither is held while the other is taken (Poll reads the paused
//     queues before it takes from the cache; a task fills the cache after it updated the
//     table). Order: pollMu → seekMu → AssignedMessageQueue or cache.
//   - No lock of this package is held while the listener runs or the broker is called (a lite
//     pull task stores its result under seekMu, after the pull).
//
// # Deviations
//
//   - Each push consumer owns its PullMessageService (Java: one per MQClientInstance, shared by
//     the instance's push consumers), as rocketmq-client-go's pushConsumer does: the loop, the
//     rebalance that feeds it and the consume service live in one package.
//   - A lite pull consumer's Poll leaves a paused queue's cached messages in the cache until
//     Resume (Java returns them); after NO_NEW_MSG its task waits 50 ms (Java pulls again at once).
//   - Orderly: a new queue's ProcessQueue is marked locked at once (the lock was just granted;
//     Java waits for the next lockAll); the unlock of a removed queue waits for the broker's
//     answer (Java: one way), and a delayed one is skipped when a rebalance gave the queue back
//     meanwhile (Java unlocks it under the new ProcessQueue) and run at once by Shutdown; shutdown persists the offsets before it unlocks (Java: after); a
//     BROADCASTING orderly consumer takes no broker lock; a message past maxReconsumeTimes goes
//     to the DLQ by CONSUMER_SEND_MSG_BACK with delay level -1 (Java: a copy through the inner
//     producer); the first pull after a lock does not re-read the offset from the broker
//     (Java's previouslyLocked: the rebalance read it right after taking the lock).
//   - No consume-timeout cleaner (cleanExpireMsg), no message trace hooks,
//     no inner producer fallback for a failed send-back (the batch is consumed again locally).
//   - A BROADCASTING consumer needs Config.OffsetStoreDir (no default under the home directory).
//   - MaxReconsumeTimes 0 means the default (16), not "never retry".
package consumer
