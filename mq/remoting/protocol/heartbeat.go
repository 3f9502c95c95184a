package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// ConsumeType says who drives a consumer. Mirrors heartbeat.ConsumeType (JSON: enum name).
type ConsumeType string

const (
	// ConsumeActively is a pull (lite pull) consumer.
	ConsumeActively ConsumeType = "CONSUME_ACTIVELY"
	// ConsumePassively is a push consumer.
	ConsumePassively ConsumeType = "CONSUME_PASSIVELY"
)

// MessageModel is clustering (a group shares the queues) or broadcasting.
// Mirrors heartbeat.MessageModel.
type MessageModel string

const (
	Clustering   MessageModel = "CLUSTERING"
	Broadcasting MessageModel = "BROADCASTING"
)

// ConsumeFromWhere is where a group without a stored offset starts.
// Mirrors org.apache.rocketmq.common.consumer.ConsumeFromWhere.
type ConsumeFromWhere string

const (
	ConsumeFromLastOffset  ConsumeFromWhere = "CONSUME_FROM_LAST_OFFSET"
	ConsumeFromFirstOffset ConsumeFromWhere = "CONSUME_FROM_FIRST_OFFSET"
	ConsumeFromTimestamp   ConsumeFromWhere = "CONSUME_FROM_TIMESTAMP"
)

// Subscription expression constants. Mirrors SubscriptionData.SUB_ALL and ExpressionType.
const (
	SubAll   = "*"
	TagType  = "TAG"
	SQL92    = "SQL92"
	tagSplit = "||"
)

// ErrSubscriptionParse: a tag expression without a single tag (Java FilterAPI throws; the
// broker answers SUBSCRIPTION_PARSE_FAILED).
var ErrSubscriptionParse = errors.New("protocol: subscription parse failed")

// SubscriptionData is one topic subscription of a consumer group.
// Mirrors org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData (remoting-protocol.md §7.1).
type SubscriptionData struct {
	ClassFilterMode bool   `json:"classFilterMode"`
	Topic           string `json:"topic"`
	// SubString is "*" or the raw expression ("TagA || TagB").
	SubString string   `json:"subString"`
	TagsSet   []string `json:"tagsSet"`
	// CodeSet holds the tag hash codes. client-go sends them as JSON strings computed over
	// UTF-8 (wrong for non-ASCII tags); decoding accepts strings and numbers, and brokers
	// should call RebuildCodeSet (pitfall 3).
	CodeSet []int32 `json:"codeSet"`
	// SubVersion orders subscriptions (Java: ms; client-go: ns). The broker keeps the newest.
	SubVersion int64 `json:"subVersion"`
	// ExpressionType is "TAG", "SQL92" or "" (= TAG).
	ExpressionType string `json:"expressionType"`
}

// BuildSubscriptionData parses a tag expression: "" or "*" subscribes to everything
// (SubString "*", no tags); otherwise the expression is split on "||", each part trimmed, and
// every non-empty part becomes a tag with its Java hash code (primitive.TagsString2TagsCode).
// An expression with no tag is ErrSubscriptionParse. ExpressionType is "TAG"; SubVersion is
// left 0 for the caller.
// Java: FilterAPI#buildSubscriptionData.
func BuildSubscriptionData(topic, subString string) (*SubscriptionData, error) {
	sd := &SubscriptionData{Topic: topic, SubString: subString, ExpressionType: TagType}
	if subString == "" || subString == SubAll {
		sd.SubString = SubAll
		return sd, nil
	}
	for _, part := range strings.Split(subString, tagSplit) {
		tag := strings.TrimSpace(part)
		if tag == "" || containsString(sd.TagsSet, tag) {
			continue
		}
		sd.TagsSet = append(sd.TagsSet, tag)
		sd.CodeSet = append(sd.CodeSet, int32(primitive.TagsString2TagsCode(tag)))
	}
	if len(sd.TagsSet) == 0 {
		return nil, fmt.Errorf("%w: %q has no tag", ErrSubscriptionParse, subString)
	}
	return sd, nil
}

