package primitive

import "errors"

// Errors returned by the decoders of this package. They are wrapped with context
// (fmt.Errorf("%w: ...")); test with errors.Is.
var (
	// ErrTruncated: the input ends inside a record or field.
	ErrTruncated = errors.New("primitive: truncated input")
	// ErrBadMagic: a record does not start with MessageMagicCode (a BLANK record or garbage).
	ErrBadMagic = errors.New("primitive: bad magic code")
	// ErrCorruptRecord: the fields of a record are inconsistent (negative length, fields
	// not ending at TOTALSIZE, port out of range, ...).
	ErrCorruptRecord = errors.New("primitive: corrupt record")
	// ErrBadMsgID: an offsetMsgId that is not 32 or 56 hex characters.
	ErrBadMsgID = errors.New("primitive: bad offset message id")
	// ErrBadHost: an address that is not "ip:port" with a literal IP, or host bytes that are
	// not 8 or 20 long.
	ErrBadHost = errors.New("primitive: bad host address")
)
