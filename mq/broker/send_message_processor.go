package broker

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

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
// A send runs one straight path: decode the header; preSend (msgCheck, which looks the topic's
// config up once, the queue pick, newInner) either refuses it with a verdict (code + remark) or
// returns the message to store; the single path adds its own checks (retry → DLQ, half
// messages); the store puts it; handlePutMessageResult maps the status to the answer.
// Every answer after the header carries MSG_REGION and TRACE_ON (newSendResponse).
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

// NewCustomHeader implements remoting.HeaderDecoder: the reader decodes the header fields of
// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320) straight into a
// protocol.SendHeaderFields, with no extFields map; nil (the map) for CONSUMER_SEND_MSG_BACK.
func (p *SendMessageProcessor) NewCustomHeader(code int32) remoting.CustomHeader {
	if f := protocol.NewSendHeaderFields(code); f != nil {
		return f
	}
	return nil
}

// ProcessRequest routes CONSUMER_SEND_MSG_BACK (36) to asyncConsumerSendMsgBack; for the send
// codes it decodes the header (from the fields the reader collected, NewCustomHeader, or else
// from extFields: V2 for codes 310 and 320, V1 otherwise) and sends to the batch or single
// path by the header's batch flag. A header that cannot be decoded is answered SYSTEM_ERROR
// naming the field. Java: SendMessageProcessor#asyncProcessRequest.
func (p *SendMessageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	if req.Code == protocol.ConsumerSendMsgBack {
		return p.asyncConsumerSendMsgBack(ch, req)
	}
	var h protocol.SendMessageRequestHeader
	var err error
	if f, ok := req.CustomHeader.(*protocol.SendHeaderFields); ok {
		h, err = f.Decode()
	} else {
		h, err = decodeSendHeader(req)
	}
	if tr := p.b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#processRequest", slog.Int("code", int(req.Code)),
			slog.String("topic", h.Topic), slog.Int("queueId", int(h.QueueID)), slog.Bool("batch", h.Batch))
	}
	if err != nil {
		return badHeader("send message", err), nil
	}
	if h.Batch {
		return p.asyncSendBatchMessage(ch, req, &h)
	}
	return p.asyncSendMessage(ch, req, &h)
}

// decodeSendHeader decodes a send request's header from its extFields: V2 for codes 310 and
// 320, V1 otherwise.
func decodeSendHeader(req *remoting.RemotingCommand) (h protocol.SendMessageRequestHeader, err error) {
	switch req.Code {
	case protocol.SendMessageV2, protocol.SendBatchMessage:
		return protocol.DecodeSendMessageRequestHeaderV2(req.ExtFields)
	}
	err = protocol.DecodeHeader(req.ExtFields, &h)
	return h, err
}

// verdict is the outcome of a check on the send path: passed, or the response code and remark
// that refuse the send. A verdict is a value; the processor turns a refusal into the answer
// (answer), so no check writes into a response.
type verdict struct {
	code   int32 // protocol.Success when the check passed
	remark string
}

// passed is the verdict of a check that let the send through.
var passed = verdict{code: protocol.Success}

// refuse is the verdict of a check that stops the send with code and remark.
func refuse(code int32, remark string) verdict { return verdict{code: code, remark: remark} }

func (v verdict) ok() bool { return v.code == protocol.Success }

// answer sets v's code and remark on resp and returns it.
func (v verdict) answer(resp *remoting.RemotingCommand) *remoting.RemotingCommand {
	setResp(resp, v.code, v.remark)
	return resp
}

// newSendResponse is the shell of every answer to a send that passed header decoding: a
// response carrying MSG_REGION and TRACE_ON. Java: SendMessageProcessor#preSend.
func (p *SendMessageProcessor) newSendResponse() *remoting.RemotingCommand {
	resp := remoting.NewResponse(protocol.Success, "")
	resp.AddExtField(primitive.PropertyMsgRegion, p.b.cfg.RegionID)
	resp.AddExtField(primitive.PropertyTraceSwitch, strconv.FormatBool(p.b.cfg.TraceOn))
	return resp
}

