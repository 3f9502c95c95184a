package broker

import (
	"encoding/json"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// lockBatchMQ answers LOCK_BATCH_MQ (41): the body is a LockBatchRequestBody JSON
// {"consumerGroup":..,"clientId":..,"mqSet":[{"topic","brokerName","queueId"}]}; the answer's
// body is a LockBatchResponseBody {"lockOKMQSet":[...]} with the queues the client holds now.
// A body that does not decode, or names no consumerGroup or no clientId, is SYSTEM_ERROR and
// locks nothing. Java: AdminBrokerProcessor#lockBatchMQ.
//
// Deviation: 4.9 locks for whatever the body names; a lock held by client "" (or in group "")
// would keep the group's real members off the queues for 60 s, so such a body is refused.
func (p *AdminBrokerProcessor) lockBatchMQ(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	body, bad := decodeLockBatchBody(req, "lock")
	if bad != nil {
		return bad
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
// A body refused as LOCK_BATCH_MQ's is SYSTEM_ERROR. Java: AdminBrokerProcessor#unlockBatchMQ.
func (p *AdminBrokerProcessor) unlockBatchMQ(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	body, bad := decodeLockBatchBody(req, "unlock")
	if bad != nil {
		return bad
	}
	p.b.rebalanceLockManager.UnlockBatch(body.ConsumerGroup, body.MqSet, body.ClientID)
	return remoting.NewResponse(protocol.Success, "")
}

// decodeLockBatchBody decodes a LOCK_BATCH_MQ / UNLOCK_BATCH_MQ body (what is "lock" or
// "unlock", for the remark); bad is the SYSTEM_ERROR answer when it does not decode or lacks
// consumerGroup or clientId.
func decodeLockBatchBody(req *remoting.RemotingCommand, what string) (body protocol.LockBatchRequestBody, bad *remoting.RemotingCommand) {
	if err := protocol.DecodeJSONBody(req.Body, &body); err != nil {
		return body, remoting.NewResponse(protocol.SystemError, "bad "+what+" batch request body: "+err.Error())
	}
	if body.ConsumerGroup == "" || body.ClientID == "" {
		return body, remoting.NewResponse(protocol.SystemError,
			"bad "+what+" batch request body: consumerGroup and clientId are required")
	}
	return body, nil
}
