package primitive

import (
	"encoding/binary"
	"fmt"
)

// EncodeMessage writes m as one message record (the layout of doc.go, the one DecodeMessage
// reads): TOTALSIZE and BODYCRC are computed from the fields, the hosts come from BornHost and
// StoreHost ("ip:port"; an IPv6 host sets its sysFlag bit), the body is written as it is (not
// compressed here). It is the body of CHECK_TRANSACTION_STATE (broker → producer).
//
// Errors: ErrBadHost when a host is not "ip:port"; ErrCorruptRecord when the topic is longer
// than MaxTopicLength or the properties string than MaxPropertiesLength.
//
// Java: MessageDecoder#encode(messageExt, needCompress=false).
func EncodeMessage(m *MessageExt) ([]byte, error) {
	born, err := HostBytes(m.BornHost)
	if err != nil {
		return nil, fmt.Errorf("BORNHOST: %w", err)
	}
	storeHost, err := HostBytes(m.StoreHost)
	if err != nil {
		return nil, fmt.Errorf("STOREHOSTADDRESS: %w", err)
	}
	props := MarshalProperties(m.Properties)
	if len(m.Topic) > MaxTopicLength {
		return nil, fmt.Errorf("%w: topic of %d bytes, at most %d", ErrCorruptRecord, len(m.Topic), MaxTopicLength)
	}
	if len(props) > MaxPropertiesLength {
		return nil, fmt.Errorf("%w: properties of %d bytes, at most %d", ErrCorruptRecord, len(props), MaxPropertiesLength)
	}
	sysFlag := m.SysFlag &^ (BornHostV6Flag | StoreHostAddressV6Flag)
	if len(born) == 20 {
		sysFlag |= BornHostV6Flag
	}
	if len(storeHost) == 20 {
		sysFlag |= StoreHostAddressV6Flag
	}
	total := MinRecordSize - 16 + len(born) + len(storeHost) + len(m.Body) + len(m.Topic) + len(props)
	be := binary.BigEndian
	b := make([]byte, 0, total)
	b = be.AppendUint32(b, uint32(total))
	b = be.AppendUint32(b, MessageMagicCode)
	b = be.AppendUint32(b, uint32(CRC32(m.Body)))
	b = be.AppendUint32(b, uint32(m.QueueID))
	b = be.AppendUint32(b, uint32(m.Flag))
	b = be.AppendUint64(b, uint64(m.QueueOffset))
	b = be.AppendUint64(b, uint64(m.CommitLogOffset))
	b = be.AppendUint32(b, uint32(sysFlag))
	b = be.AppendUint64(b, uint64(m.BornTimestamp))
	b = append(b, born...)
	b = be.AppendUint64(b, uint64(m.StoreTimestamp))
	b = append(b, storeHost...)
	b = be.AppendUint32(b, uint32(m.ReconsumeTimes))
	b = be.AppendUint64(b, uint64(m.PreparedTransactionOffset))
	b = be.AppendUint32(b, uint32(len(m.Body)))
	b = append(b, m.Body...)
	b = append(b, byte(len(m.Topic)))
	b = append(b, m.Topic...)
	b = be.AppendUint16(b, uint16(len(props)))
	b = append(b, props...)
	return b, nil
}