// preSend runs what single and batch sends share: msgCheck (one topic-config lookup), the
// compressed-body check, and newInner. It returns the message to store and the queue the
// answer names, or the verdict that refuses the send. Java: SendMessageProcessor#preSend plus
// the message building both send paths repeat.
func (p *SendMessageProcessor) preSend(ch *remoting.Channel, req *remoting.RemotingCommand,
	h *protocol.SendMessageRequestHeader) (*primitive.MessageExtBrokerInner, int32, verdict) {
	tc, v := p.msgCheck(ch, h)
	if !v.ok() {
		return nil, 0, v
	}
	if v := checkCompressed(h, req.Body); !v.ok() {
		return nil, 0, v
	}
	return p.newInner(h, req.Body, &tc, h.QueueID), h.QueueID, passed
}

// checkCompressed refuses (MESSAGE_ILLEGAL) a send whose sysFlag says the body is compressed
// when it is a batch (clients compress single messages only: the batch encoding must stay
// readable) or when the body does not start with a zlib header (RFC 1950: compression method
// 8, a window of at most 32 KiB, the check bits making the first two bytes a multiple of 31).
//
// Deviation: Java stores such a body as sent; the consumer then fails to inflate it.
func checkCompressed(h *protocol.SendMessageRequestHeader, body []byte) verdict {
	if h.SysFlag&primitive.CompressedFlag == 0 {
		return passed
	}
	if h.Batch {
		return refuse(protocol.MessageIllegal, "the message is illegal, a batch cannot have the compressed flag")
	}
	if !isZlibHeader(body) {
		return refuse(protocol.MessageIllegal, "the message is illegal, the compressed flag is set but the body is not zlib")
	}
	return passed
}

// isZlibHeader reports whether b starts with a zlib stream header (RFC 1950 §2.2): CMF's
// low nibble 8 (deflate) and high nibble ≤ 7, and CMF·256 + FLG a multiple of 31.
func isZlibHeader(b []byte) bool {
	return len(b) >= 2 && b[0]&0x0F == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0
}

