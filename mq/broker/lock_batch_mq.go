package broker

import (
	"encoding/json"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// lockBatchMQ answers LOCK_BATCH_MQ (41): the body is a LockBatchRequestBody JSON
// {"consumerGroup":..,"clientId":..,"mqSet":[{"topic","brokerName","queueId"}]}; the answer's
// body is a LockBatchResponseBody {"lockOKMQSet":[...]} with the queues the client holds now.
// A body that does not decode is SYSTEM_ERROR. Java: AdminBrokerProcessor#lockBatchMQ.
func (p *AdminBrokerProcessor) lockBatchMQ(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var body protocol.LockBatchRequestBody
	if err := protocol.DecodeJSONBody(req.Body, &body); err != nil {
		return remoting.NewResponse(protocol.SystemError, "bad lock batch request body: "+err.Error())
	}
	locked := p.b.rebalanceLockManager.TryLockBatch(body.ConsumerGroup, body.MqSet, body.ClientID)
	out, err := json.Marshal(protocol.LockBatchResponseBody{LockOKMQSet: locked})
	if err != nil {
		return remoting.NewResponse(protocol.SystemError, err.Error())
	}
	resp := remoting.NewResponse(protocol.Success, "")
	resp.Body = out
	return resp
}

// unlockBatchMQ answers UNLOCK_BATCH_MQ (42): the body is an UnlockBatchRequestBody JSON (as
// LOCK_BATCH_MQ's); the queues the client holds are freed; the answer is SUCCESS with no body.
// Java: AdminBrokerProcessor#unlockBatchMQ.
func (p *AdminBrokerProcessor) unlockBatchMQ(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var body protocol.UnlockBatchRequestBody
	if err := protocol.DecodeJSONBody(req.Body, &body); err != nil {
		return remoting.NewResponse(protocol.SystemError, "bad unlock batch request body: "+err.Error())
	}
	p.b.rebalanceLockManager.UnlockBatch(body.ConsumerGroup, body.MqSet, body.ClientID)
	return remoting.NewResponse(protocol.Success, "")
}