// RebuildCodeSet recomputes CodeSet from TagsSet with Java's hash, replacing what a client
// sent: client-go hashes UTF-8 bytes, which differs from Java for non-ASCII tags.
func (s *SubscriptionData) RebuildCodeSet() {
	s.CodeSet = s.CodeSet[:0]
	for _, tag := range s.TagsSet {
		s.CodeSet = append(s.CodeSet, int32(primitive.TagsString2TagsCode(tag)))
	}
}

// IsSubAll reports a "*" subscription.
func (s *SubscriptionData) IsSubAll() bool { return s.SubString == SubAll }

// MatchesTagsCode reports whether a ConsumeQueue tagsCode passes this TAG subscription:
// "*" and class-filter mode match everything; else the low 32 bits must be in CodeSet.
// Java: ExpressionMessageFilter#isMatchedByConsumeQueue (TAG branch).
func (s *SubscriptionData) MatchesTagsCode(tagsCode int64) bool {
	if s.ClassFilterMode || s.IsSubAll() {
		return true
	}
	code := int32(tagsCode)
	for _, c := range s.CodeSet {
		if c == code {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// UnmarshalJSON accepts client-go's form: codeSet entries as strings or numbers, subVersion
// as a number or a numeric string, null lists.
func (s *SubscriptionData) UnmarshalJSON(data []byte) error {
	// plain is SubscriptionData without this method; the two lenient fields of raw shadow its
	// codeSet and subVersion (encoding/json takes the shallower field of a name).
	// A failed decode leaves s as it was.
	type plain SubscriptionData
	var sd SubscriptionData
	raw := struct {
		*plain
		CodeSet    []flexInt64 `json:"codeSet"`
		SubVersion flexInt64   `json:"subVersion"`
	}{plain: (*plain)(&sd)}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	sd.SubVersion = int64(raw.SubVersion)
	if len(raw.CodeSet) > 0 {
		sd.CodeSet = make([]int32, len(raw.CodeSet))
		for i, c := range raw.CodeSet {
			sd.CodeSet[i] = int32(c)
		}
	}
	*s = sd
	return nil
}

// flexInt64 decodes a JSON number or a string holding one (fastjson's leniency).
type flexInt64 int64

func (f *flexInt64) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		data = []byte(strings.TrimSpace(s))
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("not an integer: %s", data)
	}
	*f = flexInt64(n)
	return nil
}

// ProducerData names a producer group of a client.
// Mirrors heartbeat.ProducerData.
type ProducerData struct {
	GroupName string `json:"groupName"`
}

// ConsumerData is a consumer group of a client with its subscriptions.
// Mirrors heartbeat.ConsumerData.
type ConsumerData struct {
	GroupName           string             `json:"groupName"`
	ConsumeType         ConsumeType        `json:"consumeType"`
	MessageModel        MessageModel       `json:"messageModel"`
	ConsumeFromWhere    ConsumeFromWhere   `json:"consumeFromWhere"`
	SubscriptionDataSet []SubscriptionData `json:"subscriptionDataSet"`
	UnitMode            bool               `json:"unitMode"`
}

// HeartbeatData is the body of HEART_BEAT (34).
// Mirrors org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData (remoting-protocol.md §7.1).
type HeartbeatData struct {
	// ClientID is "<ip>@<instanceName>"; GET_CONSUMER_LIST_BY_GROUP must return it verbatim.
	ClientID        string         `json:"clientID"`
	ProducerDataSet []ProducerData `json:"producerDataSet"`
	ConsumerDataSet []ConsumerData `json:"consumerDataSet"`
}

// DecodeHeartbeatData parses a heartbeat body (client-go's or Java's JSON). Errors wrap
// ErrBadBody.
func DecodeHeartbeatData(body []byte) (*HeartbeatData, error) {
	var h HeartbeatData
	if err := unmarshalBody(body, "heartbeat", &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// Encode returns the JSON body (codeSet as numbers, which Java accepts).
func (h *HeartbeatData) Encode() ([]byte, error) { return json.Marshal(h) }
