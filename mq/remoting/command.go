package remoting

import (
	"fmt"
	"sync/atomic"
)

// Generic response codes: the only codes this package knows. Business codes live in
// mq/remoting/protocol. Values pinned by TestWireConstants.
// Java: org.apache.rocketmq.remoting.protocol.RemotingSysResponseCode.
const (
	Success                 int32 = 0
	SystemError             int32 = 1
	SystemBusy              int32 = 2
	RequestCodeNotSupported int32 = 3
)

// Flag bits of RemotingCommand.Flag.
// Java: RemotingCommand.RPC_TYPE (bit 0), RemotingCommand.RPC_ONEWAY (bit 1).
const (
	// FlagResponse (bit 0) marks a response; clear means request.
	FlagResponse int32 = 1
	// FlagOneway (bit 1) marks a request the receiver must not answer.
	FlagOneway int32 = 2
)

// Serialize types: the high byte of the frame's header-length word.
// Java: org.apache.rocketmq.remoting.protocol.SerializeType.
const (
	SerializeJSON     byte = 0
	SerializeRocketMQ byte = 1
)

// DefaultVersion is the `version` our commands carry: 409, the ordinal of MQVersion.Version.V4_9_8,
// which a 4.9.8 broker and name server put on every command they create. The name server uses
// it on GET_ROUTEINFO_BY_TOPIC (≥ 401 → standard JSON keys).
const DefaultVersion int32 = 409

// LanguageJava is the `language` our commands carry (we answer like a Java 4.9.8 server).
const LanguageJava = "JAVA"

// languageNames maps LanguageCode ordinals (the byte in the ROCKETMQ binary header) to the
// names JSON headers carry. Java: org.apache.rocketmq.remoting.protocol.LanguageCode.
var languageNames = [...]string{
	"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST",
}

// languageOther is LanguageCode.OTHER, written for a language name the table does not know.
const languageOther byte = 7

// requestID is the process-wide opaque counter: the first request gets 1 (as client-go's).
// Java: RemotingCommand.requestId (an AtomicInteger starting at 0).
var requestID atomic.Int32

// RemotingCommand is one request or response: the decoded frame header plus body.
// Mirrors org.apache.rocketmq.remoting.protocol.RemotingCommand.
//
// Code is a request code (requests) or response code (responses); client-go parses it as int16,
// so codes must fit in int16. Opaque matches a response to its request. ExtFields carries the
// "custom header" (header fields by name, values always strings on the wire). Body is opaque
// bytes; on a decoded command it aliases the frame buffer. A command handed to a Channel (write,
// invoke) belongs to the channel until written: do not modify it afterwards.
type RemotingCommand struct {
	Code      int32
	Language  string // "JAVA", "GO", ...; empty encodes as "JAVA"
	Version   int32
	Opaque    int32
	Flag      int32
	Remark    string
	ExtFields map[string]string
	// CustomHeader, on a request read by a Server, holds the extFields members its processor
	// decodes itself (a HeaderDecoder): those members are not in ExtFields. nil otherwise.
	CustomHeader  CustomHeader
	Body          []byte
	SerializeType byte // SerializeJSON or SerializeRocketMQ: how the header is (or was) encoded
}

// CustomHeader takes a request's extFields members one by one while its JSON header is
// decoded, in place of the ExtFields map: the typed header of the request's processor, so a
// request on the per-message path (a send) costs no map. Mirrors the role of CommandCustomHeader
// (RemotingCommand#decodeCommandCustomHeader fills it from the map; here from the frame).
type CustomHeader interface {
	// SetExtField keeps one member and reports whether key is one of the header's fields;
	// false: the member goes to ExtFields.
	SetExtField(key, value string) bool
}

// NewRequest returns a request with a fresh opaque from the process-wide counter, language JAVA
// and version 409. ext may be nil. Java: RemotingCommand#createRequestCommand.
func NewRequest(code int32, ext map[string]string, body []byte) *RemotingCommand {
	return &RemotingCommand{
		Code:      code,
		Language:  LanguageJava,
		Version:   DefaultVersion,
		Opaque:    requestID.Add(1),
		ExtFields: ext,
		Body:      body,
	}
}

