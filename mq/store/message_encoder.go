package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"net/netip"
	"strconv"
	"unicode/utf8"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Record constants (store-formats.md §2). Pinned by TestRecordConstants.
const (
	// MessageMagicCode marks a message record (v1, 4.x): int 0xDAA320A7.
	MessageMagicCode uint32 = 0xDAA320A7
	// BlankMagicCode marks the END_OF_FILE blank record: int 0xCBD43194.
	BlankMagicCode uint32 = 0xCBD43194
	// EndFileMinBlankLength is the room always kept for a blank record (TOTALSIZE + MAGIC).
	EndFileMinBlankLength = 8
	// maxTopicLength is the largest topic (1-byte TOPICLENGTH, Java Byte.MAX_VALUE).
	maxTopicLength = 127
	// maxPropertiesLength is the largest properties string (2-byte length, Short.MAX_VALUE).
	maxPropertiesLength = 32767
	// recordReserve is what a whole record may exceed the body limit by (64 KiB).
	recordReserve = 64 * 1024
)

// Fixed byte positions inside a record (IPv4 born host). Java: MessageDecoder position constants.
const (
	posTotalSize      = 0
	posMagic          = 4
	posBodyCRC        = 8
	posQueueID        = 12
	posFlag           = 16
	posQueueOffset    = 20
	posPhysicalOffset = 28
	posSysFlag        = 36
	posBornTimestamp  = 40
	posBornHost       = 48
)

// sysFlag bits (remoting-protocol.md §6.6). Java: MessageSysFlag.
// (Local copies until mq/primitive carries them.)
const (
	sysFlagCompressed      = 0x1
	sysFlagMultiTags       = 0x2
	sysFlagTransactionMask = 0xC
	tranNotType            = 0x0
	tranPreparedType       = 0x4
	tranCommitType         = 0x8
	tranRollbackType       = 0xC
	sysFlagBornHostV6      = 0x10
	sysFlagStoreHostV6     = 0x20
)

// Property names the store reads. Java: MessageConst.
const (
	propertyTags      = "TAGS"
	propertyKeys      = "KEYS"
	propertyUniqKey   = "UNIQ_KEY"
	propertyDelay     = "DELAY"
	propertyRealTopic = "REAL_TOPIC"
	propertyRealQID   = "REAL_QID"
	// scheduleTopic receives delayed messages. Java: TopicValidator#RMQ_SYS_SCHEDULE_TOPIC.
	scheduleTopic = "SCHEDULE_TOPIC_XXXX"
)

// calMsgLength is the TOTALSIZE of a record: 91 + body + topic + properties for IPv4 hosts,
// 12 more per IPv6 host. Java: CommitLog#calMsgLength.
func calMsgLength(sysFlag int32, bodyLength, topicLength, propertiesLength int) int {
	bornHost, storeHost := 8, 8
	if sysFlag&sysFlagBornHostV6 != 0 {
		bornHost = 20
	}
	if sysFlag&sysFlagStoreHostV6 != 0 {
		storeHost = 20
	}
	return 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornHost + 8 + storeHost + 4 + 8 +
		4 + max(bodyLength, 0) + 1 + topicLength + 2 + max(propertiesLength, 0)
}

// bodyCRC is CRC-32 (IEEE) of body masked to 31 bits. Java: UtilAll#crc32.
func bodyCRC(body []byte) int32 {
	return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)
}

// messageExtEncoder builds a record in a reusable buffer, outside the put lock; doAppend then
// patches QUEUEOFFSET, PHYSICALOFFSET and STORETIMESTAMP and copies it into the file.
// Mirrors CommitLog.MessageExtEncoder.
type messageExtEncoder struct {
	buf         []byte
	maxBodySize int
}

// encode writes msg's record into e.buf. bornHost and storeHost are the 8- or 20-byte host
// fields. It returns PUT_OK, MESSAGE_ILLEGAL (body over the limit, record over limit + 64 KiB,
// topic over 127 bytes) or PROPERTIES_SIZE_EXCEEDED (properties over 32767 bytes).
// Java: MessageExtEncoder#encode.
func (e *messageExtEncoder) encode(m *primitive.MessageExtBrokerInner, bornHost, storeHost []byte) PutMessageStatus {
	propLen := len(m.PropertiesString)
	if propLen > maxPropertiesLength {
		return PROPERTIES_SIZE_EXCEEDED
	}
	topicLen := len(m.Topic)
	if topicLen > maxTopicLength {
		// Deviation: Java checks the topic in UTF-16 chars only and would wrap the length byte
		// for a long non-ASCII topic; we refuse any topic over 127 bytes.
		return MESSAGE_ILLEGAL
	}
	bodyLen := len(m.Body)
	msgLen := calMsgLength(m.SysFlag, bodyLen, topicLen, propLen)
	if bodyLen > e.maxBodySize || msgLen > e.maxBodySize+recordReserve {
		return MESSAGE_ILLEGAL
	}
	b := e.buf[:0]
	if cap(b) < msgLen {
		b = make([]byte, 0, max(msgLen, 2*cap(b)))
	}
	be := binary.BigEndian
	b = be.AppendUint32(b, uint32(msgLen))                      // 1 TOTALSIZE
	b = be.AppendUint32(b, MessageMagicCode)                    // 2 MAGICCODE
	b = be.AppendUint32(b, uint32(m.BodyCRC))                   // 3 BODYCRC
	b = be.AppendUint32(b, uint32(m.QueueID))                   // 4 QUEUEID
	b = be.AppendUint32(b, uint32(m.Flag))                      // 5 FLAG
	b = be.AppendUint64(b, 0)                                   // 6 QUEUEOFFSET (set in doAppend)
	b = be.AppendUint64(b, 0)                                   // 7 PHYSICALOFFSET (set in doAppend)
	b = be.AppendUint32(b, uint32(m.SysFlag))                   // 8 SYSFLAG
	b = be.AppendUint64(b, uint64(m.BornTimestamp))             // 9 BORNTIMESTAMP
	b = append(b, bornHost...)                                  // 10 BORNHOST
	b = be.AppendUint64(b, uint64(m.StoreTimestamp))            // 11 STORETIMESTAMP (refreshed in doAppend)
	b = append(b, storeHost...)                                 // 12 STOREHOSTADDRESS
	b = be.AppendUint32(b, uint32(m.ReconsumeTimes))            // 13 RECONSUMETIMES
	b = be.AppendUint64(b, uint64(m.PreparedTransactionOffset)) // 14 PreparedTransactionOffset
	b = be.AppendUint32(b, uint32(bodyLen))                     // 15 BODY
	b = append(b, m.Body...)
	b = append(b, byte(topicLen)) // 16 TOPIC
	b = append(b, m.Topic...)
	b = be.AppendUint16(b, uint16(propLen)) // 17 PROPERTIES
	b = append(b, m.PropertiesString...)
	e.buf = b
	return PUT_OK
}

