package broker

import (
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// validateTopic checks a topic name: not blank, only [%|a-zA-Z0-9_-], at most 127 bytes. On
// failure it returns SYSTEM_ERROR and Java's remark. Java: TopicValidator#validateTopic.
func validateTopic(topic string) (code int32, remark string, ok bool) {
	if topic == "" {
		return protocol.SystemError, "The specified topic is blank.", false
	}
	for i := 0; i < len(topic); i++ {
		c := topic[i]
		if !(c == '%' || c == '|' || c == '_' || c == '-' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return protocol.SystemError, fmt.Sprintf("The specified topic[%s] contains illegal characters, allowing only ^[%%|a-zA-Z0-9_-]+$", topic), false
		}
	}
	if len(topic) > protocol.MaxTopicLength {
		return protocol.SystemError, "The specified topic is longer than topic max length.", false
	}
	return 0, "", true
}

// Topic sysFlag bits. Java: TopicSysFlag.FLAG_UNIT, FLAG_UNIT_SUB.
const (
	topicSysFlagUnit    int32 = 0x1
	topicSysFlagUnitSub int32 = 0x2
)

// buildTopicSysFlag returns the topic sysFlag of a unit topic / a topic with unit subscribers.
// Java: TopicSysFlag#buildSysFlag.
func buildTopicSysFlag(unit, hasUnitSub bool) int32 {
	var f int32
	if unit {
		f |= topicSysFlagUnit
	}
	if hasUnitSub {
		f |= topicSysFlagUnitSub
	}
	return f
}
