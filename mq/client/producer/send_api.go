package producer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

var (
	// ErrNilCallback: an asynchronous send needs a callback.
	ErrNilCallback = errors.New("producer: nil send callback")
	// ErrAsyncQueueFull: 50000 asynchronous sends wait already. Java: RejectedExecutionException
	// ("executor rejected").
	ErrAsyncQueueFull = errors.New("producer: async sender executor rejected the send")
)

// withTimeout bounds ctx by SendMsgTimeout (an earlier deadline of ctx wins).
func (p *DefaultMQProducer) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.cfg.SendMsgTimeout)
}

// Send sends msg and waits for the broker's answer, choosing the queue and retrying up to
// RetryTimesWhenSendFailed more queues (see sendDefaultImpl). The message gets a UNIQ_KEY
// property if it has none (its SendResult.MsgID). The send's time budget is SendMsgTimeout, or
// ctx's earlier deadline. Java: DefaultMQProducer#send(Message).
func (p *DefaultMQProducer) Send(ctx context.Context, msg *primitive.Message) (*SendResult, error) {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	return p.sendDefaultImpl(ctx, &outgoing{msg: msg}, client.Sync, nil)
}

// SendAsync sends msg in the background and calls cb exactly once with the result or the
// error; a transport failure is retried up to RetryTimesWhenSendAsyncFailed times on another
// queue. It returns an error (and cb is not called) only when the producer is not running or cb
// is nil. The budget is SendMsgTimeout (or ctx's earlier deadline); cancelling ctx fails the send.
// Java: DefaultMQProducer#send(Message, SendCallback).
func (p *DefaultMQProducer) SendAsync(ctx context.Context, msg *primitive.Message, cb SendCallback) error {
	return p.async(ctx, cb, func(ctx context.Context, cb SendCallback) (*SendResult, error) {
		return p.sendDefaultImpl(ctx, &outgoing{msg: msg}, client.Async, cb)
	})
}

// SendOneway sends msg without waiting for an answer (no result, no retry).
// Java: DefaultMQProducer#sendOneway(Message).
func (p *DefaultMQProducer) SendOneway(ctx context.Context, msg *primitive.Message) error {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	_, err := p.sendDefaultImpl(ctx, &outgoing{msg: msg}, client.Oneway, nil)
	return err
}

