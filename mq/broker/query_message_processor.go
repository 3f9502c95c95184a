package broker

import (
	"fmt"
	"log/slog"
	"runtime"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// queryMessageThreadPoolNums is the worker count of QUERY_MESSAGE and VIEW_MESSAGE_BY_ID:
// Java's queryMessageThreadPoolNums default, 8 + cores (the key is not read yet).
var queryMessageThreadPoolNums = 8 + runtime.NumCPU()

// uniqueMsgQueryFlag is the extField that marks a query by UNIQ_KEY (msgId): the broker then
// caps the result at defaultQueryMaxNum. Java: MixAll#UNIQUE_MSG_QUERY_FLAG.
const uniqueMsgQueryFlag = "_UNIQUE_KEY_QUERY"

// QueryMessageProcessor answers QUERY_MESSAGE (12: messages by key through the index) and
// VIEW_MESSAGE_BY_ID (33: one record by CommitLog offset, the offset inside an offsetMsgId).
// Bodies are whole stored records back to back (decode with primitive.DecodeMessages).
// Mirrors org.apache.rocketmq.broker.processor.QueryMessageProcessor.
type QueryMessageProcessor struct {
	remoting.NeverRejects
	b *BrokerController
}

// NewQueryMessageProcessor returns the processor of b.
func NewQueryMessageProcessor(b *BrokerController) *QueryMessageProcessor {
	return &QueryMessageProcessor{b: b}
}

// ProcessRequest dispatches by code. Java: QueryMessageProcessor#processRequest.
func (p *QueryMessageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	switch req.Code {
	case protocol.QueryMessage:
		return p.queryMessage(req), nil
	case protocol.ViewMessageByID:
		return p.viewMessageByID(req), nil
	}
	return remoting.NewNotSupportedResponse(req), nil
}

// queryMessage looks the key up in the index. Response header: indexLastUpdateTimestamp (ms)
// and indexLastUpdatePhyoffset (bytes) of the newest index file; body: the records found
// (SUCCESS), or QUERY_NOT_FOUND (22) "can not find message, maybe time range not correct".
// With extField _UNIQUE_KEY_QUERY=true maxNum becomes defaultQueryMaxNum.
// Java: QueryMessageProcessor#queryMessage.
func (p *QueryMessageProcessor) queryMessage(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.QueryMessageRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("query message", err)
	}
	if req.ExtFields[uniqueMsgQueryFlag] == "true" {
		h.MaxNum = int32(p.b.storeCfg.DefaultQueryMaxNum)
	}
	r := p.b.messageStore.QueryMessage(h.Topic, h.Key, int(h.MaxNum), h.BeginTimestamp, h.EndTimestamp)
	if tr := p.b.tr; tr.Enabled() {
		tr.Step("QueryMessageProcessor#queryMessage", slog.String("topic", h.Topic), slog.String("key", h.Key),
			slog.Int("maxNum", int(h.MaxNum)), slog.Int("found", len(r.Messages)))
	}
	resp := remoting.NewResponse(protocol.QueryNotFound, "can not find message, maybe time range not correct")
	if r.BufferTotalSize > 0 {
		resp = remoting.NewResponse(protocol.Success, "")
		resp.Body = r.Body()
	}
	resp.ExtFields = map[string]string{
		"indexLastUpdateTimestamp": strconv.FormatInt(r.IndexLastUpdateTimestamp, 10),
		"indexLastUpdatePhyoffset": strconv.FormatInt(int64(r.IndexLastUpdatePhyoffset), 10),
	}
	return resp
}

// viewMessageByID answers the record at the header's offset (a CommitLog offset, bytes), or
// SYSTEM_ERROR "can not find message by the offset, N". Java: QueryMessageProcessor#viewMessageById.
func (p *QueryMessageProcessor) viewMessageByID(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.ViewMessageRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("view message", err)
	}
	offset := h.Offset
	rec, found := p.b.messageStore.SelectOneMessageByOffset(store.CommitLogOffset(offset))
	if tr := p.b.tr; tr.Enabled() {
		tr.Step("QueryMessageProcessor#viewMessageById", slog.Int64("offset", offset), slog.Bool("found", found))
	}
	if !found {
		return remoting.NewResponse(remoting.SystemError, fmt.Sprintf("can not find message by the offset, %d", offset))
	}
	resp := remoting.NewResponse(protocol.Success, "")
	resp.Body = rec
	return resp
}
