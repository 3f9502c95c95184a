package store

import (
	"encoding/binary"
	"strconv"
)

// DispatchRequest is what the reput service learns from one record and hands to each
// CommitLogDispatcher. Properties points into the mapped file and is valid only during the
// dispatch call. Mirrors org.apache.rocketmq.store.DispatchRequest.
type DispatchRequest struct {
	Topic                     string
	QueueID                   int32
	CommitLogOffset           CommitLogOffset // the record's PHYSICALOFFSET
	MsgSize                   int32           // TOTALSIZE
	TagsCode                  int64
	StoreTimestamp            int64       // ms
	ConsumeQueueOffset        QueueOffset // the record's QUEUEOFFSET
	SysFlag                   int32
	PreparedTransactionOffset CommitLogOffset // a COMMIT/ROLLBACK record's half message
	Properties                []byte
	// Success is false for a record that cannot be read (bad magic, CRC, length); with
	// MsgSize 0 and Success true the record is the blank at the end of a file.
	Success bool
}

// Property looks a property up in the record (copying the value).
func (d *DispatchRequest) Property(name string) (string, bool) {
	v, ok := lookupProperty(d.Properties, name)
	return string(v), ok
}

// Keys is the KEYS property; UniqKey the UNIQ_KEY property.
func (d *DispatchRequest) Keys() string    { v, _ := d.Property(propertyKeys); return v }
func (d *DispatchRequest) UniqKey() string { v, _ := d.Property(propertyUniqKey); return v }

// recordReader turns record bytes into DispatchRequests; it interns topic strings so a
// steady stream of records does not allocate.
type recordReader struct {
	topics      map[string]string
	delayLevels []int64
}

func (r *recordReader) topic(b []byte) string {
	if s, ok := r.topics[string(b)]; ok {
		return s
	}
	if r.topics == nil || len(r.topics) > 4096 {
		r.topics = map[string]string{}
	}
	s := string(b)
	r.topics[s] = s
	return s
}

// checkMessageAndReturnSize reads the record at the start of b. A blank record gives
// {Success: true, MsgSize: 0}; an unreadable one Success false (MsgSize is the claimed size
// when only the length check failed, else -1). With checkCRC the body CRC must match; with
// expectOffset >= 0 the PHYSICALOFFSET field must equal it.
// Java: CommitLog#checkMessageAndReturnSize.
func (r *recordReader) checkMessageAndReturnSize(b []byte, checkCRC bool, expectOffset CommitLogOffset) DispatchRequest {
	bad := DispatchRequest{MsgSize: -1}
	be := binary.BigEndian
	if len(b) < 8 {
		return bad
	}
	totalSize := int32(be.Uint32(b[posTotalSize:]))
	switch be.Uint32(b[posMagic:]) {
	case messageMagicCode:
	case blankMagicCode:
		return DispatchRequest{Success: true}
	default:
		return bad
	}
	if totalSize < minRecordSize || int(totalSize) > len(b) {
		return bad
	}
	rec := b[:totalSize]
	sysFlag := int32(be.Uint32(rec[posSysFlag:]))
	bornHostLen, storeHostLen := 8, 8
	if sysFlag&sysFlagBornHostV6 != 0 {
		bornHostLen = 20
	}
	if sysFlag&sysFlagStoreHostV6 != 0 {
		storeHostLen = 20
	}
	if int(totalSize) < calMsgLength(sysFlag, 0, 0, 0) {
		return bad
	}
	p := posBornHost + bornHostLen
	storeTs := int64(be.Uint64(rec[p:]))
	p += 8 + storeHostLen + 4 // store host, RECONSUMETIMES
	prepared := int64(be.Uint64(rec[p:]))
	p += 8
	if p+4 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	bodyLen := int(int32(be.Uint32(rec[p:])))
	p += 4
	if bodyLen < 0 || p+bodyLen+1 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	if checkCRC && bodyLen > 0 && bodyCRC(rec[p:p+bodyLen]) != int32(be.Uint32(rec[posBodyCRC:])) {
		return bad
	}
	p += bodyLen
	topicLen := int(rec[p])
	p++
	if topicLen > maxTopicLength || p+topicLen+2 > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	topicBytes := rec[p : p+topicLen]
	p += topicLen
	propLen := int(int16(be.Uint16(rec[p:])))
	p += 2
	if propLen < 0 || p+propLen > len(rec) {
		return DispatchRequest{MsgSize: totalSize}
	}
	props := rec[p : p+propLen]
	if calMsgLength(sysFlag, bodyLen, topicLen, propLen) != int(totalSize) {
		return DispatchRequest{MsgSize: totalSize}
	}
	physical := CommitLogOffset(be.Uint64(rec[posPhysicalOffset:]))
	if expectOffset >= 0 && physical != expectOffset {
		// Deviation: Java does not compare the stored offset with the position; we do, so
		// that stale bytes past a truncation point are never taken for a record.
		return bad
	}
	d := DispatchRequest{
		Topic:                     r.topic(topicBytes),
		QueueID:                   int32(be.Uint32(rec[posQueueID:])),
		CommitLogOffset:           physical,
		MsgSize:                   totalSize,
		StoreTimestamp:            storeTs,
		ConsumeQueueOffset:        QueueOffset(be.Uint64(rec[posQueueOffset:])),
		SysFlag:                   sysFlag,
		PreparedTransactionOffset: CommitLogOffset(prepared),
		Properties:                props,
		Success:                   true,
	}
	if propLen > 0 {
		if tags, ok := lookupProperty(props, propertyTags); ok && len(tags) > 0 {
			d.TagsCode = tagsString2TagsCode(tags)
		}
		if d.Topic == scheduleTopic {
			if v, ok := lookupProperty(props, propertyDelay); ok {
				if level, err := strconv.Atoi(string(v)); err == nil && level > 0 && len(r.delayLevels) > 0 {
					level = min(level, len(r.delayLevels))
					d.TagsCode = storeTs + r.delayLevels[level-1]
				}
			}
		}
	}
	return d
}