// msgCheck checks the target: broker writable for order topics (16), topic name valid (1),
// topic not reserved (16), topic exists or can be auto-created from defaultTopic (else 17),
// 0 ≤ queueId < max(read, write) queue nums (else 1). It returns the topic's config (a copy,
// by value: no allocation per send) when all pass. Java: AbstractSendMessageProcessor#msgCheck.
//
// Deviation: a negative queueId is refused (SYSTEM_ERROR, "request queueId[-n] is illegal");
// Java's asyncSendMessage and asyncSendBatchMessage pick a random writable queue for it.
// No client sends one: they pick the queue themselves.
func (p *SendMessageProcessor) msgCheck(ch *remoting.Channel, h *protocol.SendMessageRequestHeader) (protocol.TopicConfig, verdict) {
	b := p.b
	tc, found := b.topicConfigManager.TopicConfigOf(h.Topic)
	if !protocol.IsWriteable(int32(b.cfg.BrokerPermission)) && found && tc.Order {
		return protocol.TopicConfig{}, refuse(protocol.NoPermission, fmt.Sprintf("the broker[%s] sending message is forbidden", b.cfg.BrokerIP1))
	}
	if code, remark, ok := validateTopic(h.Topic); !ok {
		return protocol.TopicConfig{}, refuse(code, remark)
	}
	if protocol.NotAllowedSendTopic(h.Topic) {
		return protocol.TopicConfig{}, refuse(protocol.NoPermission, fmt.Sprintf("Sending message to topic[%s] is forbidden.", h.Topic))
	}
	if !found {
		var topicSysFlag int32
		if h.UnitMode {
			if protocol.IsRetryTopic(h.Topic) {
				topicSysFlag = buildTopicSysFlag(false, true)
			} else {
				topicSysFlag = buildTopicSysFlag(true, false)
			}
		}
		b.log.Warn("the topic does not exist", "topic", h.Topic, "producer", ch.RemoteAddr())
		created := b.topicConfigManager.CreateTopicInSendMessageMethod(h.Topic, h.DefaultTopic, ch.RemoteAddr(),
			h.DefaultTopicQueueNums, topicSysFlag)
		if created == nil && protocol.IsRetryTopic(h.Topic) {
			created = b.topicConfigManager.CreateTopicInSendMessageBackMethod(h.Topic, 1,
				protocol.PermWrite|protocol.PermRead, topicSysFlag)
		}
		if created == nil {
			return protocol.TopicConfig{}, refuse(protocol.TopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please!", h.Topic))
		}
		tc = *created
	}
	if idValid := max(tc.WriteQueueNums, tc.ReadQueueNums); h.QueueID < 0 || h.QueueID >= idValid {
		return protocol.TopicConfig{}, refuse(protocol.SystemError, fmt.Sprintf("request queueId[%d] is illegal, topic %s has %d queues, producer: %s",
			h.QueueID, h.Topic, idValid, ch.RemoteAddr()))
	}
	return tc, passed
}

// newInner builds the message both send paths store, from the header, the body, the topic's
// config and the picked queue: topic, queue, body, flag, born timestamp, reconsume times, the
// request's properties (an empty map when none) with CLUSTER added, and sysFlag with MULTI_TAGS
// for MULTI_TAG topics. Hosts are set by setHosts, after the path's own checks.
func (p *SendMessageProcessor) newInner(h *protocol.SendMessageRequestHeader, body []byte, tc *protocol.TopicConfig,
	queueID int32) *primitive.MessageExtBrokerInner {
	msg := &primitive.MessageExtBrokerInner{}
	msg.Topic = h.Topic
	msg.QueueID = queueID
	msg.Body = body
	msg.Flag = h.Flag
	msg.BornTimestamp = h.BornTimestamp
	msg.ReconsumeTimes = h.ReconsumeTimes
	props := primitive.UnmarshalProperties(h.Properties)
	if props == nil {
		props = map[string]string{}
	}
	props[primitive.PropertyCluster] = p.b.cfg.BrokerClusterName
	msg.Properties = props
	msg.SysFlag = h.SysFlag
	if tc.TopicFilterType == protocol.MultiTag {
		msg.SysFlag |= primitive.MultiTagsFlag
	}
	return msg
}

// asyncSendMessage builds the MessageExtBrokerInner and puts it into the store.
// Java: SendMessageProcessor#asyncSendMessage.
func (p *SendMessageProcessor) asyncSendMessage(ch *remoting.Channel, req *remoting.RemotingCommand,
	h *protocol.SendMessageRequestHeader) (*remoting.RemotingCommand, error) {
	b := p.b
	start := b.clock.Now()
	resp := p.newSendResponse()
	msg, queueID, v := p.preSend(ch, req, h)
	if !v.ok() {
		return v.answer(resp), nil
	}
	if v := p.handleRetryAndDLQ(h, req, msg); !v.ok() {
		return v.answer(resp), nil
	}
	if err := p.setHosts(ch, msg); err != nil {
		return refuse(protocol.SystemError, err.Error()).answer(resp), nil
	}
	props := msg.Properties
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

	if tr := b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#asyncSendMessage", slog.String("topic", msg.Topic),
			slog.Int("queueId", int(msg.QueueID)), slog.Int("bodyLen", len(msg.Body)))
	}
	if tran := props[primitive.PropertyTransactionPrepared]; strings.EqualFold(tran, "true") {
		if b.cfg.RejectTransactionMessage {
			return refuse(protocol.NoPermission, fmt.Sprintf("the broker[%s] sending transaction message is forbidden",
				b.cfg.BrokerIP1)).answer(resp), nil
		}
		// A half message: stored in RMQ_SYS_TRANS_HALF_TOPIC, answered like any send (the
		// queueOffset is the half queue's, which END_TRANSACTION names again).
		return p.awaitPut(ch, req, resp, store.PutMessageResult{}, b.transactionalMessageService.AsyncPrepareMessage(msg), queueID, msg.Topic, start)
	}
	topic := msg.Topic // read before the put: the store redirects a delayed message to SCHEDULE_TOPIC_XXXX
	r, wait := b.store.PutMessageOrWait(msg)
	return p.awaitPut(ch, req, resp, r, wait, queueID, topic, start)
}

