package broker

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// versionV349 is MQVersion.Version.V3_4_9's ordinal: requests from this version on may carry
// maxReconsumeTimes (remoting-protocol.md §1.5).
const versionV349 = 121

// SendMessageProcessor stores sent messages: SEND_MESSAGE (10, V1 header), SEND_MESSAGE_V2
// (310, single-letter header), SEND_BATCH_MESSAGE (320), and messages consumers send back for
// a retry: CONSUMER_SEND_MSG_BACK (36, send_message_back.go).
// Mirrors org.apache.rocketmq.broker.processor.SendMessageProcessor (with the checks of its
// parent AbstractSendMessageProcessor).
//
// The store answers a put on a channel; when it is not ready at once, a goroutine (counted in
// wg) waits and writes the response later with the request's opaque — the role Java's
// putMessageFutureExecutor plays — so the send worker is free for the next request.
type SendMessageProcessor struct {
	b  *BrokerController
	wg sync.WaitGroup
}

// NewSendMessageProcessor returns the processor of b.
func NewSendMessageProcessor(b *BrokerController) *SendMessageProcessor {
	return &SendMessageProcessor{b: b}
}

// RejectRequest refuses sends at the door (SYSTEM_BUSY "[REJECTREQUEST]...") while the
// store's page cache is busy or, with transientStorePoolEnable, no write buffer is free;
// BrokerFastFailure answers those already queued.
// Java: SendMessageProcessor#rejectRequest (isOSPageCacheBusy || isTransientStorePoolDeficient).
func (p *SendMessageProcessor) RejectRequest() bool {
	ms := p.b.messageStore
	return ms != nil && (ms.IsOSPageCacheBusy() || ms.IsTransientStorePoolDeficient())
}

// ProcessRequest routes CONSUMER_SEND_MSG_BACK (36) to asyncConsumerSendMsgBack; for the send
// codes it decodes the header (V2 for codes 310 and 320, V1 otherwise) and sends to the
// batch or single path by the header's batch flag. A header that cannot be decoded is answered
// SYSTEM_ERROR naming the field. Java: SendMessageProcessor#asyncProcessRequest.
func (p *SendMessageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	if req.Code == protocol.ConsumerSendMsgBack {
		return p.asyncConsumerSendMsgBack(ch, req)
	}
	var h protocol.SendMessageRequestHeader
	var err error
	switch req.Code {
	case protocol.SendMessageV2, protocol.SendBatchMessage:
		h, err = protocol.DecodeSendMessageRequestHeaderV2(req.ExtFields)
	default:
		err = h.Decode(req.ExtFields)
	}
	if tr := p.b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#processRequest", slog.Int("code", int(req.Code)),
			slog.String("topic", h.Topic), slog.Int("queueId", int(h.QueueID)), slog.Bool("batch", h.Batch))
	}
	if err != nil {
		return remoting.NewResponse(remoting.SystemError, fmt.Sprintf("bad send message request header: %v", err)), nil
	}
	if h.Batch {
		return p.asyncSendBatchMessage(ch, req, &h)
	}
	return p.asyncSendMessage(ch, req, &h)
}

// preSend builds the response shell (MSG_REGION, TRACE_ON) and runs msgCheck; a code other
// than -1 is a final answer. Java: SendMessageProcessor#preSend.
func (p *SendMessageProcessor) preSend(ch *remoting.Channel, h *protocol.SendMessageRequestHeader) *remoting.RemotingCommand {
	resp := remoting.NewResponse(-1, "")
	resp.AddExtField(primitive.PropertyMsgRegion, p.b.cfg.RegionID)
	resp.AddExtField(primitive.PropertyTraceSwitch, fmt.Sprint(p.b.cfg.TraceOn))
	p.msgCheck(ch, h, resp)
	return resp
}

