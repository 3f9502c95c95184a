package protocol

// Request codes (the `code` of a request frame). Mirrors
// org.apache.rocketmq.common.protocol.RequestCode (4.9.x); values pinned by TestRequestCodes.
//
// The constants are untyped so they fit whatever integer type a command's code field has
// (client-go uses int16; every code here fits).
const (
	SendMessage             = 10
	PullMessage             = 11
	QueryMessage            = 12
	QueryBrokerOffset       = 13
	QueryConsumerOffset     = 14
	UpdateConsumerOffset    = 15
	UpdateAndCreateTopic    = 17
	GetAllTopicConfig       = 21
	GetTopicConfigList      = 22
	GetTopicNameList        = 23
	UpdateBrokerConfig      = 25
	GetBrokerConfig         = 26
	TriggerDeleteFiles      = 27
	GetBrokerRuntimeInfo    = 28
	SearchOffsetByTimestamp = 29
	GetMaxOffset            = 30
	GetMinOffset            = 31
	GetEarliestMsgStoretime = 32
	ViewMessageByID         = 33
	HeartBeat               = 34
	UnregisterClient        = 35
	ConsumerSendMsgBack     = 36
	EndTransaction          = 37
	GetConsumerListByGroup  = 38
	// CheckTransactionState is broker → producer.
	CheckTransactionState = 39
	// NotifyConsumerIdsChanged is broker → consumer.
	NotifyConsumerIdsChanged = 40
	LockBatchMQ              = 41
	UnlockBatchMQ            = 42
	GetAllConsumerOffset     = 43
	GetAllDelayOffset        = 45
	CheckClientConfig        = 46

	// The ACL admin codes (broker: plain_acl.yml).
	UpdateAndCreateACLConfig     = 50
	DeleteACLConfig              = 51
	GetBrokerClusterACLInfo      = 52
	UpdateGlobalWhiteAddrsConfig = 53

	PutKVConfig          = 100
	GetKVConfig          = 101
	DeleteKVConfig       = 102
	RegisterBroker       = 103
	UnregisterBroker     = 104
	GetRouteinfoByTopic  = 105
	GetBrokerClusterInfo = 106

	UpdateAndCreateSubscriptionGroup = 200
	GetAllSubscriptionGroupConfig    = 201
	GetTopicStatsInfo                = 202
	GetConsumerConnectionList        = 203
	GetProducerConnectionList        = 204
	WipeWritePermOfBroker            = 205
	GetAllTopicListFromNameserver    = 206
	DeleteSubscriptionGroup          = 207
	GetConsumeStats                  = 208
	SuspendConsumer                  = 209
	ResumeConsumer                   = 210
	ResetConsumerOffsetInConsumer    = 211
	ResetConsumerOffsetInBroker      = 212
	AdjustConsumerThreadPool         = 213
	WhoConsumeTheMessage             = 214
	DeleteTopicInBroker              = 215
	DeleteTopicInNamesrv             = 216
	GetKVListByNamespace             = 219
	// ResetConsumerClientOffset, GetConsumerStatusFromClient: broker → client.
	ResetConsumerClientOffset       = 220
	GetConsumerStatusFromClient     = 221
	InvokeBrokerToResetOffset       = 222
	InvokeBrokerToGetConsumerStatus = 223
	GetTopicsByCluster              = 224
	QueryTopicConsumeByWho          = 300
	RegisterFilterServer            = 301
	QueryConsumeTimeSpan            = 303
	GetSystemTopicListFromNS        = 304
	GetSystemTopicListFromBroker    = 305
	CleanExpiredConsumequeue        = 306
	GetConsumerRunningInfo          = 307
	QueryCorrectionOffset           = 308
	ConsumeMessageDirectly          = 309
	SendMessageV2                   = 310
	GetUnitTopicList                = 311
	GetHasUnitSubTopicList          = 312
	GetHasUnitSubUnunitTopicList    = 313
	CloneGroupOffset                = 314
	ViewBrokerStatsData             = 315
	CleanUnusedTopic                = 316
	GetBrokerConsumeStats           = 317
	UpdateNamesrvConfig             = 318
	GetNamesrvConfig                = 319
	SendBatchMessage                = 320
	QueryConsumeQueue               = 321
	QueryDataVersion                = 322
	ResumeCheckHalfMessage          = 323
	SendReplyMessage                = 324
	SendReplyMessageV2              = 325
	PushReplyMessageToClient        = 326
	AddWritePermOfBroker            = 327
)
