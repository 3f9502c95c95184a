// Package consumer is the push consumer: DefaultMQPushConsumer, its rebalance hooks and its
// concurrent consume service. The parts a lite pull consumer will share — PullMessageService,
// PullAPIWrapper, RebalanceImpl, ProcessQueue, the allocation strategies and the offset
// stores — live in mq/client next to MQClientInstance, which owns the pull loop.
//
// Java: org.apache.rocketmq.client.consumer.DefaultMQPushConsumer,
// impl.consumer.DefaultMQPushConsumerImpl, impl.consumer.RebalancePushImpl,
// impl.consumer.ConsumeMessageConcurrentlyService, consumer.listener.*.
//
// # Files in reading order
//
//	config.go               Config: DefaultMQPushConsumer's fields and defaults
//	push_consumer.go        start (copySubscription, instance, offset store, heartbeat,
//	                        rebalanceImmediately), pullMessage with flow control and PullCallback,
//	                        sendMessageBack, the MQConsumerInner callbacks
//	rebalance_push.go       computePullFromWhere, dispatchPullRequest, removeUnnecessaryMessageQueue
//	consume_concurrently.go the listener types, ConsumeRequest#run, processConsumeResult (ackIndex,
//	                        send back, removeMessage, offset update)
//
// # The flow
//
// RebalanceService (mq/client) → RebalanceImpl#doRebalance → allocate → new ProcessQueue and
// PullRequest per queue → PullMessageService → DefaultMQPushConsumer.PullMessage → PULL_MESSAGE
// (suspend 15 s, timeout 30 s, commitOffset = the offset in memory) → PullCallback#onSuccess →
// ProcessQueue.PutMessage → submitConsumeRequest → listener → processConsumeResult →
// CONSUMER_SEND_MSG_BACK for failures → ProcessQueue.RemoveMessage → OffsetStore.UpdateOffset;
// the instance's persist task sends the offsets every 5 s (RemoteBrokerOffsetStore) or writes
// the local file (LocalFileOffsetStore, BROADCASTING).
//
// # Goroutines and locks
//
// The pull loop and the rebalance run on the MQClientInstance's services; a pull's callback
// runs on a remoting goroutine; each batch runs on a goroutine of its own, at most
// ConsumeThreadMin at once. With ClientConfig.DisableScheduledTasks nothing runs by itself:
// the caller drives MQClientInstance.DoRebalance, PullMessageService.DoPull/DoPullQueue (which
// wait for the pull's callback, batches included) and RunPersistConsumerOffsetTask.
// DefaultMQPushConsumer.mu guards start/shutdown and the pre-start subscriptions.
//
// # Deviations
//
//   - No orderly consumer, no consume-timeout cleaner (cleanExpireMsg), no message trace hooks,
//     no inner producer fallback for a failed send-back (the batch is consumed again locally).
//   - A BROADCASTING consumer needs Config.OffsetStoreDir (no default under the home directory).
//   - MaxReconsumeTimes 0 means the default (16), not "never retry".
package consumer
