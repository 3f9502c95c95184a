package store

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Record constants of the store (the magic codes, MinRecordSize and the length limits are in
// mq/primitive). Pinned by TestRecordConstants.
const (
	// EndFileMinBlankLength is the room always kept for a blank record (TOTALSIZE + MAGIC).
	EndFileMinBlankLength = 8
	// recordReserve is what a whole record may exceed the body limit by (64 KiB).
	recordReserve = 64 * 1024
	// maxTopicLength and maxPropertiesLength: 1-byte TOPICLENGTH, 2-byte PROPERTIESLENGTH.
	maxTopicLength      = primitive.MaxTopicLength
	maxPropertiesLength = primitive.MaxPropertiesLength
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

// sysFlag bits and property names used here (mq/primitive holds them all).
const (
	tranNotType        = primitive.TransactionNotType
	tranPreparedType   = primitive.TransactionPreparedType
	tranCommitType     = primitive.TransactionCommitType
	tranRollbackType   = primitive.TransactionRollbackType
	sysFlagBornHostV6  = primitive.BornHostV6Flag
	sysFlagStoreHostV6 = primitive.StoreHostAddressV6Flag

	propertyTags      = primitive.PropertyTags
	propertyKeys      = primitive.PropertyKeys
	propertyUniqKey   = primitive.PropertyUniqClientMessageIDKeyIdx
	propertyDelay     = primitive.PropertyDelayTimeLevel
	propertyRealTopic = primitive.PropertyRealTopic
	propertyRealQID   = primitive.PropertyRealQueueID
	// scheduleTopic receives delayed messages. Java: TopicValidator#RMQ_SYS_SCHEDULE_TOPIC.
	scheduleTopic = "SCHEDULE_TOPIC_XXXX"
)

// Magic codes (aliases of mq/primitive's, for brevity).
const (
	messageMagicCode = primitive.MessageMagicCode
	blankMagicCode   = primitive.BlankMagicCode
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

// minRecordSize is the TOTALSIZE of the smallest record (IPv4 hosts, empty body, topic and
// properties): calMsgLength(0, 0, 0, 0). Anything shorter is not a message record.
const minRecordSize = 91

// bodyCRC is CRC-32 (IEEE) of body masked to 31 bits. Java: UtilAll#crc32.
func bodyCRC(body []byte) int32 { return primitive.CRC32(body) }

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
		return PropertiesSizeExceeded
	}
	topicLen := len(m.Topic)
	if topicLen > maxTopicLength {
		// Deviation: Java checks the topic in UTF-16 chars only and would wrap the length byte
		// for a long non-ASCII topic; we refuse any topic over 127 bytes.
		return MessageIllegal
	}
	bodyLen := len(m.Body)
	msgLen := calMsgLength(m.SysFlag, bodyLen, topicLen, propLen)
	if bodyLen > e.maxBodySize || msgLen > e.maxBodySize+recordReserve {
		return MessageIllegal
	}
	b := e.buf[:0]
	if cap(b) < msgLen {
		b = make([]byte, 0, max(msgLen, 2*cap(b)))
	}
	be := binary.BigEndian
	b = be.AppendUint32(b, uint32(msgLen))                      // 1 TOTALSIZE
	b = be.AppendUint32(b, messageMagicCode)                    // 2 MAGICCODE
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
	return PutOK
}

// hostAddr is a record host field (4-byte IPv4 or 16-byte IPv6 address + 4-byte port) held
// by value, so building it does not allocate.
type hostAddr struct {
	b [20]byte
	n int // 8 or 20
}

func (h *hostAddr) bytes() []byte { return h.b[:h.n] }

// messageHosts reads a message's born and store hosts (raw bytes, else "ip:port") and sets
// the sysFlag bits of IPv6 hosts; false when either cannot be read (MESSAGE_ILLEGAL).
func messageHosts(msg *primitive.MessageExtBrokerInner) (born, storeHost hostAddr, ok bool) {
	var err1, err2 error
	born, err1 = hostField(msg.BornHostBytes, msg.BornHost)
	storeHost, err2 = hostField(msg.StoreHostBytes, msg.StoreHost)
	if err1 != nil || err2 != nil {
		return born, storeHost, false
	}
	if born.n == 20 {
		msg.SysFlag |= sysFlagBornHostV6
	}
	if storeHost.n == 20 {
		msg.SysFlag |= sysFlagStoreHostV6
	}
	return born, storeHost, true
}

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

// tagsString2TagsCode is primitive.TagsString2TagsCode over bytes, so the dispatcher hashes a
// tag inside the mapped record without building a string (TestTagsCode compares the two).
// Java: MessageExtBrokerInner#tagsString2tagsCode.
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

// putProperty sets name=value in a properties string: every entry named name is dropped and
// one name=value is appended (appendProperty), so the string holds the name once, with the
// new value, as Java's re-serialized properties map would.
func putProperty(props, name, value string) string {
	if !strings.Contains(props, name+"\x01") {
		return appendProperty(props, name, value)
	}
	var b strings.Builder
	b.Grow(len(props) + len(name) + len(value) + 2)
	for rest := props; rest != ""; {
		entry, tail, _ := strings.Cut(rest, "\x02")
		rest = tail
		if k, _, ok := strings.Cut(entry, "\x01"); ok && k == name || entry == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(0x02)
		}
		b.WriteString(entry)
	}
	return appendProperty(b.String(), name, value)
}

func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func be64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }
