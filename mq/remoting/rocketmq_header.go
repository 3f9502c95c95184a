package remoting

import (
	"encoding/binary"
	"errors"
)

// ROCKETMQ binary header (serialize type 1), big-endian:
//
//	+--------+----------+---------+--------+--------+-----------+--------+-----------+--------+
//	| code   | language | version | opaque | flag   | remarkLen | remark | extLen    | ext    |
//	| int16  | byte     | int16   | int32  | int32  | int32     | bytes  | int32     | bytes  |
//	+--------+----------+---------+--------+--------+-----------+--------+-----------+--------+
//	  0        2          3         5        9        13          17       17+r        21+r
//
// ext is a run of entries {keyLen int16, key, valLen int32, value}. A fixed part of 21 bytes.
// Java: RocketMQSerializable#rocketMQProtocolEncode / rocketMQProtocolDecode.
const rocketMQFixedHeaderLen = 21

var errShortBinaryHeader = errors.New("binary header truncated")

// appendRocketMQHeader appends c's header in the ROCKETMQ binary form.
func appendRocketMQHeader(dst []byte, c *RemotingCommand) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(c.Code)))
	dst = append(dst, languageCode(c.Language))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(c.Version)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Opaque))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Flag))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Remark)))
	dst = append(dst, c.Remark...)
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var arr [32]extField
	for _, f := range sortedFields(c.ExtFields, arr[:0]) {
		k, v := f.k, f.v
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(k)))
		dst = append(dst, k...)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	return dst
}

// decodeRocketMQHeader fills c from a binary header; bytes after the ext block are ignored
// (as Java does).
func decodeRocketMQHeader(b []byte, c *RemotingCommand) error {
	if len(b) < rocketMQFixedHeaderLen {
		return errShortBinaryHeader
	}
	c.Code = int32(int16(binary.BigEndian.Uint16(b[0:])))
	c.Language = languageName(b[2])
	c.Version = int32(int16(binary.BigEndian.Uint16(b[3:])))
	c.Opaque = int32(binary.BigEndian.Uint32(b[5:]))
	c.Flag = int32(binary.BigEndian.Uint32(b[9:]))
	rest := b[13:]
	remark, rest, err := takeBlock(rest)
	if err != nil {
		return err
	}
	c.Remark = string(remark)
	ext, _, err := takeBlock(rest)
	if err != nil {
		return err
	}
	for len(ext) > 0 {
		if len(ext) < 2 {
			return errShortBinaryHeader
		}
		kl := int(int16(binary.BigEndian.Uint16(ext)))
		ext = ext[2:]
		if kl < 0 || kl > len(ext) {
			return errShortBinaryHeader
		}
		k := ext[:kl]
		v, next, err := takeBlock(ext[kl:])
		if err != nil {
			return err
		}
		c.AddExtField(string(k), string(v))
		ext = next
	}
	return nil
}

// takeBlock reads an int32 length and that many bytes.
func takeBlock(b []byte) (block, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errShortBinaryHeader
	}
	n := int64(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 || n > int64(len(b)) {
		return nil, nil, errShortBinaryHeader
	}
	return b[:n], b[n:], nil
}

// languageCode maps a language name to its LanguageCode byte (OTHER for unknown names, JAVA
// for empty).
func languageCode(name string) byte {
	if name == "" {
		return 0
	}
	for i, n := range languageNames {
		if n == name {
			return byte(i)
		}
	}
	return languageOther
}

// languageName maps a LanguageCode byte to its name ("OTHER" for codes beyond the table).
func languageName(code byte) string {
	if int(code) < len(languageNames) {
		return languageNames[code]
	}
	return languageNames[languageOther]
}