// asyncSendBatchMessage stores a batch: the body is the client's batch encoding
// (remoting-protocol.md §6.2); topic, queue, sysFlag, born/store host and the envelope's
// properties (plus CLUSTER) apply to every member. The response's msgId lists the members'
// offsetMsgIds joined by ','; queueOffset is the first member's.
// Java: SendMessageProcessor#asyncSendBatchMessage.
//
// Java also refuses a topic longer than 127 bytes here (MESSAGE_ILLEGAL); msgCheck's
// validateTopic has refused such a topic already, so that branch is never taken, in Java either.
func (p *SendMessageProcessor) asyncSendBatchMessage(ch *remoting.Channel, req *remoting.RemotingCommand,
	h *protocol.SendMessageRequestHeader) (*remoting.RemotingCommand, error) {
	start := p.b.clock.Now()
	resp := p.newSendResponse()
	batch, queueID, v := p.preSend(ch, req, h)
	if !v.ok() {
		return v.answer(resp), nil
	}
	batch.PropertiesString = primitive.MarshalProperties(batch.Properties)
	if err := p.setHosts(ch, batch); err != nil {
		return refuse(protocol.SystemError, err.Error()).answer(resp), nil
	}
	if tr := p.b.tr; tr.Enabled() {
		tr.Step("SendMessageProcessor#asyncSendBatchMessage", slog.String("topic", batch.Topic),
			slog.Int("queueId", int(batch.QueueID)), slog.Int("bodyLen", len(batch.Body)))
	}
	r, wait := p.b.store.PutMessagesOrWait(batch)
	return p.awaitPut(ch, req, resp, r, wait, queueID, batch.Topic, start)
}

// handleRetryAndDLQ sends a message for %RETRY%<group> whose reconsumeTimes reached the
// group's limit (or the header's maxReconsumeTimes, from request version 3.4.9 on) to
// %DLQ%<group> (1 queue, perm 6). It refuses the send when the group or the DLQ topic does not
// exist. Java: SendMessageProcessor#handleRetryAndDLQ (its MULTI_TAGS sysFlag is newInner's).
//
// This is the path of client-go's fallback when CONSUMER_SEND_MSG_BACK fails
// (remoting-protocol.md §9.4): it sends the message itself with DELAY = 3 + reconsumeTimes, which
// the store parks in SCHEDULE_TOPIC_XXXX like any delayed message. Java also sets DELAY=0 on
// the message here, but then replaces all properties with the request's, so a DELAY sent by
// the client survives (a message bound for the DLQ then reaches it after its delay); we keep
// that effective behaviour.
func (p *SendMessageProcessor) handleRetryAndDLQ(h *protocol.SendMessageRequestHeader, req *remoting.RemotingCommand,
	msg *primitive.MessageExtBrokerInner) verdict {
	b := p.b
	if !protocol.IsRetryTopic(h.Topic) {
		return passed
	}
	group := h.Topic[len(protocol.RetryGroupTopicPrefix):]
	sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(group)
	if sgc == nil {
		return refuse(protocol.SubscriptionGroupNotExist, "subscription group not exist, "+group)
	}
	maxReconsume := sgc.RetryMaxTimes
	if req.Version >= versionV349 && h.HasMaxReconsumeTimes {
		maxReconsume = h.MaxReconsumeTimes
	}
	if h.ReconsumeTimes < maxReconsume {
		return passed
	}
	dlq := protocol.GetDLQTopic(group)
	msg.Topic = dlq
	msg.QueueID = rand.Int32N(protocol.DLQNumsPerGroup)
	if b.topicConfigManager.CreateTopicInSendMessageBackMethod(dlq, protocol.DLQNumsPerGroup,
		protocol.PermWrite|protocol.PermRead, 0) == nil {
		return refuse(protocol.SystemError, "topic["+dlq+"] not exist")
	}
	return passed
}

