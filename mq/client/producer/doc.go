// Package producer sends messages: DefaultMQProducer finds a topic's route through its
// client.MQClientInstance, picks a queue with its MQFaultStrategy, and sends synchronously,
// asynchronously (callback) or one way, single messages or batches, to a chosen queue or one a
// MessageQueueSelector picks, retrying on other queues as RocketMQ does.
//
// Java: org.apache.rocketmq.client.producer (DefaultMQProducer, SendCallback,
// MessageQueueSelector, selector.*), client.impl.producer.DefaultMQProducerImpl,
// client.latency (MQFaultStrategy, LatencyFaultToleranceImpl and its FaultItem),
// client.hook (SendMessageHook, SendMessageContext), client.Validators#checkMessage.
//
// # Files in reading order
//
//	config.go                   Config and DefaultMQProducer's defaults
//	default_mq_producer.go      DefaultMQProducer: start, shutdown, the MQProducerInner side
//	send_api.go                 the public sends (Send, SendAsync, SendOneway, to a queue, with
//	                            a selector, batches) and the async sender executor
//	send.go                     sendDefaultImpl, tryToFindTopicPublishInfo, sendKernelImpl
//	request.go                  Request, RequestAsync (request/reply), prepareSendRequest
//	transaction_mq_producer.go  TransactionMQProducer, TransactionListener, LocalTransactionState:
//	                            sendMessageInTransaction, endTransaction, checkTransactionState
//	mq_fault_strategy.go        MQFaultStrategy: queue selection, latency tables
//	select_one_message_queue.go MQFaultStrategy#selectOneMessageQueue (select_one_message_queue_stub.go:
//	                            its blank twin for the exercise mode, tag ex_ch02)
//	latency_fault_tolerance.go  LatencyFaultToleranceImpl, FaultItem
//	compare_fault_items.go      FaultItem#compareTo's order (compare_fault_items_stub.go: its blank
//	                            twin, tag ex_ch02)
//	selector.go                 MessageQueueSelector, by hash, at random
//	hook.go                     SendMessageHook
//	compress.go                 zlib, the compression sysFlag bits
//
// # A send
//
//	sendDefaultImpl ─ tryToFindTopicPublishInfo ─ (MQClientInstance route update, TBW102 fallback)
//	   └─ up to 1 + retryTimesWhenSendFailed times (SYNC; once for ASYNC and ONEWAY):
//	        MQFaultStrategy.SelectOneMessageQueue(lastBrokerName)
//	        sendKernelImpl: UNIQ_KEY, compression (≥ 4 KiB: zlib, sysFlag 0x301), header
//	          └─ MQClientAPIImpl.SendMessage (SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE)
//	        UpdateFaultItem(broker, latency, isolation = the attempt failed)
//
// A broker's failing answer is a *remoting.RemoteError (code, remark, broker address): a code
// in RetryResponseCodes tries another queue, any other ends the send with that error.
//
// Latencies are in ms on the producer's clock (Options.Clock, a clock.Clock; the fault
// table reads the same clock). With
// sendLatencyFaultEnable a send that took L ms makes its broker unavailable for
//
//	L ≥      50  100   550    1000   2000    3000    15000
//	pause     0    0  30000  60000  120000  180000  600000   (ms)
//
// and a failed one for 600000 ms (it is charged 30000 ms); when no queue's broker is available,
// LatencyFaultTolerance.PickOneAtLeast names the least bad broker (available first, then
// lower latency, then earlier end of pause; one of the better half, round robin).
//
// # Trace
//
// The producer traces as component "producer": DefaultMQProducerImpl#start, #sendDefaultImpl,
// #sendMessageInTransaction, #endTransaction, #checkTransactionState,
// #tryToFindTopicPublishInfo, #sendKernelImpl, MQFaultStrategy#selectOneMessageQueue,
// MQFaultStrategy#updateFaultItem (only when the fault tolerance is on),
// LatencyFaultToleranceImpl#updateFaultItem, #isAvailable, #pickOneAtLeast, FaultItem#isAvailable.
// Steps are logged where they start, so a step's sub-steps follow it.
//
// # Goroutines and locks
//
// The async sender executor: max(GOMAXPROCS, 2) goroutines draining a queue of at most 50000
// sends, started by Start and stopped by Shutdown after every accepted send's callback ran. A
// DefaultMQProducer is safe for concurrent use: mu guards state, closing, the instance and the
// hooks; tpMu the topic publish table; LatencyFaultToleranceImpl.mu its table (items are
// atomics); MQFaultStrategy's switch is atomic. Hooks and callbacks run without locks held.
//
// # Deviations
//
//   - Send timeouts are context deadlines on the monotonic clock (SendMsgTimeout, or the
//     caller's earlier deadline); Java measures them with System.currentTimeMillis.
//   - One type plays DefaultMQProducer and DefaultMQProducerImpl; Config replaces the setters.
//   - SendMessageHook.SendMessageAfter runs once per async send, with its outcome.
//   - Accepted async sends finish (their callbacks run) before Shutdown returns.
//   - No transactions, request/reply, namespaces, trace dispatcher or check-forbidden hooks
//     (later issues); sendLatencyFaultEnable can be switched while running, as in Java.
package producer
