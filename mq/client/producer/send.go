package producer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// outgoing is what a send carries: a single message, or a batch (msg is then its envelope and
// body its encoding).
type outgoing struct {
	msg   *primitive.Message
	batch *client.MessageBatch
	body  []byte
}

// checkMessage is the client-side check of a message: a valid topic that producers may send
// to, a non-empty body no larger than MaxMessageSize. Errors wrap ErrMessageIllegal.
// Java: Validators#checkMessage.
func (p *DefaultMQProducer) checkMessage(msg *primitive.Message, bodyLen int) error {
	if msg == nil {
		return fmt.Errorf("%w: the message is null", client.ErrMessageIllegal)
	}
	if err := protocol.ValidateTopic(msg.Topic); err != nil {
		return fmt.Errorf("%w: %w", client.ErrMessageIllegal, err)
	}
	if protocol.NotAllowedSendTopic(msg.Topic) {
		return fmt.Errorf("%w: Sending message to topic[%s] is forbidden", client.ErrMessageIllegal, msg.Topic)
	}
	if bodyLen == 0 {
		return fmt.Errorf("%w: the message body length is zero", client.ErrMessageIllegal)
	}
	if bodyLen > p.cfg.MaxMessageSize {
		return fmt.Errorf("%w: the message body size over max value, MAX: %d", client.ErrMessageIllegal, p.cfg.MaxMessageSize)
	}
	return nil
}

func (o *outgoing) bodyLen() int {
	if o.batch != nil {
		return len(o.body)
	}
	return len(o.msg.Body)
}

// sendDefaultImpl sends with queue selection and retries: it finds the topic's route, then
// tries up to 1 + RetryTimesWhenSendFailed queues for a SYNC send (one for ASYNC and ONEWAY,
// whose retries, if any, happen in MQClientAPIImpl), each chosen by the fault strategy away from
// the previous attempt's broker. Every attempt's latency updates its broker's fault item (a
// failure with isolation). A broker error code outside RetryResponseCodes ends the send; a
// status other than SEND_OK is retried only with RetryAnotherBrokerWhenNotStoreOK. ctx's
// deadline is the whole send's budget. Errors: ErrNoRouteInfo, ErrCallTimeout, ErrSendFailed
// (wrapping the last attempt's error), *remoting.RemoteError, ErrMessageIllegal, ErrServiceState.
// Java: DefaultMQProducerImpl#sendDefaultImpl.
func (p *DefaultMQProducer) sendDefaultImpl(ctx context.Context, o *outgoing, mode client.CommunicationMode, cb SendCallback) (*SendResult, error) {
	if err := p.makeSureStateOK(); err != nil {
		return nil, err
	}
	if err := p.checkMessage(o.msg, o.bodyLen()); err != nil {
		return nil, err
	}
	timesTotal := 1
	if mode == client.Sync {
		timesTotal = 1 + p.cfg.RetryTimesWhenSendFailed
	}
	if p.tr.Enabled() {
		p.tr.Step("DefaultMQProducerImpl#sendDefaultImpl", slog.String("topic", o.msg.Topic),
			slog.String("mode", mode.String()), slog.Int("timesTotal", timesTotal))
	}
	beginFirst := p.now()
	tp := p.tryToFindTopicPublishInfo(o.msg.Topic)
	if !tp.OK() {
		if len(p.instance.MQClientAPI().NameServerAddressList()) == 0 {
			return nil, fmt.Errorf("%w: %w", client.ErrNoRouteInfo, client.ErrNoNameServer)
		}
		return nil, fmt.Errorf("%w: %s", client.ErrNoRouteInfo, o.msg.Topic)
	}
	var (
		mq          primitive.MessageQueue
		haveMQ      bool
		result      *SendResult
		lastErr     error
		callTimeout bool
		brokersSent []string
		times       int
	)
	for ; times < timesTotal; times++ {
		lastBrokerName := ""
		if haveMQ {
			lastBrokerName = mq.BrokerName
		}
		selected, ok := p.SelectOneMessageQueue(tp, lastBrokerName)
		if !ok {
			break
		}
		mq, haveMQ = selected, true
		beginPrev := p.now()
		if ctx.Err() != nil {
			callTimeout = true
			break
		}
		res, err := p.sendKernelImpl(ctx, o, mq, mode, cb, tp)
		latency := p.now().Sub(beginPrev).Milliseconds()
		if err == nil {
			p.UpdateFaultItem(mq.BrokerName, latency, false)
			if mode != client.Sync {
				return nil, nil
			}
			result = res
			if res.SendStatus != client.SendOK && p.cfg.RetryAnotherBrokerWhenNotStoreOK {
				continue
			}
			return res, nil
		}
		p.UpdateFaultItem(mq.BrokerName, latency, true)
		brokersSent = append(brokersSent, mq.BrokerName) // only failed attempts reach the error below
		p.log.Warn("sendKernelImpl exception, resend at once", "rtMs", latency, "broker", mq.BrokerName,
			"queueId", mq.QueueID, "err", err)
		lastErr = err
		var re *remoting.RemoteError
		if errors.As(err, &re) && !p.retryCodes[re.Code] {
			if result != nil {
				return result, nil
			}
			return nil, err
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, err // the caller gave up (Java: InterruptedException is thrown at once)
		}
	}
	if result != nil {
		return result, nil
	}
	if callTimeout {
		return nil, fmt.Errorf("%w: sendDefaultImpl call timeout: %w", client.ErrCallTimeout, ctx.Err())
	}
	return nil, fmt.Errorf("%w: Send [%d] times, still failed, cost [%d]ms, Topic: %s, BrokersSent: %v: %w",
		client.ErrSendFailed, times, p.now().Sub(beginFirst).Milliseconds(), o.msg.Topic, brokersSent, lastErr)
}

