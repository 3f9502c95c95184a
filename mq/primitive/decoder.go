package primitive

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Record constants of the CommitLog format (store-formats.md §2), pinned by
// TestRecordConstants.
const (
	// MessageMagicCode starts every message record (int -626843481).
	MessageMagicCode uint32 = 0xDAA320A7
	// BlankMagicCode starts the filler at the end of a CommitLog file (int -875286124).
	BlankMagicCode uint32 = 0xCBD43194
	// MinRecordSize is TOTALSIZE of an IPv4 record with empty body, topic and properties:
	// TOTALSIZE = MinRecordSize + bodyLen + topicLen + propertiesLen.
	MinRecordSize = 91
	// MaxTopicLength is the longest topic a record can hold (1-byte TOPICLENGTH, Java reads it
	// as a signed byte).
	MaxTopicLength = 127
	// MaxPropertiesLength is the longest properties string (2-byte signed PROPERTIESLENGTH).
	MaxPropertiesLength = 32767
)

// recordReader walks one record's fields; the first failure sticks.
type recordReader struct {
	b     []byte
	pos   int
	err   error
	hosts *hostCache // nil: every host field is formatted
}

// hostCache remembers, per host field (slot 0 BORNHOST, 1 STOREHOSTADDRESS), the last raw
// bytes decoded and their "ip:port" string: the records of one pull body mostly share their
// hosts, and formatting them was ~5 % of a consumer's CPU under load (DecodeMessages).
type hostCache struct {
	raw [2][20]byte
	n   [2]int
	s   [2]string
}

func (r *recordReader) take(n int, field string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.err = fmt.Errorf("%w: %s (%d bytes) at record byte %d of %d", ErrCorruptRecord, field, n, r.pos, len(r.b))
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *recordReader) i32(field string) int32 {
	s := r.take(4, field)
	if s == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(s))
}

func (r *recordReader) i64(field string) int64 {
	s := r.take(8, field)
	if s == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(s))
}

func (r *recordReader) host(n int, field string, slot int) (string, []byte) {
	s := r.take(n, field)
	if s == nil {
		return "", nil
	}
	c := r.hosts
	if c != nil && c.n[slot] == len(s) && bytes.Equal(c.raw[slot][:len(s)], s) {
		return c.s[slot], s
	}
	h, err := hostString(s)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %s: %w", ErrCorruptRecord, field, err)
		}
		return h, s
	}
	if c != nil {
		c.n[slot] = copy(c.raw[slot][:], s)
		c.s[slot] = h
	}
	return h, s
}

// DecodeMessage decodes the message record at the start of b (the CommitLog record layout,
// which is also a record of a pull response body; see doc.go) and returns it with the number
// of bytes it occupies (its TOTALSIZE).
//
// The body is copied (b may be a mapped file) and kept as stored: still compressed when
// SysFlag has CompressedFlag. Properties are parsed; MsgID is UNIQ_KEY when present, else
// OffsetMsgID.
//
// Errors: ErrTruncated when b is shorter than TOTALSIZE; ErrBadMagic when the magic is not
// MessageMagicCode (a BLANK record included); ErrCorruptRecord when the fields do not end
// exactly at TOTALSIZE or hold impossible values. It never panics.
//
// Deviation: Java's and client-go's decoders skip the magic and do not compare the fields'
// end with TOTALSIZE; we check both, so garbage is an error rather than a wrong message.
//
// Java: MessageDecoder#decode.
func DecodeMessage(b []byte) (*MessageExt, int, error) { return decodeMessage(b, nil) }

// decodeMessage is DecodeMessage, with hosts (nil: none) to reuse host strings across records.
func decodeMessage(b []byte, hosts *hostCache) (*MessageExt, int, error) {
	if len(b) < 8 {
		return nil, 0, fmt.Errorf("%w: %d bytes, a record header needs 8", ErrTruncated, len(b))
	}
	total := int32(binary.BigEndian.Uint32(b))
	magic := binary.BigEndian.Uint32(b[4:])
	if magic != MessageMagicCode {
		return nil, 0, fmt.Errorf("%w: 0x%08X (TOTALSIZE %d)", ErrBadMagic, magic, total)
	}
	if total < MinRecordSize {
		return nil, 0, fmt.Errorf("%w: TOTALSIZE %d below the minimum %d", ErrCorruptRecord, total, MinRecordSize)
	}
	if int64(total) > int64(len(b)) {
		return nil, 0, fmt.Errorf("%w: TOTALSIZE %d but %d bytes left", ErrTruncated, total, len(b))
	}
	r := recordReader{b: b[:total], pos: 8, hosts: hosts}
	m := &MessageExt{StoreSize: total}
	m.BodyCRC = r.i32("BODYCRC")
	m.QueueID = r.i32("QUEUEID")
	m.Flag = r.i32("FLAG")
	m.QueueOffset = r.i64("QUEUEOFFSET")
	m.CommitLogOffset = r.i64("PHYSICALOFFSET")
	m.SysFlag = r.i32("SYSFLAG")
	m.BornTimestamp = r.i64("BORNTIMESTAMP")
	m.BornHost, _ = r.host(hostFieldLen(m.SysFlag, BornHostV6Flag), "BORNHOST", 0)
	m.StoreTimestamp = r.i64("STORETIMESTAMP")
	var storeHost []byte
	m.StoreHost, storeHost = r.host(hostFieldLen(m.SysFlag, StoreHostAddressV6Flag), "STOREHOSTADDRESS", 1)
	m.ReconsumeTimes = r.i32("RECONSUMETIMES")
	m.PreparedTransactionOffset = r.i64("PREPAREDTRANSACTIONOFFSET")
	bodyLen := r.i32("BODYLENGTH")
	if body := r.take(int(bodyLen), "BODY"); len(body) > 0 {
		m.Body = append([]byte(nil), body...)
	}
	if tl := r.take(1, "TOPICLENGTH"); tl != nil {
		m.Topic = string(r.take(int(tl[0]), "TOPIC"))
	}
	if pl := r.take(2, "PROPERTIESLENGTH"); pl != nil {
		n := int16(binary.BigEndian.Uint16(pl))
		if props := r.take(int(n), "PROPERTIES"); len(props) > 0 {
			m.Properties = UnmarshalProperties(string(props))
		}
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	if r.pos != int(total) {
		return nil, 0, fmt.Errorf("%w: fields end at byte %d, TOTALSIZE is %d", ErrCorruptRecord, r.pos, total)
	}
	m.OffsetMsgID = CreateOffsetMsgID(storeHost, m.CommitLogOffset)
	if id := m.Properties[PropertyUniqClientMessageIDKeyIdx]; id != "" {
		m.MsgID = id
	} else {
		m.MsgID = m.OffsetMsgID
	}
	return m, int(total), nil
}

// DecodeMessages decodes consecutive records filling b exactly (a pull response body, or a
// run of CommitLog bytes without BLANK records). On error it returns the messages decoded
// before the bad record together with the error, which names the byte position.
//
// Java: MessageDecoder#decodes.
func DecodeMessages(b []byte) ([]*MessageExt, error) {
	var msgs []*MessageExt
	var hosts hostCache
	pos := 0
	for pos < len(b) {
		m, n, err := decodeMessage(b[pos:], &hosts)
		if err != nil {
			return msgs, fmt.Errorf("record at byte %d: %w", pos, err)
		}
		msgs = append(msgs, m)
		pos += n
	}
	return msgs, nil
}
