package client

import (
	"context"
	"encoding/json"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// LockBatchMQ asks the broker at addr to lock body's queues for body's client (LOCK_BATCH_MQ,
// 41, a LockBatchRequestBody JSON) and returns the queues the client holds now (the answer's
// lockOKMQSet). A queue another live client holds is not among them. An answer other than
// SUCCESS is a *remoting.RemoteError; a body that does not decode wraps protocol.ErrBadBody.
// Java: MQClientAPIImpl#lockBatchMQ.
func (a *MQClientAPI) LockBatchMQ(ctx context.Context, addr string, body *protocol.LockBatchRequestBody) ([]primitive.MessageQueue, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	resp, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(protocol.LockBatchMQ, nil, raw))
	if err != nil {
		return nil, err
	}
	var out protocol.LockBatchResponseBody
	if err := protocol.DecodeJSONBody(resp.Body, &out); err != nil {
		return nil, err
	}
	return out.LockOKMQSet, nil
}

// UnlockBatchMQ asks the broker at addr to free body's queues held by body's client
// (UNLOCK_BATCH_MQ, 42, an UnlockBatchRequestBody JSON); oneway sends it without waiting for
// the answer. Java: MQClientAPIImpl#unlockBatchMQ.
func (a *MQClientAPI) UnlockBatchMQ(ctx context.Context, addr string, body *protocol.UnlockBatchRequestBody, oneway bool) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := remoting.NewRequest(protocol.UnlockBatchMQ, nil, raw)
	if oneway {
		return a.client.InvokeOneway(addr, req)
	}
	_, err = a.invokeSuccess(ctx, addr, req)
	return err
}