// tryToFindTopicPublishInfo returns the topic's publish info, fetching the route when the
// producer has none with queues; when the name server does not know the topic either, it
// installs the route of CreateTopicKey (TBW102) cut to DefaultTopicQueueNums queues per broker,
// so that the first send makes a broker create the topic.
// Java: DefaultMQProducerImpl#tryToFindTopicPublishInfo.
func (p *DefaultMQProducer) tryToFindTopicPublishInfo(topic string) *client.TopicPublishInfo {
	p.tpMu.RLock()
	info := p.topicPublishInfoTable[topic]
	p.tpMu.RUnlock()
	if p.tr.Enabled() {
		p.tr.Step("DefaultMQProducerImpl#tryToFindTopicPublishInfo", slog.String("topic", topic),
			slog.Bool("cached", info.OK()))
	}
	if !info.OK() {
		p.tpMu.Lock()
		if p.topicPublishInfoTable[topic] == nil {
			p.topicPublishInfoTable[topic] = client.NewTopicPublishInfo()
		}
		p.tpMu.Unlock()
		p.instance.UpdateTopicRouteInfoFromNameServer(topic)
		p.tpMu.RLock()
		info = p.topicPublishInfoTable[topic]
		p.tpMu.RUnlock()
	}
	if info.HaveTopicRouterInfo || info.OK() {
		return info
	}
	p.instance.UpdateTopicRouteInfoFromNameServerWithDefault(topic, p.cfg.CreateTopicKey, p.cfg.DefaultTopicQueueNums)
	p.tpMu.RLock()
	defer p.tpMu.RUnlock()
	return p.topicPublishInfoTable[topic]
}

