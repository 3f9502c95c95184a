package remoting

import (
	"errors"
	"io"
	"syscall"
)

// IsPeerGone reports whether err only says that the peer went away: the channel was closed, or
// the connection was reset or its pipe broken (a client process that exits, or closes a socket
// with unread data, resets it), or it ended mid-frame. A client that stops is normal
// operation: logs say it at INFO or DEBUG, and keep WARN for what an operator should look at.
func IsPeerGone(err error) bool {
	return errors.Is(err, ErrChannelClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF)
}