// msgCheck checks the target: broker writable for order topics (16), topic name valid (1),
// topic not reserved (16), topic exists or can be auto-created from defaultTopic (else 17),
// queueId < max(read, write) queue nums (else 1). It sets resp's code when a check fails.
// Java: AbstractSendMessageProcessor#msgCheck.
func (p *SendMessageProcessor) msgCheck(ch *remoting.Channel, h *protocol.SendMessageRequestHeader, resp *remoting.RemotingCommand) {
	b := p.b
	if !protocol.IsWriteable(int32(b.cfg.BrokerPermission)) && b.topicConfigManager.IsOrderTopic(h.Topic) {
		setResp(resp, protocol.NoPermission, fmt.Sprintf("the broker[%s] sending message is forbidden", b.cfg.BrokerIP1))
		return
	}
	if code, remark, ok := validateTopic(h.Topic); !ok {
		setResp(resp, code, remark)
		return
	}
	if protocol.NotAllowedSendTopic(h.Topic) {
		setResp(resp, protocol.NoPermission, fmt.Sprintf("Sending message to topic[%s] is forbidden.", h.Topic))
		return
	}
	tc := b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil {
		var topicSysFlag int32
		if h.UnitMode {
			if protocol.IsRetryTopic(h.Topic) {
				topicSysFlag = buildTopicSysFlag(false, true)
			} else {
				topicSysFlag = buildTopicSysFlag(true, false)
			}
		}
		b.log.Warn("the topic does not exist", "topic", h.Topic, "producer", ch.RemoteAddr())
		tc = b.topicConfigManager.CreateTopicInSendMessageMethod(h.Topic, h.DefaultTopic, ch.RemoteAddr(),
			h.DefaultTopicQueueNums, topicSysFlag)
		if tc == nil && protocol.IsRetryTopic(h.Topic) {
			tc = b.topicConfigManager.CreateTopicInSendMessageBackMethod(h.Topic, 1,
				protocol.PermWrite|protocol.PermRead, topicSysFlag)
		}
		if tc == nil {
			setResp(resp, protocol.TopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please!", h.Topic))
			return
		}
	}
	if idValid := max(tc.WriteQueueNums, tc.ReadQueueNums); h.QueueID >= idValid {
		setResp(resp, protocol.SystemError, fmt.Sprintf("request queueId[%d] is illegal, topic %s has %d queues, producer: %s",
			h.QueueID, h.Topic, idValid, ch.RemoteAddr()))
	}
}

// asyncSendMessage builds the MessageExtBrokerInner and puts it into the store.
// Java: SendMessageProcessor#asyncSendMessage.
func (p *SendMessageProcessor) asyncSendMessage(ch *remoting.Channel, req *remoting.RemotingCommand,
	h *protocol.SendMessageRequestHeader) (*remoting.RemotingCommand, error) {
	b := p.b
	resp := p.preSend(ch, h)
	if resp.Code != -1 {
		return resp, nil
	}
	tc := b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil { // deleted between msgCheck and here
		setResp(resp, protocol.TopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please!", h.Topic))
		return resp, nil
	}
	queueID := h.QueueID
	if queueID < 0 {
		if tc.WriteQueueNums <= 0 {
			setResp(resp, protocol.SystemError, fmt.Sprintf("topic[%s] has no write queue", h.Topic))
			return resp, nil
		}
		queueID = rand.Int32N(tc.WriteQueueNums)
	}
	msg := &primitive.MessageExtBrokerInner{}
	msg.Topic = h.Topic
	msg.QueueID = queueID
	if !p.handleRetryAndDLQ(h, resp, req, msg, tc) {
		return resp, nil
	}
	msg.Body = req.Body
	msg.Flag = h.Flag
	props := primitive.UnmarshalProperties(h.Properties)
	if props == nil {
		props = map[string]string{}
	}
	msg.Properties = props
	msg.BornTimestamp = h.BornTimestamp
	msg.ReconsumeTimes = h.ReconsumeTimes
	if err := p.setHosts(ch, msg); err != nil {
		setResp(resp, protocol.SystemError, err.Error())
		return resp, nil
	}
	props[primitive.PropertyCluster] = b.cfg.BrokerClusterName
	// WAIT is not stored (saves 9 bytes a message) but stays in the map, where the store
	// reads it to decide whether to wait for the flush. Java 4.9.8 does the same.
	if wait, ok := props[primitive.PropertyWaitStoreMsgOK]; ok {
		delete(props, primitive.PropertyWaitStoreMsgOK)
		msg.PropertiesString = primitive.MarshalProperties(props)
		props[primitive.PropertyWaitStoreMsgOK] = wait
	} else {
		msg.PropertiesString = primitive.MarshalProperties(props)
	}
	msg.TagsCode = primitive.TagsString2TagsCode(props[primitive.PropertyTags])

	if tran := props[primitive.PropertyTransactionPrepared]; tran == "true" {
		// Transactions (half messages) are a later issue; refuse rather than store a half
		// message as a normal one.
		setResp(resp, protocol.NoPermission, fmt.Sprintf("the broker[%s] sending transaction message is forbidden (transactions are not supported yet)", b.cfg.BrokerIP1))
		return resp, nil
	}
	if tr := b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#asyncSendMessage", slog.String("topic", msg.Topic),
			slog.Int("queueId", int(msg.QueueID)), slog.Int("bodyLen", len(msg.Body)))
	}
	return p.awaitPut(ch, req, resp, b.store.AsyncPutMessage(msg), queueID)
}