// NewResponse returns a response (flag bit 0 set) with code and remark; the server sets its
// opaque from the request (ResponseTo). Java: RemotingCommand#createResponseCommand.
func NewResponse(code int32, remark string) *RemotingCommand {
	return &RemotingCommand{
		Code:     code,
		Language: LanguageJava,
		Version:  DefaultVersion,
		Flag:     FlagResponse,
		Remark:   remark,
	}
}

// NotSupportedRemark is the remark of the answer to a request code nobody handles.
// Java: NettyRemotingAbstract#processRequestCommand ("request type %d not supported").
func NotSupportedRemark(code int32) string { return fmt.Sprintf("request type %d not supported", code) }

// NewNotSupportedResponse is REQUEST_CODE_NOT_SUPPORTED (3) for req's code, with Java's remark:
// what the server answers a code without processor, and what a processor answers a code it
// was not registered for.
func NewNotSupportedResponse(req *RemotingCommand) *RemotingCommand {
	return NewResponse(RequestCodeNotSupported, NotSupportedRemark(req.Code))
}

// IsResponse reports flag bit 0. Java: RemotingCommand#isResponseType.
func (c *RemotingCommand) IsResponse() bool { return c.Flag&FlagResponse != 0 }

// IsOneway reports flag bit 1. Java: RemotingCommand#isOnewayRPC.
func (c *RemotingCommand) IsOneway() bool { return c.Flag&FlagOneway != 0 }

// MarkResponse sets flag bit 0. Java: RemotingCommand#markResponseType.
func (c *RemotingCommand) MarkResponse() { c.Flag |= FlagResponse }

// MarkOneway sets flag bit 1. Java: RemotingCommand#markOnewayRPC.
func (c *RemotingCommand) MarkOneway() { c.Flag |= FlagOneway }

// ResponseTo makes c the answer to req: it copies req's opaque and serialize type (Java answers
// in the type of the request) and sets the response flag. It returns c.
// Java: NettyRemotingAbstract#processRequestCommand (response.setOpaque, markResponseType).
func (c *RemotingCommand) ResponseTo(req *RemotingCommand) *RemotingCommand {
	c.Opaque = req.Opaque
	c.SerializeType = req.SerializeType
	c.Flag |= FlagResponse
	return c
}

// AddExtField sets one extFields entry, creating the map if needed. Java: RemotingCommand#addExtField.
func (c *RemotingCommand) AddExtField(key, value string) {
	if c.ExtFields == nil {
		c.ExtFields = make(map[string]string, 8)
	}
	c.ExtFields[key] = value
}

// Err returns nil for a SUCCESS command and a *RemoteError holding Code and Remark otherwise.
// Callers decide which codes are failures: many non-zero codes are ordinary outcomes
// (PULL_NOT_FOUND, QUERY_NOT_FOUND), so InvokeSync never turns a response into an error itself.
func (c *RemotingCommand) Err() error {
	if c.Code == Success {
		return nil
	}
	return &RemoteError{Code: c.Code, Remark: c.Remark}
}

// String is for logs: code, opaque, flag, remark, extFields and the custom header, if any.
func (c *RemotingCommand) String() string {
	if c.CustomHeader != nil {
		return fmt.Sprintf("RemotingCommand [code=%d, language=%s, version=%d, opaque=%d, flag(B)=%b, remark=%s, extFields=%v, customHeader=%+v, bodyLen=%d]",
			c.Code, c.Language, c.Version, c.Opaque, c.Flag, c.Remark, c.ExtFields, c.CustomHeader, len(c.Body))
	}
	return fmt.Sprintf("RemotingCommand [code=%d, language=%s, version=%d, opaque=%d, flag(B)=%b, remark=%s, extFields=%v, bodyLen=%d]",
		c.Code, c.Language, c.Version, c.Opaque, c.Flag, c.Remark, c.ExtFields, len(c.Body))
}