// async queues one asynchronous send on the async sender executor: cb is called exactly once,
// either by the send's callback or with the error that stopped the send before it went out.
// A full queue refuses the send (ErrAsyncQueueFull; cb is not called).
// Java: the asyncSenderExecutor task of DefaultMQProducerImpl#send(msg, callback, timeout).
func (p *DefaultMQProducer) async(ctx context.Context, cb SendCallback,
	send func(ctx context.Context, cb SendCallback) (*SendResult, error)) error {
	if cb == nil {
		return ErrNilCallback
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.makeSureStateOK(); err != nil {
		return err
	}
	if p.closing {
		return fmt.Errorf("%w: the producer is shutting down", client.ErrServiceState)
	}
	task := func() {
		ctx, cancel := p.withTimeout(ctx)
		done := func(res *SendResult, err error) {
			cancel()
			defer p.asyncWG.Done()
			cb(res, err)
		}
		if _, err := send(ctx, done); err != nil {
			done(nil, err)
		}
	}
	p.asyncWG.Add(1)
	select {
	case p.asyncQueue <- task:
		return nil
	default:
		p.asyncWG.Done()
		return ErrAsyncQueueFull
	}
}

// SendToQueue sends msg to the queue mq (whose topic must be msg's), without queue selection,
// retries or fault items. Java: DefaultMQProducer#send(Message, MessageQueue).
func (p *DefaultMQProducer) SendToQueue(ctx context.Context, msg *primitive.Message, mq primitive.MessageQueue) (*SendResult, error) {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	if err := p.checkDirect(msg, mq); err != nil {
		return nil, err
	}
	return p.sendKernelImpl(ctx, &outgoing{msg: msg}, mq, client.Sync, nil, nil)
}

// SendToQueueAsync is SendToQueue with a callback (called exactly once).
// Java: DefaultMQProducer#send(Message, MessageQueue, SendCallback).
func (p *DefaultMQProducer) SendToQueueAsync(ctx context.Context, msg *primitive.Message, mq primitive.MessageQueue, cb SendCallback) error {
	return p.async(ctx, cb, func(ctx context.Context, cb SendCallback) (*SendResult, error) {
		if err := p.checkDirect(msg, mq); err != nil {
			return nil, err
		}
		return p.sendKernelImpl(ctx, &outgoing{msg: msg}, mq, client.Async, cb, nil)
	})
}

// SendOnewayToQueue is SendToQueue without an answer.
// Java: DefaultMQProducer#sendOneway(Message, MessageQueue).
func (p *DefaultMQProducer) SendOnewayToQueue(ctx context.Context, msg *primitive.Message, mq primitive.MessageQueue) error {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	if err := p.checkDirect(msg, mq); err != nil {
		return err
	}
	_, err := p.sendKernelImpl(ctx, &outgoing{msg: msg}, mq, client.Oneway, nil, nil)
	return err
}

func (p *DefaultMQProducer) checkDirect(msg *primitive.Message, mq primitive.MessageQueue) error {
	if err := p.makeSureStateOK(); err != nil {
		return err
	}
	if err := p.checkMessage(msg, len(msgBody(msg))); err != nil {
		return err
	}
	if msg.Topic != mq.Topic {
		return fmt.Errorf("%w: message's topic not equal mq's topic", client.ErrMessageIllegal)
	}
	return nil
}

func msgBody(m *primitive.Message) []byte {
	if m == nil {
		return nil
	}
	return m.Body
}

// SendWithSelector sends msg to the queue selector picks among the topic's writable queues for
// arg (no retries, no fault items): same arg, same queue — ordered messages.
// Java: DefaultMQProducer#send(Message, MessageQueueSelector, Object).
func (p *DefaultMQProducer) SendWithSelector(ctx context.Context, msg *primitive.Message, selector MessageQueueSelector, arg any) (*SendResult, error) {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	return p.sendSelectImpl(ctx, msg, selector, arg, client.Sync, nil)
}

// SendWithSelectorAsync is SendWithSelector with a callback (called exactly once).
// Java: DefaultMQProducer#send(Message, MessageQueueSelector, Object, SendCallback).
func (p *DefaultMQProducer) SendWithSelectorAsync(ctx context.Context, msg *primitive.Message, selector MessageQueueSelector, arg any, cb SendCallback) error {
	return p.async(ctx, cb, func(ctx context.Context, cb SendCallback) (*SendResult, error) {
		return p.sendSelectImpl(ctx, msg, selector, arg, client.Async, cb)
	})
}

// SendOnewayWithSelector is SendWithSelector without an answer.
// Java: DefaultMQProducer#sendOneway(Message, MessageQueueSelector, Object).
func (p *DefaultMQProducer) SendOnewayWithSelector(ctx context.Context, msg *primitive.Message, selector MessageQueueSelector, arg any) error {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	_, err := p.sendSelectImpl(ctx, msg, selector, arg, client.Oneway, nil)
	return err
}

// sendSelectImpl asks selector for a queue of the topic's route and sends there, once: a
// failed send is not retried on another queue (that would break the order of arg's messages),
// and no fault item steers it. The step names the queue chosen.
// Java: DefaultMQProducerImpl#sendSelectImpl.
func (p *DefaultMQProducer) sendSelectImpl(ctx context.Context, msg *primitive.Message, selector MessageQueueSelector,
	arg any, mode client.CommunicationMode, cb SendCallback) (*SendResult, error) {
	if err := p.makeSureStateOK(); err != nil {
		return nil, err
	}
	if err := p.checkMessage(msg, len(msgBody(msg))); err != nil {
		return nil, err
	}
	if selector == nil {
		return nil, fmt.Errorf("%w: nil message queue selector", client.ErrMessageIllegal)
	}
	tp := p.tryToFindTopicPublishInfo(msg.Topic)
	if !tp.OK() {
		return nil, fmt.Errorf("%w: %s", client.ErrNoRouteInfo, msg.Topic)
	}
	mq := selector.Select(append([]primitive.MessageQueue(nil), tp.MessageQueueList...), msg, arg)
	if p.tr.Enabled() {
		p.tr.Step("MessageQueueSelector#select", slog.String("topic", msg.Topic), slog.String("arg", fmt.Sprint(arg)),
			slog.Int("queues", len(tp.MessageQueueList)), slog.String("brokerName", mq.BrokerName), slog.Int("queueId", int(mq.QueueID)))
	}
	if mq.Topic == "" {
		return nil, fmt.Errorf("%w: select message queue return null", client.ErrMessageIllegal)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: sendSelectImpl call timeout: %w", client.ErrCallTimeout, err)
	}
	return p.sendKernelImpl(ctx, &outgoing{msg: msg}, mq, mode, cb, nil)
}

// batch checks msgs, gives each a UNIQ_KEY and encodes them. Java: DefaultMQProducer#batch.
func (p *DefaultMQProducer) batch(msgs []*primitive.Message) (*outgoing, error) {
	b, err := client.GenerateFromList(msgs)
	if err != nil {
		return nil, err
	}
	for _, m := range b.Messages {
		if err := p.checkMessage(m, len(m.Body)); err != nil {
			return nil, err
		}
		client.SetUniqID(m)
	}
	body, err := b.Encode()
	if err != nil {
		return nil, err
	}
	return &outgoing{msg: &b.Message, batch: b, body: body}, nil
}

// SendBatch sends msgs (one topic, same WAIT flag, no delay, not a %RETRY% topic) as one
// SEND_BATCH_MESSAGE to one queue, with Send's queue selection and retries. SendResult.MsgID
// holds the messages' UNIQ_KEYs and OffsetMsgID their offsetMsgIds, comma-separated; QueueOffset
// is the first message's. Java: DefaultMQProducer#send(Collection<Message>).
func (p *DefaultMQProducer) SendBatch(ctx context.Context, msgs []*primitive.Message) (*SendResult, error) {
	o, err := p.batch(msgs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	return p.sendDefaultImpl(ctx, o, client.Sync, nil)
}

// SendBatchAsync is SendBatch with a callback (called exactly once, also for a batch that
// fails its checks). Java: DefaultMQProducer#send(Collection<Message>, SendCallback).
func (p *DefaultMQProducer) SendBatchAsync(ctx context.Context, msgs []*primitive.Message, cb SendCallback) error {
	return p.async(ctx, cb, func(ctx context.Context, cb SendCallback) (*SendResult, error) {
		o, err := p.batch(msgs)
		if err != nil {
			return nil, err
		}
		return p.sendDefaultImpl(ctx, o, client.Async, cb)
	})
}

// SendBatchToQueue sends msgs as one batch to mq. Java: DefaultMQProducer#send(Collection<Message>, MessageQueue).
func (p *DefaultMQProducer) SendBatchToQueue(ctx context.Context, msgs []*primitive.Message, mq primitive.MessageQueue) (*SendResult, error) {
	o, err := p.batch(msgs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	if err := p.makeSureStateOK(); err != nil {
		return nil, err
	}
	if o.msg.Topic != mq.Topic {
		return nil, fmt.Errorf("%w: message's topic not equal mq's topic", client.ErrMessageIllegal)
	}
	if err := p.checkMessage(o.msg, len(o.body)); err != nil {
		return nil, err
	}
	return p.sendKernelImpl(ctx, o, mq, client.Sync, nil, nil)
}

// FetchPublishMessageQueues returns the writable queues of topic's route (fetching it if needed).
// Java: DefaultMQProducer#fetchPublishMessageQueues.
func (p *DefaultMQProducer) FetchPublishMessageQueues(topic string) ([]primitive.MessageQueue, error) {
	if err := p.makeSureStateOK(); err != nil {
		return nil, err
	}
	tp := p.tryToFindTopicPublishInfo(topic)
	if !tp.OK() {
		return nil, fmt.Errorf("%w: %s", client.ErrNoRouteInfo, topic)
	}
	return append([]primitive.MessageQueue(nil), tp.MessageQueueList...), nil
}
