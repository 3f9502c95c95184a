package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func be64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// ErrBadRecord is returned for bytes that are not a whole message record.
var ErrBadRecord = errors.New("store: not a message record")

// decodeRecord decodes one stored record (store-formats.md §2.1) into a MessageExt; the body is
// returned as stored (not inflated). Java: MessageDecoder#decode (readBody, no inflate).
// (Local until mq/primitive carries MessageDecoder.)
func decodeRecord(rec []byte) (*primitive.MessageExt, error) {
	var rr recordReader
	d := rr.checkMessageAndReturnSize(rec, false, -1)
	if !d.Success || d.MsgSize <= 0 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrBadRecord, len(rec))
	}
	rec = rec[:d.MsgSize]
	bornLen, storeLen := 8, 8
	if d.SysFlag&sysFlagBornHostV6 != 0 {
		bornLen = 20
	}
	if d.SysFlag&sysFlagStoreHostV6 != 0 {
		storeLen = 20
	}
	p := posBornHost
	born := rec[p : p+bornLen]
	p += bornLen + 8
	storeHost := rec[p : p+storeLen]
	p += storeLen
	reconsume := int32(be32(rec[p:]))
	p += 4 + 8
	bodyLen := int(be32(rec[p:]))
	p += 4
	body := append([]byte(nil), rec[p:p+bodyLen]...)
	m := &primitive.MessageExt{
		Message: primitive.Message{
			Topic:      d.Topic,
			Flag:       int32(be32(rec[posFlag:])),
			Properties: parseProperties(d.Properties),
			Body:       body,
		},
		StoreSize:                 d.MsgSize,
		QueueID:                   d.QueueID,
		QueueOffset:               d.ConsumeQueueOffset,
		CommitLogOffset:           d.CommitLogOffset,
		SysFlag:                   d.SysFlag,
		BornTimestamp:             int64(be64(rec[posBornTimestamp:])),
		StoreTimestamp:            d.StoreTimestamp,
		BornHost:                  hostString(born),
		StoreHost:                 hostString(storeHost),
		BodyCRC:                   int32(be32(rec[posBodyCRC:])),
		ReconsumeTimes:            reconsume,
		PreparedTransactionOffset: d.PreparedTransactionOffset,
	}
	m.OffsetMsgID = offsetMsgID(storeHost, d.CommitLogOffset)
	m.MsgID = m.OffsetMsgID
	if u, ok := m.Properties[propertyUniqKey]; ok && u != "" {
		m.MsgID = u
	}
	return m, nil
}

// parseProperties splits a properties string into a map with Java's rules (see lookupProperty).
func parseProperties(props []byte) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(props); {
		end := i
		for end < len(props) && props[end] != 0x02 {
			end++
		}
		if end-i >= 3 {
			for j := i; j < end; j++ {
				if props[j] == 0x01 {
					if j > i && j < end-1 {
						out[string(props[i:j])] = string(props[j+1 : end])
					}
					break
				}
			}
		}
		i = end + 1
	}
	return out
}
