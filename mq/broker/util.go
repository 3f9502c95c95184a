package broker

import (
	"log/slog"
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
