package primitive

import (
	"encoding/binary"
	"fmt"
)

// BatchEntry is one message of a SEND_BATCH_MESSAGE body, as sent: its flag, body and raw
// properties string (the store appends the envelope's properties to it).
type BatchEntry struct {
	Flag             int32
	Body             []byte
	PropertiesString string
}

// DecodeBatchEntries splits a batch send body into its messages. Each entry is
//
//	TOTALSIZE 4 | MAGICCODE 4 | BODYCRC 4 | FLAG 4 | BODYLENGTH 4 | BODY n | PROPERTIESLENGTH 2 | PROPERTIES p
//
// (big-endian; remoting-protocol.md §6.2). Like Java, TOTALSIZE, MAGICCODE and BODYCRC are read
// and ignored (client-go sends 0 for the last two); entries are framed by the body and
// properties lengths. Bodies alias b. Errors: ErrTruncated when an entry runs past the end,
// ErrCorruptRecord for a negative length.
//
// Java: CommitLog.MessageExtEncoder#encode(MessageExtBatch) (the reading half).
func DecodeBatchEntries(b []byte) ([]BatchEntry, error) {
	var out []BatchEntry
	pos := 0
	for pos < len(b) {
		rest := b[pos:]
		if len(rest) < 20 {
			return out, fmt.Errorf("%w: batch entry at byte %d: %d bytes, header needs 20", ErrTruncated, pos, len(rest))
		}
		flag := int32(binary.BigEndian.Uint32(rest[12:]))
		bodyLen := int32(binary.BigEndian.Uint32(rest[16:]))
		if bodyLen < 0 {
			return out, fmt.Errorf("%w: batch entry at byte %d: BODYLENGTH %d", ErrCorruptRecord, pos, bodyLen)
		}
		if int64(bodyLen)+22 > int64(len(rest)) {
			return out, fmt.Errorf("%w: batch entry at byte %d: BODYLENGTH %d, %d bytes left", ErrTruncated, pos, bodyLen, len(rest))
		}
		body := rest[20 : 20+bodyLen]
		propLen := int16(binary.BigEndian.Uint16(rest[20+bodyLen:]))
		if propLen < 0 {
			return out, fmt.Errorf("%w: batch entry at byte %d: PROPERTIESLENGTH %d", ErrCorruptRecord, pos, propLen)
		}
		end := int(22 + bodyLen + int32(propLen))
		if end > len(rest) {
			return out, fmt.Errorf("%w: batch entry at byte %d: PROPERTIESLENGTH %d, %d bytes left", ErrTruncated, pos, propLen, len(rest)-int(22+bodyLen))
		}
		out = append(out, BatchEntry{
			Flag:             flag,
			Body:             body,
			PropertiesString: string(rest[22+bodyLen : end]),
		})
		pos += end
	}
	return out, nil
}

// DecodeBatchBody decodes a SEND_BATCH_MESSAGE body into messages with parsed properties (Topic
// is empty: it comes from the request header). See DecodeBatchEntries for the layout and errors.
//
// Java: MessageDecoder#decodeMessages.
func DecodeBatchBody(body []byte) ([]Message, error) {
	entries, err := DecodeBatchEntries(body)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(entries))
	for i, e := range entries {
		msgs[i] = Message{Flag: e.Flag, Body: e.Body, Properties: UnmarshalProperties(e.PropertiesString)}
	}
	return msgs, nil
}