// setHosts fills born host (the client's address as this connection sees it) and store host
// (brokerIP1 and the bound port), raw and as strings, with the IPv6 sysFlag bits.
func (p *SendMessageProcessor) setHosts(ch *remoting.Channel, msg *primitive.MessageExtBrokerInner) error {
	born := ch.RemoteHostBytes() // parsed once per connection, shared: the store only reads it
	if born == nil {
		_, err := primitive.HostBytes(ch.RemoteAddr())
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

// awaitPut answers with r at once when wait is nil, or when wait's result is ready, else later
// from a goroutine; the result is counted on the metrics under topic (the topic the message was
// stored for), with the latency since start. The ready cases build no closure and no channel:
// under ASYNC_FLUSH they are every send.
func (p *SendMessageProcessor) awaitPut(ch *remoting.Channel, req, resp *remoting.RemotingCommand,
	r store.PutMessageResult, wait <-chan store.PutMessageResult, queueID int32, topic string, start time.Time) (*remoting.RemotingCommand, error) {
	if wait == nil {
		p.b.recordPut(topic, r, start)
		return p.handlePutMessageResult(r, resp, queueID), nil
	}
	select {
	case r := <-wait:
		p.b.recordPut(topic, r, start)
		return p.handlePutMessageResult(r, resp, queueID), nil
	default:
	}
	return p.awaitResult(ch, req, wait, func(r store.PutMessageResult) *remoting.RemotingCommand {
		p.b.recordPut(topic, r, start)
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

// storedCode answers the four put statuses where the message is in the CommitLog: PUT_OK is
// SUCCESS, the other three keep their names as response codes (10, 12, 11). A switch, not a
// map: it runs on every send.
func storedCode(s store.PutMessageStatus) (int32, bool) {
	switch s {
	case store.PutOK:
		return protocol.Success, true
	case store.FlushDiskTimeout:
		return protocol.FlushDiskTimeout, true
	case store.FlushSlaveTimeout:
		return protocol.FlushSlaveTimeout, true
	case store.SlaveNotAvailable:
		return protocol.SlaveNotAvailable, true
	}
	return 0, false
}

// handlePutMessageResult maps the store status to the response code and, for the four
// statuses where the message was stored, fills msgId (offsetMsgId), queueId and queueOffset.
// Java: SendMessageProcessor#handlePutMessageResult.
func (p *SendMessageProcessor) handlePutMessageResult(r store.PutMessageResult, resp *remoting.RemotingCommand,
	queueID int32) *remoting.RemotingCommand {
	if code, stored := storedCode(r.PutMessageStatus); stored {
		setResp(resp, code, "")
		if a := r.AppendMessageResult; a != nil {
			resp.AddExtField("msgId", a.MsgID)
			resp.AddExtField("queueId", strconv.Itoa(int(queueID)))
			resp.AddExtField("queueOffset", strconv.FormatInt(int64(a.LogicsOffset), 10))
		}
		return resp
	}
	switch r.PutMessageStatus {
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
	return resp
}

// shutdown waits for responses still waiting on the store.
func (p *SendMessageProcessor) shutdown() { p.wg.Wait() }

// setResp sets code and remark.
func setResp(resp *remoting.RemotingCommand, code int32, remark string) {
	resp.Code = code
	resp.Remark = remark
}
