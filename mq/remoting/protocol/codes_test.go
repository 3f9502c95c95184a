package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRequestCodes pins RequestCode's wire values (remoting-protocol.md §3).
func TestRequestCodes(t *testing.T) {
	pinned := []struct {
		got, want int32
	}{
		{SendMessage, 10}, {PullMessage, 11}, {QueryMessage, 12}, {QueryBrokerOffset, 13},
		{QueryConsumerOffset, 14}, {UpdateConsumerOffset, 15}, {UpdateAndCreateTopic, 17},
		{GetAllTopicConfig, 21}, {GetTopicConfigList, 22}, {GetTopicNameList, 23}, {UpdateBrokerConfig, 25},
		{GetBrokerConfig, 26}, {TriggerDeleteFiles, 27}, {GetBrokerRuntimeInfo, 28},
		{SearchOffsetByTimestamp, 29}, {GetMaxOffset, 30}, {GetMinOffset, 31}, {GetEarliestMsgStoretime, 32},
		{ViewMessageByID, 33}, {HeartBeat, 34}, {UnregisterClient, 35}, {ConsumerSendMsgBack, 36},
		{EndTransaction, 37}, {GetConsumerListByGroup, 38}, {CheckTransactionState, 39},
		{NotifyConsumerIdsChanged, 40}, {LockBatchMQ, 41}, {UnlockBatchMQ, 42}, {GetAllConsumerOffset, 43},
		{GetAllDelayOffset, 45}, {CheckClientConfig, 46},
		{UpdateAndCreateACLConfig, 50}, {DeleteACLConfig, 51}, {GetBrokerClusterACLInfo, 52}, {UpdateGlobalWhiteAddrsConfig, 53},
		{PutKVConfig, 100}, {GetKVConfig, 101}, {DeleteKVConfig, 102}, {RegisterBroker, 103},
		{UnregisterBroker, 104}, {GetRouteinfoByTopic, 105}, {GetBrokerClusterInfo, 106},
		{UpdateAndCreateSubscriptionGroup, 200}, {GetAllSubscriptionGroupConfig, 201}, {GetTopicStatsInfo, 202},
		{GetConsumerConnectionList, 203}, {GetProducerConnectionList, 204}, {WipeWritePermOfBroker, 205},
		{GetAllTopicListFromNameserver, 206}, {DeleteSubscriptionGroup, 207}, {GetConsumeStats, 208},
		{SuspendConsumer, 209}, {ResumeConsumer, 210}, {ResetConsumerOffsetInConsumer, 211},
		{ResetConsumerOffsetInBroker, 212}, {AdjustConsumerThreadPool, 213}, {WhoConsumeTheMessage, 214},
		{DeleteTopicInBroker, 215}, {DeleteTopicInNamesrv, 216}, {GetKVListByNamespace, 219},
		{ResetConsumerClientOffset, 220}, {GetConsumerStatusFromClient, 221}, {InvokeBrokerToResetOffset, 222},
		{InvokeBrokerToGetConsumerStatus, 223}, {GetTopicsByCluster, 224}, {QueryTopicConsumeByWho, 300},
		{RegisterFilterServer, 301}, {QueryConsumeTimeSpan, 303}, {GetSystemTopicListFromNS, 304},
		{GetSystemTopicListFromBroker, 305}, {CleanExpiredConsumequeue, 306}, {GetConsumerRunningInfo, 307},
		{QueryCorrectionOffset, 308}, {ConsumeMessageDirectly, 309}, {SendMessageV2, 310},
		{GetUnitTopicList, 311}, {GetHasUnitSubTopicList, 312}, {GetHasUnitSubUnunitTopicList, 313},
		{CloneGroupOffset, 314}, {ViewBrokerStatsData, 315}, {CleanUnusedTopic, 316},
		{GetBrokerConsumeStats, 317}, {UpdateNamesrvConfig, 318}, {GetNamesrvConfig, 319},
		{SendBatchMessage, 320}, {QueryConsumeQueue, 321}, {QueryDataVersion, 322},
		{ResumeCheckHalfMessage, 323}, {SendReplyMessage, 324}, {SendReplyMessageV2, 325},
		{PushReplyMessageToClient, 326}, {AddWritePermOfBroker, 327},
	}
	seen := map[int32]bool{}
	for _, p := range pinned {
		require.Equal(t, p.want, p.got)
		require.False(t, seen[p.got], "duplicate request code %d", p.got)
		seen[p.got] = true
	}
}

