package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// AsyncSendProducer is what an async send calls back into on every response and before every
// retry: the producer's fault strategy. DefaultMQProducer implements it.
// Java: the DefaultMQProducerImpl parameter of MQClientAPIImpl#sendMessageAsync.
type AsyncSendProducer interface {
	// UpdateFaultItem records a send's latency (ms) on brokerName; isolation marks a failure.
	UpdateFaultItem(brokerName string, currentLatency int64, isolation bool)
	// SelectOneMessageQueue picks the queue of a retry, avoiding lastBrokerName.
	SelectOneMessageQueue(tpInfo *TopicPublishInfo, lastBrokerName string) (primitive.MessageQueue, bool)
}

// SendRequest is one send as DefaultMQProducerImpl#sendKernelImpl hands it to
// MQClientAPIImpl#sendMessage.
type SendRequest struct {
	// BrokerAddr and BrokerName name the target master.
	BrokerAddr string
	BrokerName string
	// Msg is the message as the user built it, with its UNIQ_KEY (the envelope for a batch).
	Msg *primitive.Message
	// Batch is set for a SEND_BATCH_MESSAGE; its messages' UNIQ_KEYs make SendResult.MsgID.
	Batch *MessageBatch
	// Body is what travels: the message body, zlib-compressed when Header.SysFlag says so, or
	// the encoded batch.
	Body []byte
	// Header is the send header, encoded with the single-letter V2 keys.
	Header protocol.SendMessageRequestHeader
	// Mode: SYNC waits, ASYNC calls Callback, ONEWAY sends and forgets.
	Mode CommunicationMode

	// Callback gets the result or the error of an ASYNC send exactly once.
	Callback func(*SendResult, error)
	// TopicPublishInfo, when set, lets an async retry move to another broker.
	TopicPublishInfo *TopicPublishInfo
	// RetryTimesWhenSendFailed is how many times an async send is retried after a transport
	// failure (not after a broker's error code).
	RetryTimesWhenSendFailed int
	// Producer is called back with latencies and for retry queues (async only).
	Producer AsyncSendProducer
	// Instance finds the address of a retry's broker (async only).
	Instance *MQClientInstance
}

// MQClientAPIImpl turns client operations into remoting commands: route queries to a name
// server, sends, heartbeats and client registration to brokers.
// Mirrors org.apache.rocketmq.client.impl.MQClientAPIImpl.
//
// Name servers: a request goes to the chosen name server; when none is chosen yet, or it cannot
// be reached, the next one round-robin is tried, and the first that connects becomes the chosen
// one (NettyRemotingClient#getAndCreateNameserverChannel). nsMu guards the list and the choice.
type MQClientAPI struct {
	cfg    ClientConfig
	opts   Options
	client *remoting.Client
	tr     *trace.Tracer
	log    *slog.Logger

	nsMu     sync.Mutex
	namesrvs []string
	chosen   string
	nsIndex  *ThreadLocalIndex
}

// NewMQClientAPI returns the API over a new remoting client; broker → client requests go
// to processor's codes (nil: none registered).
func NewMQClientAPI(cfg ClientConfig, opts Options, processor *ClientRemotingProcessor, tr *trace.Tracer) *MQClientAPI {
	a := &MQClientAPI{
		cfg:     cfg,
		opts:    opts,
		client:  remoting.NewClient(cfg.remotingConfig(), tr),
		tr:      tr,
		log:     opts.Log(),
		nsIndex: NewThreadLocalIndex(opts.NextIndexSeed()),
	}
	if processor != nil {
		processor.register(a.client)
	}
	registerAclHook(a.client, opts)
	return a
}

// RemotingClient is the underlying remoting client.
func (a *MQClientAPI) RemotingClient() *remoting.Client { return a.client }

