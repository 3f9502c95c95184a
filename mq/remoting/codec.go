package remoting

import (
	"encoding/binary"
	"fmt"
)

// Frame layout (all integers big-endian):
//
//	+----------+-------------+--------------+----------------+-----------+
//	| length   | serialize   | header       | header         | body      |
//	| int32    | type (1 B)  | length (3 B) | (headerLen B)  | (rest)    |
//	+----------+-------------+--------------+----------------+-----------+
//	  0          4             5              8                8+headerLen
//
// length counts the bytes after itself: 4 + headerLen + bodyLen. Bytes 4..7 are one int32
// word: serialize type in the high byte, header length in the low 24 bits.
// Java: RemotingCommand#encode, RemotingCommand#decode, RemotingCommand#markProtocolType.
const (
	// DefaultMaxFrameSize is the largest whole frame (length field included) a channel reads:
	// 16 MiB, Java's com.rocketmq.remoting.frameMaxLength default.
	DefaultMaxFrameSize = 16777216
	// lengthFieldSize is the size of the leading length field.
	lengthFieldSize = 4
	// headerWordSize is the size of the serialize-type/header-length word.
	headerWordSize = 4
	// maxHeaderLength is the largest header length the 24-bit field can carry.
	maxHeaderLength = 0xFFFFFF
)

// EncodeFrame appends c as one whole frame (length field included) to dst and returns the
// extended slice. The header is JSON unless c.SerializeType is SerializeRocketMQ. extFields are
// written in key order, so equal commands encode to equal bytes. A header longer than
// 16 MiB − 1 cannot be framed; callers keep remarks and extFields far below that.
// Java: RemotingCommand#fastEncodeHeader + body (NettyEncoder).
func EncodeFrame(dst []byte, c *RemotingCommand) []byte {
	dst = appendFrameHead(dst, c)
	return append(dst, c.Body...)
}

// appendFrameHead appends everything of c's frame but the body: length field, header word and
// header. The length field already counts len(c.Body), so the writer can send the body from
// the caller's slice without copying it into a frame buffer first.
func appendFrameHead(dst []byte, c *RemotingCommand) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	typ := SerializeJSON
	if c.SerializeType == SerializeRocketMQ {
		typ = SerializeRocketMQ
		dst = appendRocketMQHeader(dst, c)
	} else {
		dst = appendJSONHeader(dst, c)
	}
	headerLen := len(dst) - start - lengthFieldSize - headerWordSize
	binary.BigEndian.PutUint32(dst[start:], uint32(headerWordSize+headerLen+len(c.Body)))
	binary.BigEndian.PutUint32(dst[start+lengthFieldSize:], uint32(typ)<<24|uint32(headerLen)&maxHeaderLength)
	return dst
}

// DecodeFrame decodes one frame given without its 4-byte length field (what the reader hands
// over after reading `length` bytes). The returned command's Body aliases frame; header strings
// are copies. Errors wrap ErrMalformedFrame. Never panics, whatever the bytes.
// Java: RemotingCommand#decode.
func DecodeFrame(frame []byte) (*RemotingCommand, error) { return decodeFrame(frame, nil) }

// decodeFrame is DecodeFrame with the CustomHeader source of a server's reader: a JSON request
// whose code newHeader (nil: none) maps to a header gets its extFields there (setExtFields).
// A ROCKETMQ binary header's extFields always go to ExtFields.
func decodeFrame(frame []byte, newHeader HeaderFunc) (*RemotingCommand, error) {
	if len(frame) < headerWordSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header-length word", ErrMalformedFrame, len(frame))
	}
	word := binary.BigEndian.Uint32(frame)
	typ := byte(word >> 24)
	headerLen := int(word & maxHeaderLength)
	if headerLen > len(frame)-headerWordSize {
		return nil, fmt.Errorf("%w: header length %d exceeds frame length %d", ErrMalformedFrame, headerLen, len(frame))
	}
	header := frame[headerWordSize : headerWordSize+headerLen]
	c := &RemotingCommand{SerializeType: typ}
	var err error
	switch typ {
	case SerializeJSON:
		err = decodeJSONHeader(header, c, newHeader)
	case SerializeRocketMQ:
		err = decodeRocketMQHeader(header, c)
	default:
		return nil, fmt.Errorf("%w: unknown serialize type %d", ErrMalformedFrame, typ)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedFrame, err)
	}
	if body := frame[headerWordSize+headerLen:]; len(body) > 0 {
		c.Body = body
	}
	return c, nil
}
