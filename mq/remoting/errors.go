package remoting

import (
	"errors"
	"fmt"
)

// Package sentinels. Errors returned by this package wrap one of them with context
// (address, code, opaque), so callers test with errors.Is.
var (
	// ErrMalformedFrame: the frame bytes do not decode (short frame, header length beyond the
	// frame, unknown serialize type, bad JSON or binary header). The connection is closed.
	// Java: RemotingCommand#decode failing inside NettyDecoder.
	ErrMalformedFrame = errors.New("remoting: malformed frame")
	// ErrFrameTooLarge: a frame's length exceeds MaxFrameSize; the connection is closed.
	// Java: NettyDecoder (LengthFieldBasedFrameDecoder's TooLongFrameException).
	ErrFrameTooLarge = errors.New("remoting: frame too large")
	// ErrChannelClosed: the connection is closed (or closing) and takes no more frames, or it
	// closed while a request waited for its response. Java: RemotingSendRequestException.
	ErrChannelClosed = errors.New("remoting: channel closed")
	// ErrTimeout: the caller's context deadline passed before the response arrived. The error
	// also wraps context.DeadlineExceeded. Java: RemotingTimeoutException.
	ErrTimeout = errors.New("remoting: invoke timeout")
	// ErrConnect: the client could not open a connection to the address.
	// Java: RemotingConnectException.
	ErrConnect = errors.New("remoting: connect failed")
	// ErrShutdown: the client or server has been shut down.
	ErrShutdown = errors.New("remoting: shut down")
	// ErrDuplicateOpaque: a request with this opaque already waits for a response on the
	// channel (a command was sent twice). A programmer error, reported rather than mis-matched.
	ErrDuplicateOpaque = errors.New("remoting: opaque already pending")
)

// RemoteError is a response whose code is not SUCCESS, as an error: use resp.Err() to get one
// and errors.As to read it back. It is the one remote-failure type of server and client: the
// client (mq/client) returns it for every broker or name-server answer it treats as a failure,
// with Addr set to the address that answered.
// Java: MQBrokerException / MQClientException carrying responseCode and errorMessage.
type RemoteError struct {
	// Code is the response code (RemotingSysResponseCode / ResponseCode). Java: responseCode.
	Code int32
	// Remark is the response's remark. Java: errorMessage.
	Remark string
	// Addr is the address of the server that answered ("" when not known). Java:
	// MQBrokerException#brokerAddr.
	Addr string
}

// Error renders "CODE: 1 DESC: remark" like Java's MQBrokerException message, followed by
// " BROKER: addr" when Addr is known.
func (e *RemoteError) Error() string {
	if e.Addr != "" {
		return fmt.Sprintf("CODE: %d DESC: %s BROKER: %s", e.Code, e.Remark, e.Addr)
	}
	return fmt.Sprintf("CODE: %d DESC: %s", e.Code, e.Remark)
}
