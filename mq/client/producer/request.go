package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// RequestCallback gets the reply of an asynchronous request, or the error that ended it (the
// send failed, or a *client.RequestTimeoutError), exactly once.
// Java: RequestCallback#onSuccess / #onException.
type RequestCallback func(reply *primitive.Message, err error)

// Request sends msg as a request (request/reply, RocketMQ 4.6+) and waits up to timeout for
// the reply a consumer sends with client.CreateReplyMessage: the broker pushes it to this
// client (PUSH_REPLY_MESSAGE_TO_CLIENT), matched by CORRELATION_ID. msg gains CORRELATION_ID,
// REPLY_TO_CLIENT (this client's id) and TTL (timeout in ms). A failed send is returned as
// the send's error; no reply within timeout is a *client.RequestTimeoutError; ctx ending
// first is ctx's error. Java: DefaultMQProducerImpl#request(Message, long).
func (p *DefaultMQProducer) Request(ctx context.Context, msg *primitive.Message, timeout time.Duration) (*primitive.Message, error) {
	f, err := p.prepareSendRequest(msg, timeout)
	if err != nil {
		return nil, err
	}
	defer client.Requests().Remove(f.CorrelationID)
	if _, err := p.Send(ctx, msg); err != nil {
		return nil, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-f.Done():
		return f.Result()
	case <-t.C:
		return nil, &client.RequestTimeoutError{Topic: msg.Topic, Timeout: timeout}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// RequestAsync sends msg as a request (see Request) in the background; cb gets the reply, or
// the send's error, or a *client.RequestTimeoutError after timeout, exactly once. It returns
// an error (and cb is not called) only when the producer is not running or cb is nil.
// Java: DefaultMQProducerImpl#request(Message, RequestCallback, long).
func (p *DefaultMQProducer) RequestAsync(ctx context.Context, msg *primitive.Message, timeout time.Duration, cb RequestCallback) error {
	if cb == nil {
		return ErrNilCallback
	}
	f, err := p.prepareSendRequest(msg, timeout)
	if err != nil {
		return err
	}
	id := f.CorrelationID
	timer := time.AfterFunc(timeout, func() {
		client.Requests().Remove(id)
		f.Fail(&client.RequestTimeoutError{Topic: msg.Topic, Timeout: timeout})
	})
	err = p.SendAsync(ctx, msg, func(_ *SendResult, err error) {
		if err != nil {
			client.Requests().Remove(id)
			f.Fail(err)
		}
	})
	if err != nil { // refused before it went out: cb is not called
		timer.Stop()
		client.Requests().Remove(id)
		return err
	}
	go func() { // ends with the reply, the send's failure or the timeout
		<-f.Done()
		timer.Stop()
		cb(f.Result())
	}()
	return err
}

// prepareSendRequest marks msg as a request and registers its future. When the producer knew
// no route of the topic yet, it looks the route up and sends a heartbeat to all brokers, so
// the broker that pushes the reply knows this client's channel before the reply comes.
// Java: DefaultMQProducerImpl#prepareSendRequest.
func (p *DefaultMQProducer) prepareSendRequest(msg *primitive.Message, timeout time.Duration) (*client.RequestResponseFuture, error) {
	if err := p.makeSureStateOK(); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("producer: request timeout must be > 0, got %v", timeout)
	}
	id := client.CreateUniqID()
	msg.PutProperty(primitive.PropertyCorrelationID, id)
	msg.PutProperty(primitive.PropertyMessageReplyToClient, p.instance.ClientID())
	msg.PutProperty(primitive.PropertyMessageTTL, fmt.Sprint(timeout.Milliseconds()))
	p.tpMu.RLock()
	known := p.topicPublishInfoTable[msg.Topic].OK()
	p.tpMu.RUnlock()
	if !known {
		p.tryToFindTopicPublishInfo(msg.Topic)
		p.instance.SendHeartbeatToAllBrokerWithLock()
	}
	return client.Requests().Put(id), nil
}