// UpdateNameServerAddressList replaces the name server list; the chosen one is kept only if it
// is still listed. Java: MQClientAPIImpl#updateNameServerAddressList (NettyRemotingClient's).
func (a *MQClientAPI) UpdateNameServerAddressList(addrs []string) {
	a.nsMu.Lock()
	defer a.nsMu.Unlock()
	a.namesrvs = slices.Clone(addrs)
	if !slices.Contains(a.namesrvs, a.chosen) {
		a.chosen = ""
	}
}

// NameServerAddressList returns the name servers.
func (a *MQClientAPI) NameServerAddressList() []string {
	a.nsMu.Lock()
	defer a.nsMu.Unlock()
	return slices.Clone(a.namesrvs)
}

// Shutdown closes every connection. Java: MQClientAPIImpl#shutdown.
func (a *MQClientAPI) Shutdown() { a.client.Shutdown() }

// invokeNamesrv sends req to the chosen name server, or to the next ones round-robin until one
// can be connected to. Only a connect failure moves on; a timeout is returned.
func (a *MQClientAPI) invokeNamesrv(ctx context.Context, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	a.nsMu.Lock()
	addrs, chosen := slices.Clone(a.namesrvs), a.chosen
	a.nsMu.Unlock()
	if len(addrs) == 0 {
		return nil, ErrNoNameServer
	}
	order := make([]string, 0, len(addrs)+1)
	if chosen != "" {
		order = append(order, chosen)
	}
	start := int(a.nsIndex.IncrementAndGet())
	for i := range addrs {
		if addr := addrs[(start+i)%len(addrs)]; addr != chosen {
			order = append(order, addr)
		}
	}
	var err error
	for _, addr := range order {
		var resp *remoting.RemotingCommand
		resp, err = a.client.InvokeSync(ctx, addr, req)
		if err == nil {
			a.nsMu.Lock()
			a.chosen = addr
			a.nsMu.Unlock()
			return resp, nil
		}
		if !errors.Is(err, remoting.ErrConnect) {
			return nil, err
		}
		a.log.Warn("name server unreachable, trying the next", "namesrv", addr, "err", err)
	}
	return nil, err
}

// GetTopicRouteInfoFromNameServer asks a name server for topic's route (GET_ROUTEINFO_BY_TOPIC,
// 105). TOPIC_NOT_EXIST and every other non-SUCCESS answer are errors wrapping ErrNoRouteInfo
// and the *remoting.RemoteError; a transport failure is the remoting error. With
// allowTopicNotExist a missing topic is logged as a warning (the TBW102 lookup passes false).
// Java: MQClientAPIImpl#getTopicRouteInfoFromNameServer.
func (a *MQClientAPI) GetTopicRouteInfoFromNameServer(ctx context.Context, topic string, allowTopicNotExist bool) (*protocol.TopicRouteData, error) {
	h := protocol.GetRouteInfoRequestHeader{Topic: topic}
	req := remoting.NewRequest(protocol.GetRouteinfoByTopic, protocol.EncodeHeader(&h), nil)
	resp, err := a.invokeNamesrv(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("get route of %s: %w", topic, err)
	}
	var route *protocol.TopicRouteData
	if resp.Code == protocol.Success && len(resp.Body) > 0 {
		route, err = protocol.DecodeTopicRouteData(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("get route of %s: %w", topic, err)
		}
	}
	if a.tr.Enabled() {
		attrs := []slog.Attr{slog.String("topic", topic), slog.Int("code", int(resp.Code))}
		if route != nil {
			attrs = append(attrs, slog.Int("brokerDatas", len(route.BrokerDatas)), slog.Int("queueDatas", len(route.QueueDatas)))
		}
		a.tr.Step("MQClientAPIImpl#getTopicRouteInfoFromNameServer", attrs...)
	}
	if route != nil {
		return route, nil
	}
	if resp.Code == protocol.TopicNotExist && allowTopicNotExist {
		a.log.Warn("get Topic RouteInfoFromNameServer is not exist value", "topic", topic)
	}
	rerr := &remoting.RemoteError{Code: resp.Code, Remark: resp.Remark}
	return nil, fmt.Errorf("%w: %s: %w", ErrNoRouteInfo, topic, rerr)
}