// TestResponseCodes pins ResponseCode / RemotingSysResponseCode (remoting-protocol.md §13).
func TestResponseCodes(t *testing.T) {
	pinned := []struct {
		got, want int32
	}{
		{Success, 0}, {SystemError, 1}, {SystemBusy, 2}, {RequestCodeNotSupported, 3}, {TransactionFailed, 4},
		{FlushDiskTimeout, 10}, {SlaveNotAvailable, 11}, {FlushSlaveTimeout, 12}, {MessageIllegal, 13},
		{ServiceNotAvailable, 14}, {VersionNotSupported, 15}, {NoPermission, 16}, {TopicNotExist, 17},
		{TopicExistAlready, 18}, {PullNotFound, 19}, {PullRetryImmediately, 20}, {PullOffsetMoved, 21},
		{QueryNotFound, 22}, {SubscriptionParseFailed, 23}, {SubscriptionNotExist, 24},
		{SubscriptionNotLatest, 25}, {SubscriptionGroupNotExist, 26}, {FilterDataNotExist, 27},
		{FilterDataNotLatest, 28}, {TransactionShouldCommit, 200}, {TransactionShouldRollback, 201},
		{TransactionStateUnknow, 202}, {TransactionStateGroupWrong, 203}, {NoBuyerID, 204},
		{NotInCurrentUnit, 205}, {ConsumerNotOnline, 206}, {ConsumeMsgTimeout, 207}, {NoMessage, 208},
		{UpdateAndCreateACLConfigFailed, 209}, {DeleteACLConfigFailed, 210},
		{UpdateGlobalWhiteAddrsConfigFailed, 211}, {FlowControl, 215},
	}
	for _, p := range pinned {
		require.Equal(t, p.want, p.got)
	}
	var asInt16 int16 = PullNotFound // untyped: fits client-go's int16 code field
	require.Equal(t, int16(19), asInt16)
}

// TestPermName pins PermName's bits and helpers (§5.7).
func TestPermName(t *testing.T) {
	require.Equal(t, int32(8), PermPriority)
	require.Equal(t, int32(4), PermRead)
	require.Equal(t, int32(2), PermWrite)
	require.Equal(t, int32(1), PermInherit)
	require.True(t, IsReadable(6))
	require.True(t, IsWriteable(6))
	require.False(t, IsInherited(6))
	require.True(t, IsInherited(7))
	require.False(t, IsWriteable(4))
	require.Equal(t, "RWX", Perm2String(7))
	require.Equal(t, "R--", Perm2String(4))
	require.Equal(t, "-W-", Perm2String(2))
}

// TestPullSysFlag pins PullSysFlag's bits and helpers (§4.6).
func TestPullSysFlag(t *testing.T) {
	require.Equal(t, int32(0x1), PullFlagCommitOffset)
	require.Equal(t, int32(0x2), PullFlagSuspend)
	require.Equal(t, int32(0x4), PullFlagSubscription)
	require.Equal(t, int32(0x8), PullFlagClassFilter)
	require.Equal(t, int32(0x10), PullFlagLitePull)
	f := BuildPullSysFlag(true, true, false, false)
	require.Equal(t, int32(3), f, "client-go push consumer with a local offset")
	require.True(t, HasCommitOffsetFlag(f))
	require.True(t, HasSuspendFlag(f))
	require.False(t, HasSubscriptionFlag(f))
	require.False(t, HasClassFilterFlag(f))
	require.Equal(t, int32(2), ClearCommitOffsetFlag(f))
	require.Equal(t, int32(0xF), BuildPullSysFlag(true, true, true, true))
}

