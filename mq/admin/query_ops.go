package admin

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ErrMessageNotFound: no broker holds a message with the id or key asked.
var ErrMessageNotFound = errors.New("admin: message not found")

// QueryMessage asks every broker of topic's route for the messages whose key (a word of KEYS)
// is key, stored within [begin, end] (ms) (QUERY_MESSAGE, 12), at most maxNum from each
// broker, and returns those of topic that really carry key, sorted by store time and cut to
// maxNum. With uniqKey the key is a UNIQ_KEY (msgId) and the brokers cap the answer at their
// defaultQueryMaxNum. A broker answering QUERY_NOT_FOUND adds nothing; no match at all is
// ErrMessageNotFound. Java: MQAdminImpl#queryMessage.
func (a *DefaultMQAdminExt) QueryMessage(ctx context.Context, topic, key string, maxNum int, begin, end int64, uniqKey bool) ([]*primitive.MessageExt, error) {
	brokers, err := a.brokersOf(ctx, topic)
	if err != nil {
		return nil, err
	}
	h := protocol.QueryMessageRequestHeader{Topic: topic, Key: key, MaxNum: int32(maxNum), BeginTimestamp: begin, EndTimestamp: end}
	var out []*primitive.MessageExt
	for _, addr := range sortedValues(brokers) {
		ext := protocol.EncodeHeader(&h)
		if uniqKey {
			ext["_UNIQUE_KEY_QUERY"] = "true"
		}
		resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.QueryMessage, ext, nil))
		var re *remoting.RemoteError
		if errors.As(err, &re) && re.Code == protocol.QueryNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		msgs, err := primitive.DecodeMessages(resp.Body)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if HasKey(m, topic, key) {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		return nil, ErrMessageNotFound
	}
	slices.SortStableFunc(out, func(x, y *primitive.MessageExt) int { return int(x.StoreTimestamp - y.StoreTimestamp) })
	if len(out) > maxNum {
		out = out[:maxNum]
	}
	return out, nil
}

// HasKey reports whether m is of topic and has key as its UNIQ_KEY or as a word of its KEYS
// (what the index looked up; another topic#key may share its hash).
func HasKey(m *primitive.MessageExt, topic, key string) bool {
	if m.Topic != topic || key == "" {
		return false
	}
	if m.Properties[primitive.PropertyUniqClientMessageIDKeyIdx] == key {
		return true
	}
	return slices.Contains(strings.Split(m.Properties[primitive.PropertyKeys], primitive.KeySeparator), key)
}

// ViewMessage returns the message an offsetMsgId names: it decodes the store host and
// CommitLog offset from the id and asks that broker (VIEW_MESSAGE_BY_ID, 33). An id that is
// no offsetMsgId is an error from primitive.DecodeOffsetMsgID. Java: MQAdminImpl#viewMessage.
func (a *DefaultMQAdminExt) ViewMessage(ctx context.Context, offsetMsgID string) (*primitive.MessageExt, error) {
	addr, offset, err := primitive.DecodeOffsetMsgID(offsetMsgID)
	if err != nil {
		return nil, err
	}
	h := protocol.ViewMessageRequestHeader{Offset: offset}
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.ViewMessageByID, protocol.EncodeHeader(&h), nil))
	if err != nil {
		return nil, err
	}
	m, _, err := primitive.DecodeMessage(resp.Body)
	return m, err
}

// ViewMessageByID finds a message by either of its ids: as an offsetMsgId first, then, when
// topic is given, as a UNIQ_KEY through the index (QueryMessage with uniqKey). Without a topic,
// an id that does not decode as an offsetMsgId is a *NotOffsetMsgIDError.
// Java: DefaultMQAdminExt#viewMessage(topic, msgId).
func (a *DefaultMQAdminExt) ViewMessageByID(ctx context.Context, topic, msgID string) (*primitive.MessageExt, error) {
	m, err := a.ViewMessage(ctx, msgID)
	if err != nil && topic == "" && errors.Is(err, primitive.ErrBadMsgID) {
		return nil, &NotOffsetMsgIDError{ID: msgID, Cause: err}
	}
	if err == nil || topic == "" {
		return m, err
	}
	msgs, qerr := a.QueryMessage(ctx, topic, msgID, 32, 0, maxTimestamp, true)
	if qerr != nil {
		return nil, errors.Join(err, qerr)
	}
	return msgs[0], nil
}

// NotOffsetMsgIDError: an id looked up without a topic is no offsetMsgId (the broker's id, which
// names a store host and a CommitLog offset), so it can only be a producer's msgId (UNIQ_KEY),
// which is found through the index of one topic. A 32-character UNIQ_KEY has the length of an
// offsetMsgId; decoded as one, its bytes 4–7 (pid and class-loader hash) are a port out of range.
// Java: none (MQAdminImpl#viewMessage throws on the bad host); RocketMQ's own lookup of a
// UNIQ_KEY, queryMsgByUniqueKey, takes the topic.
type NotOffsetMsgIDError struct {
	ID    string
	Cause error // from primitive.DecodeOffsetMsgID (primitive.ErrBadMsgID)
}

func (e *NotOffsetMsgIDError) Error() string {
	return "msgId " + e.ID + " is not an offset msgId (the broker's id: store host and CommitLog offset); " +
		"a producer msgId (UNIQ_KEY) needs the topic to be looked up, as RocketMQ's queryMsgByUniqueKey does"
}

func (e *NotOffsetMsgIDError) Unwrap() error { return e.Cause }

// maxTimestamp is Long.MAX_VALUE, the end of an open time range.
const maxTimestamp = int64(^uint64(0) >> 1)

// PullMessages reads up to maxNums messages of a queue from queueOffset (ConsumeQueue units)
// with a PULL_MESSAGE (11) that commits nothing and does not wait, as group; subExpression
// filters by tag ("*" or "" for all). It returns the messages and the next offset.
// Java: DefaultMQPullConsumer#pull, as mqadmin's printMsg and consumeMessage use it.
func (a *DefaultMQAdminExt) PullMessages(ctx context.Context, addr, group string, mq primitive.MessageQueue, subExpression string,
	queueOffset int64, maxNums int32) ([]*primitive.MessageExt, int64, error) {
	sub, err := protocol.BuildSubscriptionData(mq.Topic, cmp.Or(subExpression, protocol.SubAll))
	if err != nil {
		return nil, queueOffset, err
	}
	h := protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: mq.Topic, QueueID: mq.QueueID,
		QueueOffset: queueOffset, MaxMsgNums: maxNums, SysFlag: protocol.BuildPullSysFlag(false, false, true, false),
		Subscription: sub.SubString, ExpressionType: protocol.TagType, BrokerName: mq.BrokerName}
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	res, err := a.api.PullMessageSync(ctx, addr, &h)
	if err != nil {
		return nil, queueOffset, err
	}
	if len(res.MessageBinary) == 0 {
		return nil, res.NextBeginOffset, nil
	}
	msgs, err := primitive.DecodeMessages(res.MessageBinary)
	if err != nil {
		return nil, queueOffset, err
	}
	var out []*primitive.MessageExt
	for _, m := range msgs {
		if sub.IsSubAll() || slices.Contains(sub.TagsSet, m.Properties[primitive.PropertyTags]) {
			out = append(out, m)
		}
	}
	return out, res.NextBeginOffset, nil
}
