package broker

import (
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
)

// discardLogger drops every record (the operating log is silent unless configured).
var discardLogger = slog.New(slog.DiscardHandler)

// orDiscard returns l, or a logger that drops everything when l is nil.
func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return discardLogger
	}
	return l
}

// badHeader is the SYSTEM_ERROR answer "bad <what> request header: <err>" to a request whose
// header does not decode. Java: RemotingCommand#decodeCommandCustomHeader throws, and the
// remoting layer answers SYSTEM_ERROR with the exception's text.
func badHeader(what string, err error) *remoting.RemotingCommand {
	return remoting.NewResponse(remoting.SystemError, fmt.Sprintf("bad %s request header: %v", what, err))
}
