package broker

import (
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// asyncConsumerSendMsgBack handles CONSUMER_SEND_MSG_BACK (36): a consumer could not consume
// the message stored at CommitLog offset h.Offset (bytes) and hands it back for a later retry
// (remoting-protocol.md §4.11, §9.3). In order:
//
//  1. the group's subscription config must exist (else SUBSCRIPTION_GROUP_NOT_EXIST 26; it is
//     auto-created when autoCreateSubscriptionGroup is on) and the broker be writable (else
//     NO_PERMISSION 16); retryQueueNums ≤ 0 means the group wants no retries: SUCCESS, dropped;
//  2. %RETRY%<group> is created on demand (retryQueueNums queues, perm 6) and must be writable;
//  3. the message is looked up by its CommitLog offset (not found → SYSTEM_ERROR 1);
//  4. it goes to the dead-letter topic %DLQ%<group> (1 queue, perm 6, created on demand, no
//     delay: DELAY=0) when its stored reconsumeTimes ≥ maxReconsumeTimes (the header's from
//     request version 3.4.9 on, else the group's retryMaxTimes, 16) or delayLevel < 0; else to
//     %RETRY%<group> queue rand % retryQueueNums with DELAY = delayLevel, or 3 + reconsumeTimes
//     when the consumer sent 0 — the store then parks it in SCHEDULE_TOPIC_XXXX until the
//     ScheduleMessageService delivers it to %RETRY%<group>;
//  5. the new message keeps body, flag, sysFlag, born timestamp and host, store host and
//     properties, with RETRY_TOPIC = the original topic (if not already set), WAIT=false,
//     ORIGIN_MESSAGE_ID kept or set to the looked-up message's offsetMsgId, and
//     reconsumeTimes + 1;
//  6. SUCCESS once the store took it (PUT_OK), else SYSTEM_ERROR with the status name.
//
// Java: SendMessageProcessor#asyncConsumerSendMsgBack (4.9.8).
//
// DLQ perm: 4.9.0 and 4.9.1 created %DLQ% topics write-only (PermName.PERM_WRITE = 2); 4.9.2
// onwards (so the 4.9.8 this project follows) creates them readable and writable (6), so a
// consumer or admin tool can pull dead letters.
func (p *SendMessageProcessor) asyncConsumerSendMsgBack(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	b := p.b
	var h protocol.ConsumerSendMsgBackRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("consumer send msg back", err), nil
	}
	sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(h.Group)
	if sgc == nil {
		return remoting.NewResponse(protocol.SubscriptionGroupNotExist, "subscription group not exist, "+h.Group), nil
	}
	if !protocol.IsWriteable(int32(b.cfg.BrokerPermission)) {
		return remoting.NewResponse(protocol.NoPermission,
			fmt.Sprintf("the broker[%s] sending message is forbidden", b.cfg.BrokerIP1)), nil
	}
	if sgc.RetryQueueNums <= 0 {
		return remoting.NewResponse(protocol.Success, ""), nil
	}

	newTopic := protocol.GetRetryTopic(h.Group)
	queueID := rand.Int32N(sgc.RetryQueueNums)
	var topicSysFlag int32
	if h.UnitMode {
		topicSysFlag = buildTopicSysFlag(false, true)
	}
	tc := b.topicConfigManager.CreateTopicInSendMessageBackMethod(newTopic, sgc.RetryQueueNums,
		protocol.PermWrite|protocol.PermRead, topicSysFlag)
	if tc == nil {
		return remoting.NewResponse(protocol.SystemError, "topic["+newTopic+"] not exist"), nil
	}
	if !protocol.IsWriteable(tc.Perm) {
		return remoting.NewResponse(protocol.NoPermission,
			fmt.Sprintf("the topic[%s] sending message is forbidden", newTopic)), nil
	}
	msgExt, err := b.store.LookMessageByOffset(store.CommitLogOffset(h.Offset))
	if err != nil || msgExt == nil {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("look message by offset failed, %d", h.Offset)), nil
	}

	props := maps.Clone(msgExt.Properties)
	if props == nil {
		props = map[string]string{}
	}
	if _, ok := props[primitive.PropertyRetryTopic]; !ok {
		props[primitive.PropertyRetryTopic] = msgExt.Topic
	}
	props[primitive.PropertyWaitStoreMsgOK] = "false"

	delayLevel := h.DelayLevel
	maxReconsumeTimes := sgc.RetryMaxTimes
	if req.Version >= versionV349 && h.HasMaxReconsumeTimes {
		maxReconsumeTimes = h.MaxReconsumeTimes
	}
	if msgExt.ReconsumeTimes >= maxReconsumeTimes || delayLevel < 0 {
		newTopic = protocol.GetDLQTopic(h.Group)
		queueID = rand.Int32N(protocol.DLQNumsPerGroup)
		tc = b.topicConfigManager.CreateTopicInSendMessageBackMethod(newTopic, protocol.DLQNumsPerGroup,
			protocol.PermWrite|protocol.PermRead, 0)
		if tc == nil {
			return remoting.NewResponse(protocol.SystemError, "topic["+newTopic+"] not exist"), nil
		}
		delayLevel = 0
	} else {
		if delayLevel == 0 {
			delayLevel = 3 + msgExt.ReconsumeTimes
		}
		// A message that was delayed before still carries its old REAL_TOPIC / REAL_QID; the
		// store's delay redirect replaces them with the new destination.
	}
	props[primitive.PropertyDelayTimeLevel] = strconv.Itoa(int(delayLevel))
	if strings.TrimSpace(props[primitive.PropertyOriginMessageID]) == "" {
		props[primitive.PropertyOriginMessageID] = msgExt.OffsetMsgID
	}

	inner := &primitive.MessageExtBrokerInner{}
	inner.Topic = newTopic
	inner.Body = msgExt.Body
	inner.Flag = msgExt.Flag
	inner.Properties = props
	inner.PropertiesString = primitive.MarshalProperties(props)
	inner.TagsCode = primitive.TagsString2TagsCode(props[primitive.PropertyTags])
	inner.QueueID = queueID
	inner.SysFlag = msgExt.SysFlag
	inner.BornTimestamp = msgExt.BornTimestamp
	inner.BornHost = msgExt.BornHost
	inner.StoreHost = msgExt.StoreHost
	inner.ReconsumeTimes = msgExt.ReconsumeTimes + 1

	if tr := b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#asyncConsumerSendMsgBack", slog.String("group", h.Group),
			slog.Int64("offset", h.Offset), slog.String("originTopic", props[primitive.PropertyRetryTopic]),
			slog.String("topic", inner.Topic), slog.Int("queueId", int(inner.QueueID)),
			slog.Int("delayLevel", int(delayLevel)), slog.Int("reconsumeTimes", int(inner.ReconsumeTimes)))
	}
	return p.awaitResult(ch, req, b.store.AsyncPutMessage(inner), func(r store.PutMessageResult) *remoting.RemotingCommand {
		if r.PutMessageStatus == store.PutOK {
			return remoting.NewResponse(protocol.Success, "")
		}
		return remoting.NewResponse(protocol.SystemError, r.PutMessageStatus.String())
	})
}
