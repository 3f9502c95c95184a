// Package transaction is the broker's side of transactional messages, a two-phase commit on
// top of the store: a transaction's message is first stored as a half message, invisible to
// consumers; the producer's END_TRANSACTION then commits it (a copy goes to its real topic)
// or rolls it back, and either way an op message records the decision; the check service asks
// the producer about half messages left undecided.
//
// Java: org.apache.rocketmq.broker.transaction (TransactionalMessageCheckService,
// AbstractTransactionalMessageCheckListener, DefaultTransactionalMessageCheckListener) and its
// queue package (TransactionalMessageBridge, TransactionalMessageServiceImpl,
// TransactionalMessageUtil). EndTransactionProcessor stays in mq/broker, which wires this
// package: it sits below mq/remoting/protocol and mq/broker (layer 2: mq/store, mq/remoting,
// mq/primitive, mq/trace, mq/internal/...), reaching the broker's producer channels and
// consumer offsets through the small interfaces Broker2Client and OffsetStore.
//
// # Files, in reading order
//
//	transactional_message_util.go                  the system topics, group, tag; the store and offset interfaces
//	transactional_message_bridge.go                TransactionalMessageBridge: half message, op message, queue reads
//	transactional_message_service.go               the TransactionalMessageService interface
//	transactional_message_service_impl.go          TransactionalMessageServiceImpl: prepare, commit/rollback lookup,
//	                                               deletePrepareMessage, putBackHalfMsgQueue
//	transactional_message_check.go                 TransactionalMessageServiceImpl#check, one pass
//	                                               (transactional_message_check_stub.go: its blank
//	                                               twin for the exercise mode, tag ex_ch08)
//	fill_op_remove_map.go                          #fillOpRemoveMap, the op-queue map
//	                                               (fill_op_remove_map_stub.go: its blank twin, tag ex_ch08)
//	decided_transactions.go                        the transactions decided since start (a second END_TRANSACTION stores nothing)
//	abstract_transactional_message_check_listener.go  resolveHalfMsg (CHECK_TRANSACTION_STATE), resolveDiscardMsg
//	transactional_message_check_service.go         TransactionalMessageCheckService: onWaitEnd every transactionCheckInterval
//
// # What is stored
//
//	half message   RMQ_SYS_TRANS_HALF_TOPIC queue 0; sysFlag's transaction bits reset to NOT_TYPE;
//	               properties + REAL_TOPIC, REAL_QID (and TRAN_MSG=true, PGROUP from the producer),
//	               without DELAY;
//	               a checked copy also TRANSACTION_CHECK_TIMES = n
//	op message     RMQ_SYS_TRANS_OP_HALF_TOPIC queue 0; TAGS "d"; body: the half message's queue
//	               offset as decimal text ("0", "17")
//	committed      the half message's copy in REAL_TOPIC / REAL_QID, sysFlag TRANSACTION_COMMIT_TYPE
//	               (0x8), PreparedTransactionOffset = the half record's CommitLog offset (mq/broker)
//	discarded      TRANS_CHECK_MAX_TIME_TOPIC queue 0, after transactionCheckMax checks
//
// The SysGroup CID_RMQ_SYS_TRANS keeps two offsets in consumerOffset.json: the half queue's
// (every half message before it is decided or put back further on) and the op queue's (every op
// message before it was matched with its half message).
//
// # Goroutines and locks
//
// TransactionalMessageCheckService (ServiceThread) runs OnWaitEnd every
// transactionCheckInterval on a master; with the store's ManualServices the broker does not
// start it and chapters call OnWaitEnd. TransactionalMessageServiceImpl.checkMu makes passes
// take turns; decidedTransactions.mu guards the decisions END_TRANSACTION workers claim. Times
// are the store's clock (ms).
package transaction