// SendMessage sends one message or batch as SEND_MESSAGE_V2 (310) or SEND_BATCH_MESSAGE (320),
// a reply (MSG_TYPE=reply) as SEND_REPLY_MESSAGE_V2 (325), with the single-letter header, as Java producers do (sendSmartMsg). ctx's deadline is the
// send's timeout. SYNC returns the result; ONEWAY and ASYNC return (nil, nil) once the request
// is on its way (ASYNC reports through req.Callback, exactly once, also when it returns an
// error). A non-SUCCESS answer other than the three store timeouts is a *remoting.RemoteError.
// Java: MQClientAPIImpl#sendMessage.
func (a *MQClientAPI) SendMessage(ctx context.Context, req *SendRequest) (*SendResult, error) {
	code := int32(protocol.SendMessageV2)
	if req.Batch != nil {
		code = protocol.SendBatchMessage
	} else if isReply(req.Msg) {
		code = protocol.SendReplyMessageV2 // request_response_future.go
	}
	if a.tr.Enabled() {
		a.tr.Step("MQClientAPIImpl#sendMessage", slog.Int("code", int(code)), slog.String("mode", req.Mode.String()),
			slog.String("brokerName", req.BrokerName), slog.Int("queueId", int(req.Header.QueueID)),
			slog.Int("sysFlag", int(req.Header.SysFlag)), slog.Int("bodyLength", len(req.Body)))
	}
	cmd := remoting.NewRequest(code, req.Header.EncodeV2(), req.Body)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: sendMessage: %w", ErrCallTimeout, err)
	}
	switch req.Mode {
	case Oneway:
		return nil, a.client.InvokeOneway(req.BrokerAddr, cmd)
	case Async:
		a.sendMessageAsync(ctx, req, cmd, 0)
		return nil, nil
	default:
		resp, err := a.client.InvokeSync(ctx, req.BrokerAddr, cmd)
		if err != nil {
			return nil, err
		}
		return a.ProcessSendResponse(req.BrokerName, req.Msg, req.Batch, resp, req.BrokerAddr)
	}
}

// sendMessageAsync sends cmd and handles its answer on the remoting callback goroutine: a
// result goes to the callback; a broker error code fails the callback at once; a transport
// failure (no connection, timeout, closed channel) is retried up to RetryTimesWhenSendFailed
// times, each on the queue the producer picks avoiding the failed broker, before the callback
// gets the error. Every outcome updates the broker's fault item. times counts the retries so far.
// Java: MQClientAPIImpl#sendMessageAsync and #onExceptionImpl.
func (a *MQClientAPI) sendMessageAsync(ctx context.Context, req *SendRequest, cmd *remoting.RemotingCommand, times int) {
	begin := a.opts.Now()
	brokerName := req.BrokerName
	err := a.client.InvokeAsync(ctx, req.BrokerAddr, cmd, func(resp *remoting.RemotingCommand, err error) {
		latency := a.opts.Now().Sub(begin).Milliseconds()
		if err != nil {
			a.traceAsync(brokerName, times, nil, err)
			req.Producer.UpdateFaultItem(brokerName, latency, true)
			a.onExceptionImpl(ctx, req, cmd, times, err, true)
			return
		}
		res, perr := a.ProcessSendResponse(brokerName, req.Msg, req.Batch, resp, req.BrokerAddr)
		a.traceAsync(brokerName, times, res, perr)
		if perr != nil {
			req.Producer.UpdateFaultItem(brokerName, latency, true)
			a.onExceptionImpl(ctx, req, cmd, times, perr, false)
			return
		}
		req.Producer.UpdateFaultItem(brokerName, latency, false)
		req.Callback(res, nil)
	})
	if err != nil { // not sent (no connection, client shut down): Java's catch around invokeAsync
		a.traceAsync(brokerName, times, nil, err)
		req.Producer.UpdateFaultItem(brokerName, a.opts.Now().Sub(begin).Milliseconds(), true)
		a.onExceptionImpl(ctx, req, cmd, times, err, true)
	}
}

