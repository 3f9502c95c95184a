package protocol

// Response codes (the `code` of a response frame). Mirrors
// org.apache.rocketmq.common.protocol.ResponseCode together with the generic
// RemotingSysResponseCode values it extends (remoting-protocol.md §13); values pinned by
// TestResponseCodes. Untyped, like the request codes.
const (
	Success                 = 0
	SystemError             = 1
	SystemBusy              = 2
	RequestCodeNotSupported = 3
	TransactionFailed       = 4

	FlushDiskTimeout          = 10
	SlaveNotAvailable         = 11
	FlushSlaveTimeout         = 12
	MessageIllegal            = 13
	ServiceNotAvailable       = 14
	VersionNotSupported       = 15
	NoPermission              = 16
	TopicNotExist             = 17
	TopicExistAlready         = 18
	PullNotFound              = 19
	PullRetryImmediately      = 20
	PullOffsetMoved           = 21
	QueryNotFound             = 22
	SubscriptionParseFailed   = 23
	SubscriptionNotExist      = 24
	SubscriptionNotLatest     = 25
	SubscriptionGroupNotExist = 26
	FilterDataNotExist        = 27
	FilterDataNotLatest       = 28

	TransactionShouldCommit            = 200
	TransactionShouldRollback          = 201
	TransactionStateUnknow             = 202
	TransactionStateGroupWrong         = 203
	NoBuyerID                          = 204
	NotInCurrentUnit                   = 205
	ConsumerNotOnline                  = 206
	ConsumeMsgTimeout                  = 207
	NoMessage                          = 208
	UpdateAndCreateACLConfigFailed     = 209
	DeleteACLConfigFailed              = 210
	UpdateGlobalWhiteAddrsConfigFailed = 211
	FlowControl                        = 215
)