// TestWellKnownNames pins MixAll / TopicValidator names and the not-allowed-send set (§9.1, §4.3).
func TestWellKnownNames(t *testing.T) {
	require.Equal(t, "TBW102", DefaultTopic)
	require.Equal(t, "%RETRY%g1", GetRetryTopic("g1"))
	require.Equal(t, "%DLQ%g1", GetDLQTopic("g1"))
	require.True(t, IsRetryTopic("%RETRY%g1"))
	require.True(t, IsDLQTopic("%DLQ%g1"))
	require.Equal(t, "DefaultCluster_REPLY_TOPIC", GetReplyTopic("DefaultCluster"))
	require.Equal(t, int64(0), MasterID)
	require.Equal(t, "SCHEDULE_TOPIC_XXXX", ScheduleTopic)
	require.Equal(t, "RMQ_SYS_TRANS_HALF_TOPIC", TransHalfTopic)
	require.Equal(t, "RMQ_SYS_TRANS_OP_HALF_TOPIC", TransOpHalfTopic)
	require.Equal(t, "TRANS_CHECK_MAX_TIME_TOPIC", TransCheckMaxTimeTopic)
	require.Equal(t, "RMQ_SYS_TRACE_TOPIC", TraceTopic)
	require.Equal(t, "CID_RMQ_SYS_TRANS", TransactionSysGroup)

	for _, topic := range []string{ScheduleTopic, TransHalfTopic, TransOpHalfTopic, TransCheckMaxTimeTopic, SelfTestTopic, OffsetMovedEvent} {
		require.True(t, NotAllowedSendTopic(topic), topic)
		require.True(t, IsSystemTopic(topic), topic)
	}
	require.False(t, NotAllowedSendTopic(DefaultTopic))
	require.False(t, NotAllowedSendTopic("%RETRY%g1"), "retry topics accept client-go's fallback sends")
	require.True(t, IsSystemTopic("rmq_sys_anything"))
	require.False(t, IsSystemTopic("TopicTest"))
}

// TestValidateTopic pins TopicValidator#validateTopic: ^[%|a-zA-Z0-9_-]+$, ≤ 127, not blank.
func TestValidateTopic(t *testing.T) {
	long := make([]byte, 128)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		topic  string
		remark string // "" = valid
	}{
		{"TopicTest", ""},
		{"%RETRY%group_1-a|b", ""},
		{string(long[:127]), ""},
		{"", "The specified topic is blank."},
		{"  ", "The specified topic is blank."},
		{"a b", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"a.b", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"中文", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{string(long), "The specified topic is longer than topic max length."},
	}
	for _, tt := range tests {
		err := ValidateTopic(tt.topic)
		if tt.remark == "" {
			require.NoError(t, err, tt.topic)
			continue
		}
		require.ErrorIs(t, err, ErrInvalidTopic)
		require.Contains(t, err.Error(), tt.remark)
	}
	require.NoError(t, ValidateGroup("please_rename_unique_group_name"))
	require.ErrorIs(t, ValidateGroup("g g"), ErrInvalidTopic)
	require.EqualError(t, ValidateGroup(" "), "protocol: invalid name: the specified group is blank")
	require.EqualError(t, ValidateGroup("g g"),
		"protocol: invalid name: the specified group contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$")
	require.EqualError(t, ValidateGroup(strings.Repeat("g", 256)),
		"protocol: invalid name: the specified group is longer than group max length 255.")
	require.NoError(t, ValidateGroup(strings.Repeat("g", 255)))
}

// SplitNamesrvAddr: entries trimmed, blank ones dropped, nil for none.
func TestSplitNamesrvAddr(t *testing.T) {
	require.Equal(t, []string{"a:1", "b:2"}, SplitNamesrvAddr(" a:1; ;b:2;"))
	require.Nil(t, SplitNamesrvAddr(" ; "))
}