func (a *MQClientAPI) traceAsync(brokerName string, times int, res *SendResult, err error) {
	if !a.tr.Enabled() {
		return
	}
	attrs := []slog.Attr{slog.String("brokerName", brokerName), slog.Int("retry", times)}
	if err != nil {
		attrs = append(attrs, slog.String("error", ErrorKind(err)))
	} else {
		attrs = append(attrs, slog.String("status", res.SendStatus.String()),
			slog.Int("queueId", int(res.MessageQueue.QueueID)), slog.Int64("queueOffset", res.QueueOffset))
	}
	a.tr.Step("MQClientAPIImpl#sendMessageAsync", attrs...)
}

// onExceptionImpl retries a failed async send on another queue while retries remain and the
// failure allows it, else hands the error to the callback. Java: MQClientAPIImpl#onExceptionImpl.
func (a *MQClientAPI) onExceptionImpl(ctx context.Context, req *SendRequest, cmd *remoting.RemotingCommand,
	times int, cause error, needRetry bool) {
	times++
	if needRetry && times <= req.RetryTimesWhenSendFailed && ctx.Err() == nil {
		retry := *req
		if req.TopicPublishInfo != nil {
			if mq, ok := req.Producer.SelectOneMessageQueue(req.TopicPublishInfo, req.BrokerName); ok {
				retry.BrokerName = mq.BrokerName
			}
		}
		if req.Instance != nil {
			retry.BrokerAddr = req.Instance.FindBrokerAddressInPublish(retry.BrokerName)
		}
		a.log.Warn("async send msg by retry", "times", times, "topic", req.Header.Topic,
			"brokerAddr", retry.BrokerAddr, "brokerName", retry.BrokerName, "err", cause)
		// A command belongs to its channel once handed over: the retry is a new command (new
		// opaque) with the same header and body. Java: request.setOpaque(createNewRequestId()).
		next := remoting.NewRequest(cmd.Code, cmd.ExtFields, cmd.Body)
		a.sendMessageAsync(ctx, &retry, next, times)
		return
	}
	req.Callback(nil, cause)
}

// ProcessSendResponse turns a send response into a SendResult: SUCCESS → SEND_OK,
// FLUSH_DISK_TIMEOUT (10), FLUSH_SLAVE_TIMEOUT (12), SLAVE_NOT_AVAILABLE (11) → those statuses;
// any other code is a *remoting.RemoteError. MsgID is msg's UNIQ_KEY (the batch's, comma-joined);
// OffsetMsgID, queue id and queue offset come from the header; RegionID defaults to
// DefaultRegion; TraceOn is false only for "false".
// Java: MQClientAPIImpl#processSendResponse.
func (a *MQClientAPI) ProcessSendResponse(brokerName string, msg *primitive.Message, batch *MessageBatch,
	resp *remoting.RemotingCommand, addr string) (*SendResult, error) {
	status, ok := sendStatusOf(resp.Code)
	if !ok {
		return nil, remoteError(resp, addr)
	}
	var h protocol.SendMessageResponseHeader
	if err := protocol.DecodeHeader(resp.ExtFields, &h); err != nil {
		return nil, fmt.Errorf("send response from %s: %w", addr, err)
	}
	topic := ""
	uniq := ""
	switch {
	case batch != nil:
		topic = batch.Topic
		ids := make([]string, len(batch.Messages))
		for i, m := range batch.Messages {
			ids[i] = GetUniqID(m)
		}
		uniq = strings.Join(ids, ",")
	case msg != nil:
		topic = msg.Topic
		uniq = GetUniqID(msg)
	}
	region := resp.ExtFields[primitive.PropertyMsgRegion]
	if region == "" {
		region = protocol.DefaultRegionID
	}
	return &SendResult{
		SendStatus:    status,
		MsgID:         uniq,
		MessageQueue:  primitive.MessageQueue{Topic: topic, BrokerName: brokerName, QueueID: h.QueueID},
		QueueOffset:   h.QueueOffset,
		TransactionID: h.TransactionID,
		OffsetMsgID:   h.MsgID,
		RegionID:      region,
		TraceOn:       resp.ExtFields[primitive.PropertyTraceSwitch] != "false",
	}, nil
}