// asyncSendBatchMessage stores a batch: the body is the client's batch encoding
// (remoting-protocol.md §6.2); topic, queue, sysFlag, born/store host and the envelope's
// properties (plus CLUSTER) apply to every member. The response's msgId lists the members'
// offsetMsgIds joined by ','; queueOffset is the first member's.
// Java: SendMessageProcessor#asyncSendBatchMessage.
func (p *SendMessageProcessor) asyncSendBatchMessage(ch *remoting.Channel, req *remoting.RemotingCommand,
	h *protocol.SendMessageRequestHeader) (*remoting.RemotingCommand, error) {
	b := p.b
	resp := p.preSend(ch, h)
	if resp.Code != -1 {
		return resp, nil
	}
	tc := b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil {
		setResp(resp, protocol.TopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please!", h.Topic))
		return resp, nil
	}
	queueID := h.QueueID
	if queueID < 0 {
		if tc.WriteQueueNums <= 0 {
			setResp(resp, protocol.SystemError, fmt.Sprintf("topic[%s] has no write queue", h.Topic))
			return resp, nil
		}
		queueID = rand.Int32N(tc.WriteQueueNums)
	}
	if len(h.Topic) > protocol.MaxTopicLength {
		setResp(resp, protocol.MessageIllegal, fmt.Sprintf("message topic length too long %d", len(h.Topic)))
		return resp, nil
	}
	batch := &primitive.MessageExtBrokerInner{}
	batch.Topic = h.Topic
	batch.QueueID = queueID
	sysFlag := h.SysFlag
	if tc.TopicFilterType == protocol.MultiTag {
		sysFlag |= primitive.MultiTagsFlag
	}
	batch.SysFlag = sysFlag
	batch.Flag = h.Flag
	props := primitive.UnmarshalProperties(h.Properties)
	if props == nil {
		props = map[string]string{}
	}
	props[primitive.PropertyCluster] = b.cfg.BrokerClusterName
	batch.Properties = props
	batch.PropertiesString = primitive.MarshalProperties(props)
	batch.Body = req.Body
	batch.BornTimestamp = h.BornTimestamp
	batch.ReconsumeTimes = h.ReconsumeTimes
	if err := p.setHosts(ch, batch); err != nil {
		setResp(resp, protocol.SystemError, err.Error())
		return resp, nil
	}
	if tr := b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#asyncSendBatchMessage", slog.String("topic", batch.Topic),
			slog.Int("queueId", int(batch.QueueID)), slog.Int("bodyLen", len(batch.Body)))
	}
	return p.awaitPut(ch, req, resp, b.store.AsyncPutMessages(batch), queueID)
}

// handleRetryAndDLQ sends a message for %RETRY%<group> whose reconsumeTimes reached the
// group's limit (or the header's maxReconsumeTimes, from request version 3.4.9 on) to
// %DLQ%<group> (1 queue, perm 6), and ORs MULTI_TAGS into sysFlag for MULTI_TAG topics. It
// returns false when resp holds a final answer. Java: SendMessageProcessor#handleRetryAndDLQ.
//
// This is the path of client-go's fallback when CONSUMER_SEND_MSG_BACK fails
// (remoting-protocol.md §9.4): it sends the message itself with DELAY = 3 + reconsumeTimes, which
// the store parks in SCHEDULE_TOPIC_XXXX like any delayed message. Java also sets DELAY=0 on
// the message here, but then replaces all properties with the request's, so a DELAY sent by
// the client survives (a message bound for the DLQ then reaches it after its delay); we keep
// that effective behaviour.
func (p *SendMessageProcessor) handleRetryAndDLQ(h *protocol.SendMessageRequestHeader, resp *remoting.RemotingCommand,
	req *remoting.RemotingCommand, msg *primitive.MessageExtBrokerInner, tc *protocol.TopicConfig) bool {
	b := p.b
	if protocol.IsRetryTopic(h.Topic) {
		group := h.Topic[len(protocol.RetryGroupTopicPrefix):]
		sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(group)
		if sgc == nil {
			setResp(resp, protocol.SubscriptionGroupNotExist, "subscription group not exist, "+group)
			return false
		}
		maxReconsume := sgc.RetryMaxTimes
		if req.Version >= versionV349 && h.HasMaxReconsumeTimes {
			maxReconsume = h.MaxReconsumeTimes
		}
		if h.ReconsumeTimes >= maxReconsume {
			dlq := protocol.GetDLQTopic(group)
			msg.Topic = dlq
			msg.QueueID = rand.Int32N(protocol.DLQNumsPerGroup)
			dtc := b.topicConfigManager.CreateTopicInSendMessageBackMethod(dlq, protocol.DLQNumsPerGroup,
				protocol.PermWrite|protocol.PermRead, 0)
			if dtc == nil {
				setResp(resp, protocol.SystemError, "topic["+dlq+"] not exist")
				return false
			}
		}
	}
	sysFlag := h.SysFlag
	if tc.TopicFilterType == protocol.MultiTag {
		sysFlag |= primitive.MultiTagsFlag
	}
	msg.SysFlag = sysFlag
	return true
}

