package client

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// PullCallback receives an asynchronous pull's outcome exactly once: a result, or an error.
// Mirrors org.apache.rocketmq.client.consumer.PullCallback (onSuccess / onException).
type PullCallback func(*PullResult, error)

// PullMessageAsync sends PULL_MESSAGE (11) and hands the answer, read by processPullResponse,
// to cb on a remoting goroutine. ctx's deadline is the pull's timeout (a push consumer uses
// 30 s, longer than the broker's 15 s hold). The error return is for a request that could not
// be sent; cb is then not called. Java: MQClientAPIImpl#pullMessageAsync.
func (a *MQClientAPI) PullMessageAsync(ctx context.Context, addr string, h *protocol.PullMessageRequestHeader, cb PullCallback) error {
	if a.tr.Enabled() {
		a.tr.Step("MQClientAPIImpl#pullMessageAsync", slog.String("topic", h.Topic), slog.Int("queueId", int(h.QueueID)),
			slog.Int64("queueOffset", h.QueueOffset), slog.Int("maxMsgNums", int(h.MaxMsgNums)),
			slog.Int("sysFlag", int(h.SysFlag)), slog.Int64("commitOffset", h.CommitOffset),
			slog.Int64("suspendTimeoutMillis", h.SuspendTimeoutMillis))
	}
	req := remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil)
	return a.client.InvokeAsync(ctx, addr, req, func(resp *remoting.RemotingCommand, err error) {
		if err != nil {
			cb(nil, err)
			return
		}
		res, perr := processPullResponse(resp, addr)
		cb(res, perr)
	})
}

// PullMessageSync is PullMessageAsync waiting for the answer. Java: MQClientAPIImpl#pullMessageSync.
func (a *MQClientAPI) PullMessageSync(ctx context.Context, addr string, h *protocol.PullMessageRequestHeader) (*PullResult, error) {
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.PullMessage, protocol.EncodeHeader(h), nil))
	if err != nil {
		return nil, err
	}
	return processPullResponse(resp, addr)
}

// processPullResponse maps the code: SUCCESS → FOUND, PULL_NOT_FOUND (19) → NO_NEW_MSG,
// PULL_RETRY_IMMEDIATELY (20) → NO_MATCHED_MSG, PULL_OFFSET_MOVED (21) → OFFSET_ILLEGAL;
// anything else is a *remoting.RemoteError. Java: MQClientAPIImpl#processPullResponse.
func processPullResponse(resp *remoting.RemotingCommand, addr string) (*PullResult, error) {
	st, ok := pullStatusOf(resp.Code)
	if !ok {
		return nil, remoteError(resp, addr)
	}
	var h protocol.PullMessageResponseHeader
	if err := protocol.DecodeHeader(resp.ExtFields, &h); err != nil {
		return nil, fmt.Errorf("pull response from %s: %w", addr, err)
	}
	return &PullResult{PullStatus: st, NextBeginOffset: h.NextBeginOffset, MinOffset: h.MinOffset,
		MaxOffset: h.MaxOffset, SuggestWhichBrokerID: h.SuggestWhichBrokerID, MessageBinary: resp.Body}, nil
}

// QueryConsumerOffset asks a broker for a group's committed offset of a queue
// (QUERY_CONSUMER_OFFSET, 14). found is false on QUERY_NOT_FOUND (22).
// Java: MQClientAPIImpl#queryConsumerOffset.
func (a *MQClientAPI) QueryConsumerOffset(ctx context.Context, addr string, h *protocol.QueryConsumerOffsetRequestHeader) (offset int64, found bool, err error) {
	resp, err := a.client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.QueryConsumerOffset, protocol.EncodeHeader(h), nil))
	if err != nil {
		return 0, false, err
	}
	switch resp.Code {
	case protocol.Success:
		var rh protocol.OffsetResponseHeader
		if err := protocol.DecodeHeader(resp.ExtFields, &rh); err != nil {
			return 0, false, fmt.Errorf("query consumer offset from %s: %w", addr, err)
		}
		return rh.Offset, true, nil
	case protocol.QueryNotFound:
		return -1, false, nil
	}
	return 0, false, remoteError(resp, addr)
}

// UpdateConsumerOffset commits a group's offset of a queue (UPDATE_CONSUMER_OFFSET, 15);
// oneway sends and forgets (what persistAll does). Java: MQClientAPIImpl#updateConsumerOffset
// and #updateConsumerOffsetOneway.
func (a *MQClientAPI) UpdateConsumerOffset(ctx context.Context, addr string, h *protocol.UpdateConsumerOffsetRequestHeader, oneway bool) error {
	req := remoting.NewRequest(protocol.UpdateConsumerOffset, protocol.EncodeHeader(h), nil)
	if oneway {
		return a.client.InvokeOneway(addr, req)
	}
	_, err := a.invokeSuccess(ctx, addr, req)
	return err
}

// GetMaxOffset asks for a queue's max offset (GET_MAX_OFFSET, 30): the ConsumeQueue index after
// the last message. Java: MQClientAPIImpl#getMaxOffset.
func (a *MQClientAPI) GetMaxOffset(ctx context.Context, addr string, mq primitive.MessageQueue) (int64, error) {
	h := protocol.GetMaxOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID, BrokerName: mq.BrokerName}
	return a.offsetCall(ctx, addr, protocol.GetMaxOffset, protocol.EncodeHeader(&h))
}

// GetMinOffset asks for a queue's min offset (GET_MIN_OFFSET, 31): the ConsumeQueue index of
// its oldest message still stored. Java: MQClientAPIImpl#getMinOffset.
func (a *MQClientAPI) GetMinOffset(ctx context.Context, addr string, mq primitive.MessageQueue) (int64, error) {
	h := protocol.GetMinOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID, BrokerName: mq.BrokerName}
	return a.offsetCall(ctx, addr, protocol.GetMinOffset, protocol.EncodeHeader(&h))
}

// SearchOffset asks for the first offset of a queue stored at or after timestamp (ms)
// (SEARCH_OFFSET_BY_TIMESTAMP, 29). Java: MQClientAPIImpl#searchOffset.
func (a *MQClientAPI) SearchOffset(ctx context.Context, addr string, mq primitive.MessageQueue, timestamp int64) (int64, error) {
	h := protocol.SearchOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID, Timestamp: timestamp, BrokerName: mq.BrokerName}
	return a.offsetCall(ctx, addr, protocol.SearchOffsetByTimestamp, protocol.EncodeHeader(&h))
}

func (a *MQClientAPI) offsetCall(ctx context.Context, addr string, code int32, ext map[string]string) (int64, error) {
	resp, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(code, ext, nil))
	if err != nil {
		return 0, err
	}
	var rh protocol.OffsetResponseHeader
	if err := protocol.DecodeHeader(resp.ExtFields, &rh); err != nil {
		return 0, fmt.Errorf("offset answer from %s: %w", addr, err)
	}
	return rh.Offset, nil
}

// ConsumerSendMessageBack returns a message the consumer failed to the broker
// (CONSUMER_SEND_MSG_BACK, 36): the broker stores a copy in %RETRY%group with delay level
// 3 + reconsumeTimes (or delayLevel when > 0), or in %DLQ%group past maxReconsumeTimes.
// Java: MQClientAPIImpl#consumerSendMessageBack.
func (a *MQClientAPI) ConsumerSendMessageBack(ctx context.Context, addr string, h *protocol.ConsumerSendMsgBackRequestHeader) error {
	_, err := a.invokeSuccess(ctx, addr, remoting.NewRequest(protocol.ConsumerSendMsgBack, protocol.EncodeHeader(h), nil))
	return err
}