// hostAddr is a record host field (4-byte IPv4 or 16-byte IPv6 address + 4-byte port) held
// by value, so building it does not allocate.
type hostAddr struct {
	b [20]byte
	n int // 8 or 20
}

func (h *hostAddr) bytes() []byte { return h.b[:h.n] }

// hostField returns the 8-byte (IPv4) or 20-byte (IPv6) record field for a host: raw if it
// already has one of those lengths, else parsed from "ip:port", else 8 zero bytes.
func hostField(raw []byte, hostPort string) (hostAddr, error) {
	var h hostAddr
	if len(raw) == 8 || len(raw) == 20 {
		h.n = copy(h.b[:], raw)
		return h, nil
	}
	if len(raw) != 0 {
		return h, fmt.Errorf("host field of %d bytes, want 8 or 20", len(raw))
	}
	h.n = 8
	if hostPort == "" {
		return h, nil
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return h, err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return h, err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return h, err
	}
	if ip.Is4() || ip.Is4In6() {
		a := ip.Unmap().As4()
		copy(h.b[:], a[:])
	} else {
		a := ip.As16()
		copy(h.b[:], a[:])
		h.n = 20
	}
	binary.BigEndian.PutUint32(h.b[h.n-4:], uint32(p))
	return h, nil
}

// hostString renders a host field as "ip:port".
func hostString(field []byte) string {
	if len(field) != 8 && len(field) != 20 {
		return ""
	}
	n := len(field) - 4
	ip, _ := netip.AddrFromSlice(field[:n])
	port := binary.BigEndian.Uint32(field[n:])
	return netip.AddrPortFrom(ip, uint16(port)).String()
}

// offsetMsgID is the offsetMsgId: uppercase hex of store host IP, port and the physical offset.
// Java: MessageDecoder#createMessageId. (Local until mq/primitive carries CreateOffsetMsgID.)
func offsetMsgID(storeHost []byte, offset int64) string {
	const hexdigits = "0123456789ABCDEF"
	var tmp [56]byte
	out := tmp[:0]
	for _, c := range storeHost {
		out = append(out, hexdigits[c>>4], hexdigits[c&0xF])
	}
	for i := 7; i >= 0; i-- {
		c := byte(offset >> (8 * i))
		out = append(out, hexdigits[c>>4], hexdigits[c&0xF])
	}
	return string(out)
}

// tagsString2TagsCode is Java String.hashCode of tags (over UTF-16 code units, h = 31h + c,
// 32-bit wrap) sign-extended to 64 bits; 0 for no tags. Invalid UTF-8 decodes as U+FFFD per
// byte. Java: MessageExtBrokerInner#tagsString2tagsCode. (Local until mq/primitive has it.)
func tagsString2TagsCode(tags []byte) int64 {
	var h int32
	for i := 0; i < len(tags); {
		c := tags[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(tags[i:])
		i += n
		if r > 0xFFFF {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
		} else {
			h = 31*h + int32(r)
		}
	}
	return int64(h)
}

// utf16Len is the length of s in UTF-16 code units (Java String#length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// lookupProperty finds name in a stored properties string (name 0x01 value 0x02 ...) the way
// Java's string2messageProperties does: entries shorter than 3 bytes or with an empty name or
// value are skipped; a later duplicate wins. It does not allocate.
func lookupProperty(props []byte, name string) ([]byte, bool) {
	var val []byte
	found := false
	for i := 0; i < len(props); {
		end := i
		for end < len(props) && props[end] != 0x02 {
			end++
		}
		if end-i >= 3 {
			kv := -1
			for j := i; j < end; j++ {
				if props[j] == 0x01 {
					kv = j
					break
				}
			}
			if kv > i && kv < end-1 && string(props[i:kv]) == name {
				val, found = props[kv+1:end], true
			}
		}
		i = end + 1
	}
	return val, found
}

// appendProperty adds name=value to a properties string in the 4.9.3+ form (no trailing 0x02).
func appendProperty(props, name, value string) string {
	if props != "" && props[len(props)-1] != 0x02 {
		props += "\x02"
	}
	return props + name + "\x01" + value
}
