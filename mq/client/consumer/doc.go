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
// ConsumeThreadMin at once (the semaphore sem); a batch to consume again later, a pull put
// back after a delay and (with scheduled tasks) the 10 s OFFSET_ILLEGAL fix-up wait on
// time.Timers. With ClientConfig.DisableScheduledTasks nothing runs by itself: the caller
// drives MQClientInstance.DoRebalance, PullMessageService.DoPull/DoPullQueue (which wait for
// the pull's callback, batches included: a batch then runs on the callback's goroutine) and
// RunPersistConsumerOffsetTask; delayed re-consumption waits for RunDelayedConsumeRequests and
// the OFFSET_ILLEGAL fix-up runs at once.
//
// Which lock guards what:
//
//   - DefaultMQPushConsumer: mu guards state transitions, the pre-start subscriptions and the
//     listener; state is also an atomic for the pull path; paused is an atomic (Suspend/Resume);
//     pullLater (a WaitGroup) counts pending OFFSET_ILLEGAL fix-ups so Shutdown can wait.
//   - ConsumeMessageConcurrentlyService: mu guards the delayed requests (later), their timers
//     and stopped; wg counts batches running or waiting on a timer, so shutdown waits for them.
//   - rebalancePush holds no lock of its own: the tables are RebalanceImpl's (its mu),
//     a queue's messages are its ProcessQueue's (its mu), offsets are the OffsetStore's.
//   - No lock of this package is held while the listener runs or the broker is called.
//
// # Deviations
//
//   - No orderly consumer, no consume-timeout cleaner (cleanExpireMsg), no message trace hooks,
//     no inner producer fallback for a failed send-back (the batch is consumed again locally).
//   - A BROADCASTING consumer needs Config.OffsetStoreDir (no default under the home directory).
//   - MaxReconsumeTimes 0 means the default (16), not "never retry".
package consumer
