//go:build !ex_ch03

package store

import (
	"encoding/binary"
	"fmt"
	"log/slog"
)

// putMessagePositionInfo appends the unit (offset, size, tagsCode) at queue offset cqOffset.
// A unit whose offset + size ≤ maxPhysicOffset was already written and is skipped (replay is
// idempotent); so is a cqOffset below the current end. A queue whose first file is created at
// a non-zero offset gets its leading units filled with blanks. Java: ConsumeQueue#putMessagePositionInfo.
func (cq *ConsumeQueue) putMessagePositionInfo(offset CommitLogOffset, size int32, tagsCode int64, cqOffset QueueOffset) (bool, error) {
	env := cq.env
	if int64(offset)+int64(size) <= cq.maxPhysicOffset.Load() {
		return true, nil
	}
	be := binary.BigEndian
	be.PutUint64(cq.unit[0:], uint64(offset))
	be.PutUint32(cq.unit[8:], uint32(size))
	be.PutUint64(cq.unit[12:], uint64(tagsCode))
	expect := int64(cqOffset) * ConsumeQueueUnitSize
	mf, err := cq.mfq.getLastMappedFile(expect, true)
	if err != nil || mf == nil {
		return false, err
	}
	if mf.firstCreateInQueue && cqOffset != 0 && mf.WrotePosition() == 0 {
		cq.minLogicOffset.Store(expect)
		cq.mfq.flushedWhere.Store(expect)
		cq.fillPreBlank(mf, expect)
	}
	if cqOffset != 0 {
		current := mf.fileFromOffset + int64(mf.WrotePosition())
		if expect < current {
			return true, nil // built already
		}
		if expect != current {
			env.log.warn("[BUG] logic queue order maybe wrong", "topic", cq.topic, "queueId", cq.queueID,
				"expectLogicOffset", expect, "currentLogicOffset", current)
		}
	}
	if env.tracer.Enabled() {
		env.tracer.Step("ConsumeQueue#putMessagePositionInfo", slog.String("topic", cq.topic), slog.Int("queueId", int(cq.queueID)),
			slog.Int64("cqOffset", int64(cqOffset)), slog.Int64("commitLogOffset", int64(offset)), slog.Int("size", int(size)),
			slog.Int64("tagsCode", tagsCode), slog.String("file", mf.relName))
	}
	cq.maxPhysicOffset.Store(int64(offset) + int64(size))
	if !mf.appendBytes(cq.unit[:]) {
		return false, fmt.Errorf("store: consume queue file %s is full", mf.path)
	}
	return true, nil
}