// setHosts fills born host (the client's address as this connection sees it) and store host
// (brokerIP1 and the bound port), raw and as strings, with the IPv6 sysFlag bits.
func (p *SendMessageProcessor) setHosts(ch *remoting.Channel, msg *primitive.MessageExtBrokerInner) error {
	born, err := primitive.HostBytes(ch.RemoteAddr())
	if err != nil {
		return fmt.Errorf("born host %q: %w", ch.RemoteAddr(), err)
	}
	msg.BornHost = ch.RemoteAddr()
	msg.BornHostBytes = born
	if len(born) == 20 {
		msg.SysFlag |= primitive.BornHostV6Flag
	}
	msg.StoreHost = p.b.BrokerAddr()
	msg.StoreHostBytes = p.b.storeHostBytes()
	if len(msg.StoreHostBytes) == 20 {
		msg.SysFlag |= primitive.StoreHostAddressV6Flag
	}
	return nil
}

// awaitPut answers at once when the store's result is ready, else later from a goroutine.
func (p *SendMessageProcessor) awaitPut(ch *remoting.Channel, req, resp *remoting.RemotingCommand,
	result <-chan store.PutMessageResult, queueID int32) (*remoting.RemotingCommand, error) {
	return p.awaitResult(ch, req, result, func(r store.PutMessageResult) *remoting.RemotingCommand {
		return p.handlePutMessageResult(r, resp, queueID)
	})
}

// awaitResult answers with answer(result) at once when the store's result is ready, else
// later from a goroutine (counted in wg) that writes it with the request's opaque.
func (p *SendMessageProcessor) awaitResult(ch *remoting.Channel, req *remoting.RemotingCommand,
	result <-chan store.PutMessageResult, answer func(store.PutMessageResult) *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	select {
	case r := <-result:
		return answer(r), nil
	default:
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		r := <-result
		out := answer(r).ResponseTo(req)
		if err := ch.WriteResponse(out); err != nil {
			p.b.log.Warn("send response failed", "remoteAddr", ch.RemoteAddr(), "err", err)
		}
	}()
	return nil, nil
}

// handlePutMessageResult maps the store status to the response code and, for the four
// statuses where the message was stored, fills msgId (offsetMsgId), queueId and queueOffset.
// Java: SendMessageProcessor#handlePutMessageResult.
func (p *SendMessageProcessor) handlePutMessageResult(r store.PutMessageResult, resp *remoting.RemotingCommand,
	queueID int32) *remoting.RemotingCommand {
	sendOK := false
	switch r.PutMessageStatus {
	case store.PutOK:
		sendOK = true
		setResp(resp, protocol.Success, "")
	case store.FlushDiskTimeout:
		sendOK = true
		setResp(resp, protocol.FlushDiskTimeout, "")
	case store.FlushSlaveTimeout:
		sendOK = true
		setResp(resp, protocol.FlushSlaveTimeout, "")
	case store.SlaveNotAvailable:
		sendOK = true
		setResp(resp, protocol.SlaveNotAvailable, "")
	case store.CreateMappedFileFailed:
		setResp(resp, protocol.SystemError, "create mapped file failed, server is busy or broken.")
	case store.MessageIllegal, store.PropertiesSizeExceeded:
		setResp(resp, protocol.MessageIllegal, fmt.Sprintf("the message is illegal, maybe msg body or properties length not matched. msg body length limit %dB, msg properties length limit 32KB.",
			p.b.storeCfg.MaxMessageSize))
	case store.ServiceNotAvailable:
		setResp(resp, protocol.ServiceNotAvailable, "service not available now. It may be caused by one of the following reasons: the broker's disk is full, messages are put to the slave, message store has been shut down, etc.")
	case store.OSPageCacheBusy:
		setResp(resp, protocol.SystemError, "[PC_SYNCHRONIZED]broker busy, start flow control for a while")
	case store.UnknownError:
		setResp(resp, protocol.SystemError, "UNKNOWN_ERROR")
	default:
		setResp(resp, protocol.SystemError, "UNKNOWN_ERROR DEFAULT")
	}
	if sendOK && r.AppendMessageResult != nil {
		a := r.AppendMessageResult
		resp.AddExtField("msgId", a.MsgID)
		resp.AddExtField("queueId", fmt.Sprint(queueID))
		resp.AddExtField("queueOffset", fmt.Sprint(a.LogicsOffset))
	}
	return resp
}

// shutdown waits for responses still waiting on the store.
func (p *SendMessageProcessor) shutdown() { p.wg.Wait() }

// setResp sets code and remark.
func setResp(resp *remoting.RemotingCommand, code int32, remark string) {
	resp.Code = code
	resp.Remark = remark
}
