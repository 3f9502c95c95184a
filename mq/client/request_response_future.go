package client

import (
	"fmt"
	"sync"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// isReply tells whether msg is a reply (MSG_TYPE=reply), which travels as SEND_REPLY_MESSAGE_V2.
// Java: MQClientAPIImpl#sendMessage's isReply.
func isReply(msg *primitive.Message) bool {
	return msg != nil && msg.GetProperty(primitive.PropertyMessageType) == primitive.ReplyMessageFlag
}

// RequestResponseFuture is one request waiting for its reply: the broker pushes the reply
// (PUSH_REPLY_MESSAGE_TO_CLIENT, 326) and ClientRemotingProcessor hands it here by the
// request's CORRELATION_ID. Done is closed once, when the reply arrived or the wait failed
// (Fail); Reply and Err are valid after that.
// Mirrors org.apache.rocketmq.client.producer.RequestResponseFuture.
type RequestResponseFuture struct {
	CorrelationID string
	done          chan struct{}
	once          sync.Once
	reply         *primitive.Message
	err           error
}

// Done is closed when the future completed.
func (f *RequestResponseFuture) Done() <-chan struct{} { return f.done }

// Result returns the reply, or the error the wait failed with; call it after Done.
func (f *RequestResponseFuture) Result() (*primitive.Message, error) { return f.reply, f.err }

// complete sets the outcome once; later calls do nothing.
func (f *RequestResponseFuture) complete(reply *primitive.Message, err error) {
	f.once.Do(func() {
		f.reply, f.err = reply, err
		close(f.done)
	})
}

// Fail completes f with err (a failed send, a timeout) unless it completed already.
func (f *RequestResponseFuture) Fail(err error) { f.complete(nil, err) }

// RequestFutureTable holds the requests of one process waiting for replies, by CORRELATION_ID.
// Mirrors org.apache.rocketmq.client.producer.RequestFutureTable (Java's is static too: a reply
// names its request by correlation id only).
type RequestFutureTable struct {
	mu sync.Mutex
	m  map[string]*RequestResponseFuture
}

// requestFutures is the process's table.
var requestFutures = &RequestFutureTable{m: map[string]*RequestResponseFuture{}}

// Requests returns the process's RequestFutureTable.
func Requests() *RequestFutureTable { return requestFutures }

// Put registers a new future for correlationID and returns it.
func (t *RequestFutureTable) Put(correlationID string) *RequestResponseFuture {
	f := &RequestResponseFuture{CorrelationID: correlationID, done: make(chan struct{})}
	t.mu.Lock()
	t.m[correlationID] = f
	t.mu.Unlock()
	return f
}

// Remove forgets correlationID's future (after its reply, or when the requester gave up).
func (t *RequestFutureTable) Remove(correlationID string) {
	t.mu.Lock()
	delete(t.m, correlationID)
	t.mu.Unlock()
}

// Len is how many requests wait.
func (t *RequestFutureTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// take removes and returns correlationID's future, or nil.
func (t *RequestFutureTable) take(correlationID string) *RequestResponseFuture {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.m[correlationID]
	delete(t.m, correlationID)
	return f
}

// receiveReplyMessage: the broker pushed a reply (PUSH_REPLY_MESSAGE_TO_CLIENT, 326); it is
// decoded (zlib body when sysFlag says so), stamped with ARRIVE_TIME and handed to the future
// of its CORRELATION_ID. A header that does not decode or a body that does not inflate is
// answered SYSTEM_ERROR; a reply no request waits for is logged and answered SUCCESS (its
// requester timed out). Java: ClientRemotingProcessor#receiveReplyMessage.
func (p *ClientRemotingProcessor) receiveReplyMessage(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.ReplyMessageRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return remoting.NewResponse(protocol.SystemError, "receive reply message: "+err.Error()), nil
	}
	body := req.Body
	if h.SysFlag&primitive.CompressedFlag != 0 {
		var err error
		if body, err = primitive.Uncompress(body); err != nil {
			return remoting.NewResponse(protocol.SystemError, "receive reply message: "+err.Error()), nil
		}
	}
	msg := &primitive.Message{Topic: h.Topic, Flag: h.Flag, Body: body, Properties: primitive.UnmarshalProperties(h.Properties)}
	msg.PutProperty(primitive.PropertyReplyMessageArriveTime, fmt.Sprint(p.instance.Now().UnixMilli()))
	id := msg.GetProperty(primitive.PropertyCorrelationID)
	if f := requestFutures.take(id); f != nil {
		f.complete(msg, nil)
	} else {
		p.instance.log.Warn("receive reply message, but not matched any request", "correlationId", id, "replyHost", h.BornHost)
	}
	return remoting.NewResponse(protocol.Success, ""), nil
}

// RequestTimeoutError is the error of a request whose reply did not arrive within its
// timeout. Java: RequestTimeoutException.
type RequestTimeoutError struct {
	Topic   string
	Timeout time.Duration
}

func (e *RequestTimeoutError) Error() string {
	return fmt.Sprintf("send request message to %s OK, but wait reply message timeout %d ms", e.Topic, e.Timeout.Milliseconds())
}