// SendHeartbeat sends HEART_BEAT (34) with hb as its body and returns the broker's version
// (the response's version field). A non-SUCCESS answer is a *remoting.RemoteError.
// Java: MQClientAPIImpl#sendHeartbeat.
func (a *MQClientAPI) SendHeartbeat(ctx context.Context, addr string, hb *protocol.HeartbeatData) (int32, error) {
	body, err := hb.Encode()
	if err != nil {
		return 0, fmt.Errorf("encode heartbeat: %w", err)
	}
	resp, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(protocol.HeartBeat, nil, body))
	if err != nil {
		return 0, err
	}
	return resp.Version, nil
}

// UnregisterClient sends UNREGISTER_CLIENT (35) for a producer or consumer group leaving.
// Java: MQClientAPIImpl#unregisterClient.
// The step is logged before the request goes out, so it comes before the broker's
// ConsumerManager#unregisterConsumer in a log.
func (a *MQClientAPI) UnregisterClient(ctx context.Context, addr, clientID, producerGroup, consumerGroup string) error {
	if a.tr.Enabled() {
		a.tr.Step("MQClientAPIImpl#unregisterClient", slog.String("clientId", clientID),
			slog.String("producerGroup", producerGroup), slog.String("consumerGroup", consumerGroup))
	}
	h := protocol.UnregisterClientRequestHeader{ClientID: clientID, ProducerGroup: producerGroup, ConsumerGroup: consumerGroup}
	_, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(protocol.UnregisterClient, protocol.EncodeHeader(&h), nil))
	return err
}

// GetConsumerIDListByGroup asks a broker for the clientIds of a consumer group's live members
// (GET_CONSUMER_LIST_BY_GROUP, 38). Java: MQClientAPIImpl#getConsumerIdListByGroup.
func (a *MQClientAPI) GetConsumerIDListByGroup(ctx context.Context, addr, group string) ([]string, error) {
	h := protocol.GetConsumerListByGroupRequestHeader{ConsumerGroup: group}
	resp, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(protocol.GetConsumerListByGroup, protocol.EncodeHeader(&h), nil))
	if err != nil {
		return nil, err
	}
	if len(resp.Body) == 0 {
		return nil, remoteError(resp, addr)
	}
	var body protocol.GetConsumerListByGroupResponseBody
	if err := protocol.DecodeJSONBody(resp.Body, &body); err != nil {
		return nil, err
	}
	return body.ConsumerIDList, nil
}

// invokeSuccess sends req and waits for the answer; an answer other than SUCCESS is a
// *remoting.RemoteError naming addr. For the requests whose only good answer is SUCCESS.
func (a *MQClientAPI) invokeSuccess(ctx context.Context, addr string, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	resp, err := a.client.InvokeSync(ctx, addr, req)
	if err != nil {
		return nil, err
	}
	if resp.Code != protocol.Success {
		return nil, remoteError(resp, addr)
	}
	return resp, nil
}

// ErrorKind names a send failure for step lines and tables, without addresses or ports:
// "timeout", "connect", "channelClosed", "shutdown", "code=N", "callTimeout", or "error".
func ErrorKind(err error) string {
	var re *remoting.RemoteError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return "code=" + strconv.Itoa(int(re.Code))
	case errors.Is(err, ErrCallTimeout):
		return "callTimeout"
	case errors.Is(err, remoting.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, remoting.ErrConnect):
		return "connect"
	case errors.Is(err, remoting.ErrChannelClosed):
		return "channelClosed"
	case errors.Is(err, remoting.ErrShutdown):
		return "shutdown"
	}
	return "error"
}

// timeoutCtx returns ctx bounded by d (ctx's own earlier deadline wins).
func timeoutCtx(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