// sendKernelImpl sends to one queue: it resolves the broker's master address, gives a single
// message its UNIQ_KEY, compresses a body of at least CompressMsgBodyOverHowmuch bytes (sysFlag
// 0x301: COMPRESSED_FLAG | zlib type), marks a transaction half message (TRAN_MSG=true: sysFlag
// 0x4), builds the header and hands the send to MQClientAPIImpl. The user's message keeps its
// body (compression works on a copy). tp is nil for a send to a chosen queue (an async retry
// then stays on the broker). Java: DefaultMQProducerImpl#sendKernelImpl.
func (p *DefaultMQProducer) sendKernelImpl(ctx context.Context, o *outgoing, mq primitive.MessageQueue,
	mode client.CommunicationMode, cb SendCallback, tp *client.TopicPublishInfo) (*SendResult, error) {
	inst := p.instance
	brokerAddr := inst.FindBrokerAddressInPublish(mq.BrokerName)
	if brokerAddr == "" {
		p.tryToFindTopicPublishInfo(mq.Topic)
		brokerAddr = inst.FindBrokerAddressInPublish(mq.BrokerName)
	}
	if brokerAddr == "" {
		return nil, fmt.Errorf("%w: The broker[%s] not exist", client.ErrBrokerNotExist, mq.BrokerName)
	}
	brokerAddr = brokerVIPChannel(p.cfg.VIPChannelEnabled, brokerAddr)
	msg := o.msg
	body := o.body
	var sysFlag int32
	if o.batch == nil {
		client.SetUniqID(msg)
		body = msg.Body
		if len(body) >= p.cfg.CompressMsgBodyOverHowmuch {
			if data, err := compress(body, p.cfg.CompressLevel); err == nil {
				body = data
				sysFlag |= primitive.CompressedFlag | compressionZlibType
			} else {
				p.log.Error("tryToCompressMessage exception", "err", err)
			}
		}
	}
	if v := msg.GetProperty(primitive.PropertyTransactionPrepared); v != "" { // ParseBool("") allocates its error
		if tran, _ := strconv.ParseBool(v); tran {
			sysFlag |= primitive.TransactionPreparedType
		}
	}
	h := protocol.SendMessageRequestHeader{
		ProducerGroup:         p.cfg.ProducerGroup,
		Topic:                 msg.Topic,
		DefaultTopic:          p.cfg.CreateTopicKey,
		DefaultTopicQueueNums: p.cfg.DefaultTopicQueueNums,
		QueueID:               mq.QueueID,
		SysFlag:               sysFlag,
		BornTimestamp:         p.nowMillis(),
		Flag:                  msg.Flag,
		Properties:            primitive.MarshalProperties(msg.Properties),
		UnitMode:              p.cfg.UnitMode,
		Batch:                 o.batch != nil,
		BrokerName:            mq.BrokerName,
	}
	if protocol.IsRetryTopic(h.Topic) {
		if v := msg.GetProperty(primitive.PropertyReconsumeTime); v != "" {
			if n, err := strconv.ParseInt(v, 10, 32); err == nil {
				h.ReconsumeTimes = int32(n)
			}
			msg.RemoveProperty(primitive.PropertyReconsumeTime)
		}
		if v := msg.GetProperty(primitive.PropertyMaxReconsumeTimes); v != "" {
			if n, err := strconv.ParseInt(v, 10, 32); err == nil {
				h.MaxReconsumeTimes, h.HasMaxReconsumeTimes = int32(n), true
			}
			msg.RemoveProperty(primitive.PropertyMaxReconsumeTimes)
		}
	}
	if p.tr.Enabled() {
		p.tr.Step("DefaultMQProducerImpl#sendKernelImpl", slog.String("brokerName", mq.BrokerName),
			slog.Int("queueId", int(mq.QueueID)), slog.String("mode", mode.String()),
			slog.Int("sysFlag", int(sysFlag)), slog.Int("bodyLength", len(body)), slog.Bool("batch", o.batch != nil))
	}
	hooks := p.sendHooks()
	var after func(res *SendResult, err error) // nil without hooks: a send allocates no closure for them
	if len(hooks) > 0 {
		hctx := &SendMessageContext{ProducerGroup: p.cfg.ProducerGroup, Message: msg, MQ: mq,
			BrokerAddr: brokerAddr, CommunicationMode: mode}
		for _, hk := range hooks {
			hk.SendMessageBefore(hctx)
		}
		after = func(res *SendResult, err error) {
			hctx.SendResult, hctx.Err = res, err
			for _, hk := range hooks {
				hk.SendMessageAfter(hctx)
			}
		}
	}
	req := &client.SendRequest{
		BrokerAddr: brokerAddr,
		BrokerName: mq.BrokerName,
		Msg:        msg,
		Batch:      o.batch,
		Body:       body,
		Header:     h,
		Mode:       mode,
	}
	if mode == client.Async {
		req.Callback = cb
		if after != nil {
			req.Callback = func(res *SendResult, err error) {
				after(res, err)
				cb(res, err)
			}
		}
		req.TopicPublishInfo = tp
		req.RetryTimesWhenSendFailed = p.cfg.RetryTimesWhenSendAsyncFailed
		req.Producer = p
		req.Instance = inst
	}
	res, err := inst.MQClientAPI().SendMessage(ctx, req)
	if after != nil && (mode != client.Async || err != nil) {
		after(res, err)
	}
	return res, err
}

// brokerVIPChannel returns the VIP address (port − 2) of brokerAddr when enabled.
// Java: MixAll#brokerVIPChannel.
func brokerVIPChannel(enabled bool, brokerAddr string) string {
	if !enabled {
		return brokerAddr
	}
	host, port, err := net.SplitHostPort(brokerAddr)
	if err != nil {
		return brokerAddr
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return brokerAddr
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(n-2)
	}
	return host + ":" + strconv.Itoa(n-2)
}
