package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// Field is one named value of a described message, as mqadmin prints it ("Queue ID:", "3").
type Field struct{ Name, Value string }

// MessageFields describes m field by field in the order and wording of
// QueryMsgByIdSubCommand#printMsg: ids, topic, tags, keys, queue, offsets, times, hosts, flag,
// properties and the body as text. mqadmin prints them ("%-20s %s"); the console renders them
// as a table.
func MessageFields(m *primitive.MessageExt) []Field {
	v := func(x any) string { return fmt.Sprint(x) }
	return []Field{
		{"OffsetID:", m.OffsetMsgID},
		{"MsgID:", m.MsgID},
		{"Topic:", m.Topic},
		{"Tags:", "[" + m.Tags() + "]"},
		{"Keys:", "[" + m.Keys() + "]"},
		{"Queue ID:", v(m.QueueID)},
		{"Queue Offset:", v(m.QueueOffset)},
		{"CommitLog Offset:", v(m.CommitLogOffset)},
		{"Reconsume Times:", v(m.ReconsumeTimes)},
		{"Born Timestamp:", HumanTime(m.BornTimestamp)},
		{"Store Timestamp:", HumanTime(m.StoreTimestamp)},
		{"Born Host:", m.BornHost},
		{"Store Host:", m.StoreHost},
		{"System Flag:", v(m.SysFlag)},
		{"Properties:", PropertiesString(m.Properties)},
		{"Message Body:", string(m.Body)},
	}
}

// HumanTime formats ms (milliseconds since the epoch) as RocketMQ's
// UtilAll#timeMillisToHumanString2 does, "yyyy-MM-dd HH:mm:ss,SSS" in local time; 0 is "0".
func HumanTime(ms int64) string {
	if ms <= 0 {
		return "0"
	}
	return time.UnixMilli(ms).Format("2006-01-02 15:04:05,000")
}

// PropertiesString is a Java Map#toString of the properties, keys sorted: {A=1, B=2}.
func PropertiesString(p map[string]string) string {
	parts := make([]string, 0, len(p))
	for _, k := range sortedKeys(p) {
		parts = append(parts, k+"="+p[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// FirstRate reads the first number of a runtime-stats rate such as putTps "12.50 11.00 10.00"
// (the rate over the last 10 s); 0 when there is none.
func FirstRate(s string) float64 {
	f, _ := strconv.ParseFloat(strings.Fields(s + " 0")[0], 64)
	return f
}

// VersionDesc is MQVersion#getVersionDesc for the version this repository's servers and clients
// send (remoting.DefaultVersion, 409: V4_9_8); another version prints as its number.
func VersionDesc(v int32) string {
	if v == remoting.DefaultVersion {
		return "V4_9_8"
	}
	return strconv.Itoa(int(v))
}

// ConsumeTypeDesc is ConsumeType#getTypeCN's English: PUSH or PULL.
func ConsumeTypeDesc(t protocol.ConsumeType) string {
	switch t {
	case protocol.ConsumePassively:
		return "PUSH"
	case protocol.ConsumeActively:
		return "PULL"
	}
	return string(t)
}
