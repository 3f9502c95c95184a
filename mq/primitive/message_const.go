package primitive

// Property names: the keys of Message.Properties that RocketMQ itself reads or writes.
// Mirrors org.apache.rocketmq.common.message.MessageConst (4.9.x). Each value is the literal
// string that travels in the properties string (remoting-protocol.md §8); the values are pinned
// by TestPropertyNames.
const (
	// PropertyKeys holds the business keys, separated by KeySeparator; the index service
	// indexes each one as "topic#key".
	PropertyKeys = "KEYS"
	// PropertyTags holds the single tag string; its Java hash is the ConsumeQueue tagsCode.
	PropertyTags = "TAGS"
	// PropertyWaitStoreMsgOK ("true"/"false"): wait for sync flush / sync replication. Absent
	// means true. The broker strips it from what it stores.
	PropertyWaitStoreMsgOK = "WAIT"
	// PropertyDelayTimeLevel is the delay level 1..18 (0 or absent: no delay).
	PropertyDelayTimeLevel = "DELAY"
	// PropertyRetryTopic is the original topic of a message sent back for retry.
	PropertyRetryTopic = "RETRY_TOPIC"
	// PropertyRealTopic and PropertyRealQueueID keep the real destination of delayed and
	// transaction half messages while they sit in a system topic.
	PropertyRealTopic   = "REAL_TOPIC"
	PropertyRealQueueID = "REAL_QID"
	// PropertyTransactionPrepared is "true" on a transaction half message.
	PropertyTransactionPrepared = "TRAN_MSG"
	// PropertyProducerGroup names the transaction producer's group (checks go to its channels).
	PropertyProducerGroup = "PGROUP"
	// PropertyMinOffset and PropertyMaxOffset are set by consumers from the pull response header.
	PropertyMinOffset = "MIN_OFFSET"
	PropertyMaxOffset = "MAX_OFFSET"
	PropertyBuyerID   = "BUYER_ID"
	// PropertyOriginMessageID is the first message id of a retry chain.
	PropertyOriginMessageID = "ORIGIN_MESSAGE_ID"
	PropertyTransferFlag    = "TRANSFER_FLAG"
	PropertyCorrectionFlag  = "CORRECTION_FLAG"
	PropertyMQ2Flag         = "MQ2_FLAG"
	PropertyReconsumeTime   = "RECONSUME_TIME"
	// PropertyMsgRegion and PropertyTraceSwitch are also extFields of send responses.
	PropertyMsgRegion   = "MSG_REGION"
	PropertyTraceSwitch = "TRACE_ON"
	// PropertyUniqClientMessageIDKeyIdx is the producer-made message id (UNIQ_KEY); it is the
	// MsgID users see and is indexed.
	PropertyUniqClientMessageIDKeyIdx = "UNIQ_KEY"
	PropertyMaxReconsumeTimes         = "MAX_RECONSUME_TIMES"
	PropertyConsumeStartTimestamp     = "CONSUME_START_TIME"
	// PropertyTransactionPreparedQueueOffset keeps the original half-queue offset of a half
	// message re-put by the transaction check.
	PropertyTransactionPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET"
	// PropertyTransactionCheckTimes counts the broker's CHECK_TRANSACTION_STATE attempts.
	PropertyTransactionCheckTimes = "TRANSACTION_CHECK_TIMES"
	// PropertyCheckImmunityTimeInSeconds delays the first transaction check (seconds).
	PropertyCheckImmunityTimeInSeconds = "CHECK_IMMUNITY_TIME_IN_SECONDS"
	PropertyInstanceID                 = "INSTANCE_ID"
	// Request/reply properties.
	PropertyCorrelationID          = "CORRELATION_ID"
	PropertyMessageReplyToClient   = "REPLY_TO_CLIENT"
	PropertyMessageTTL             = "TTL"
	PropertyReplyMessageArriveTime = "ARRIVE_TIME"
	PropertyPushReplyTime          = "PUSH_REPLY_TIME"
	// PropertyCluster is added by the broker to every stored sent message (its cluster name).
	PropertyCluster     = "CLUSTER"
	PropertyMessageType = "MSG_TYPE"
	// PropertyTransactionID is client-go's client-side transaction id carrier.
	PropertyTransactionID = "__transactionId__"
	// PropertyTimerDeliverMS is a 5.x timer property that client-go can set; 4.x ignores it.
	PropertyTimerDeliverMS = "TIMER_DELIVER_MS"

	// KeySeparator separates the keys inside PropertyKeys.
	KeySeparator = " "
	// ReplyMessageFlag is the PropertyMessageType value of a reply message.
	ReplyMessageFlag = "reply"
)

// Separators of the properties string (Java MessageDecoder.NAME_VALUE_SEPARATOR and
// PROPERTY_SEPARATOR).
const (
	NameValueSeparator byte = 0x01
	PropertySeparator  byte = 0x02
)
