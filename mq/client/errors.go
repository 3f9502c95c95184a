package client

import (
	"errors"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// Package sentinels. Errors returned by mq/client and mq/client/producer wrap one of them with
// context (topic, broker, attempt count) and, where there is one, the underlying cause, so callers
// test with errors.Is and read a broker's or name server's code with errors.As(*remoting.RemoteError)
// (the one remote-error type of server and client; Addr names the broker that answered).
var (
	// ErrServiceState: the producer, consumer or instance is not running (not started, start
	// failed, or shut down). Java: MQClientException "The producer service state not OK".
	ErrServiceState = errors.New("client: service state not OK")
	// ErrGroupExists: a producer or consumer of the same group is already registered with the
	// instance. Java: MQClientException "The producer group[...] has been created before".
	ErrGroupExists = errors.New("client: group already registered with this client instance")
	// ErrIllegalConfig: a producer or consumer config that cannot start (blank or invalid group,
	// the reserved DEFAULT_PRODUCER group, no name server). Java: MQClientException from checkConfig.
	ErrIllegalConfig = errors.New("client: illegal config")
	// ErrMessageIllegal: the message fails the client-side checks (topic, body, size, batch
	// rules). Java: MQClientException with ResponseCode.MESSAGE_ILLEGAL (Validators#checkMessage).
	ErrMessageIllegal = errors.New("client: message illegal")
	// ErrNoRouteInfo: no name server knows a route for the topic (and the TBW102 fallback found
	// none either). Java: MQClientException "No route info of this topic".
	ErrNoRouteInfo = errors.New("client: no route info of this topic")
	// ErrNoNameServer: the client has no name server address.
	ErrNoNameServer = errors.New("client: no name server address")
	// ErrBrokerNotExist: the chosen queue's broker has no master address in the client's tables.
	// Java: MQClientException "The broker[...] not exist".
	ErrBrokerNotExist = errors.New("client: broker not exist")
	// ErrSendFailed: every attempt of a send failed; the last attempt's error is wrapped too.
	// Java: MQClientException "Send [n] times, still failed".
	ErrSendFailed = errors.New("client: send failed")
	// ErrCallTimeout: the send's time budget ran out before an attempt could start.
	// Java: RemotingTooMuchRequestException "sendDefaultImpl call timeout".
	ErrCallTimeout = errors.New("client: call timeout")
)

// remoteError is a broker's or name server's answer whose code the client treats as a failure
// (for a send: anything but SUCCESS, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT,
// SLAVE_NOT_AVAILABLE), as the one remote-error type, *remoting.RemoteError, with the address
// that answered. Java: new MQBrokerException(response.getCode(), response.getRemark(), addr).
func remoteError(resp *remoting.RemotingCommand, addr string) *remoting.RemoteError {
	return &remoting.RemoteError{Code: resp.Code, Remark: resp.Remark, Addr: addr}
}
