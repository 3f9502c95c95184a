package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// Well-known names. Mirrors org.apache.rocketmq.common.MixAll and
// org.apache.rocketmq.common.topic.TopicValidator (remoting-protocol.md §9.1); values pinned by
// TestWellKnownNames.
const (
	// DefaultTopic is the auto-create template topic (AUTO_CREATE_TOPIC_KEY_TOPIC).
	DefaultTopic = "TBW102"
	// RetryGroupTopicPrefix + group is a consumer group's retry topic.
	RetryGroupTopicPrefix = "%RETRY%"
	// DLQGroupTopicPrefix + group is a consumer group's dead-letter topic.
	DLQGroupTopicPrefix = "%DLQ%"
	// MasterID is the broker id of a master.
	MasterID int64 = 0
	// DefaultCluster is the default brokerClusterName.
	DefaultCluster = "DefaultCluster"
	// DefaultRegionID is the default regionId reported as MSG_REGION.
	DefaultRegionID = "DefaultRegion"
	// ReplyTopicPostfix: <cluster>_REPLY_TOPIC receives request/reply answers.
	ReplyTopicPostfix = "REPLY_TOPIC"

	// System topics.
	ScheduleTopic          = "SCHEDULE_TOPIC_XXXX"
	BenchmarkTopic         = "BenchmarkTest"
	TransHalfTopic         = "RMQ_SYS_TRANS_HALF_TOPIC"
	TransOpHalfTopic       = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	TransCheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC"
	TraceTopic             = "RMQ_SYS_TRACE_TOPIC"
	SelfTestTopic          = "SELF_TEST_TOPIC"
	OffsetMovedEvent       = "OFFSET_MOVED_EVENT"
	// SystemTopicPrefix starts every other system topic name.
	SystemTopicPrefix = "rmq_sys_"

	// Well-known groups.
	DefaultConsumerGroup     = "DEFAULT_CONSUMER"
	DefaultProducerGroup     = "DEFAULT_PRODUCER"
	ClientInnerProducerGroup = "CLIENT_INNER_PRODUCER"
	// TransactionSysGroup (CID_SYS_RMQ_TRANS) owns the half/op queue offsets.
	TransactionSysGroup = "CID_RMQ_SYS_TRANS"
	// DLQNumsPerGroup is the queue count of a %DLQ% topic.
	DLQNumsPerGroup = 1

	// MaxTopicLength is TopicValidator.TOPIC_MAX_LENGTH.
	MaxTopicLength = 127
	// MaxGroupLength is the longest group name (Validators.CHARACTER_MAX_LENGTH).
	MaxGroupLength = 255
)

// GetRetryTopic returns "%RETRY%" + group. Java: MixAll#getRetryTopic.
func GetRetryTopic(group string) string { return RetryGroupTopicPrefix + group }

// GetDLQTopic returns "%DLQ%" + group. Java: MixAll#getDLQTopic.
func GetDLQTopic(group string) string { return DLQGroupTopicPrefix + group }

// IsRetryTopic reports a "%RETRY%" topic.
func IsRetryTopic(topic string) bool { return strings.HasPrefix(topic, RetryGroupTopicPrefix) }

// IsDLQTopic reports a "%DLQ%" topic.
func IsDLQTopic(topic string) bool { return strings.HasPrefix(topic, DLQGroupTopicPrefix) }

// GetReplyTopic returns "<cluster>_REPLY_TOPIC". Java: MixAll#getReplyTopic.
func GetReplyTopic(cluster string) string { return cluster + "_" + ReplyTopicPostfix }

// ErrInvalidTopic is the error of ValidateTopic and ValidateGroup; the wrapped text is Java's
// remark, which a broker returns with SYSTEM_ERROR.
var ErrInvalidTopic = errors.New("protocol: invalid name")

// ValidateTopic checks a topic name: not blank, only [%|a-zA-Z0-9_-], at most 127 bytes.
// Java: TopicValidator#validateTopic (same order and remarks).
func ValidateTopic(topic string) error {
	return validateName(topic, MaxTopicLength, "The specified topic is blank.",
		"The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
		"The specified topic is longer than topic max length.")
}

// ValidateGroup checks a group name: not blank, only [%|a-zA-Z0-9_-], at most 255 bytes.
// Java: Validators#checkGroup.
func ValidateGroup(group string) error {
	return validateName(group, MaxGroupLength, "the specified group is blank",
		"the specified group contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
		"the specified group is longer than group max length 255.")
}

// validateName applies the rules topic and group names share, in Java's order, answering
// ErrInvalidTopic with the remark of the first that fails.
func validateName(name string, maxLen int, blank, illegal, tooLong string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%w: %s", ErrInvalidTopic, blank)
	case !validName(name):
		return fmt.Errorf("%w: %s", ErrInvalidTopic, illegal)
	case len(name) > maxLen:
		return fmt.Errorf("%w: %s", ErrInvalidTopic, tooLong)
	}
	return nil
}

// validName matches ^[%|a-zA-Z0-9_-]+$ without a regexp (it runs on every send).
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '%', c == '|', c == '_', c == '-':
		default:
			return false
		}
	}
	return len(s) > 0
}

// NotAllowedSendTopic reports the system topics producers may not send to (the broker answers
// NO_PERMISSION): SCHEDULE_TOPIC_XXXX, the transaction half/op/check-max topics,
// SELF_TEST_TOPIC, OFFSET_MOVED_EVENT.
// Java: TopicValidator#isNotAllowedSendTopic.
func NotAllowedSendTopic(topic string) bool {
	switch topic {
	case ScheduleTopic, TransHalfTopic, TransOpHalfTopic, TransCheckMaxTimeTopic, SelfTestTopic, OffsetMovedEvent:
		return true
	}
	return false
}

// IsSystemTopic reports the built-in system topics and any "rmq_sys_" topic.
// Java: TopicValidator#isSystemTopic.
func IsSystemTopic(topic string) bool {
	switch topic {
	case DefaultTopic, ScheduleTopic, BenchmarkTopic, TransHalfTopic, TransOpHalfTopic,
		TransCheckMaxTimeTopic, TraceTopic, SelfTestTopic, OffsetMovedEvent:
		return true
	}
	return strings.HasPrefix(topic, SystemTopicPrefix)
}

// SplitNamesrvAddr splits a namesrvAddr value ("host:port;host:port") on ';', each entry
// trimmed, blank entries dropped. The broker and the client read their name servers with it.
func SplitNamesrvAddr(addr string) []string { return SplitList(addr, ";") }

// SplitList splits s on sep, each entry trimmed of white space, blank entries dropped (nil when
// none is left): a header or config value that lists names or addresses.
func SplitList(s, sep string) []string {
	var out []string
	for _, v := range strings.Split(s, sep) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
