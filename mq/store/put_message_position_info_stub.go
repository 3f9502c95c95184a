//go:build ex_ch03

package store

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// putMessagePositionInfo appends the unit (offset, size, tagsCode) at queue offset cqOffset.
// A unit whose offset + size ≤ maxPhysicOffset was already written and is skipped (replay is
// idempotent); so is a cqOffset below the current end. A queue whose first file is created at
// a non-zero offset gets its leading units filled with blanks. Java: ConsumeQueue#putMessagePositionInfo.
func (cq *ConsumeQueue) putMessagePositionInfo(offset CommitLogOffset, size int32, tagsCode int64, cqOffset QueueOffset) (bool, error) {
	// Hint: skip (return true) a unit already written: offset + size <= cq.maxPhysicOffset. Write
	// the 20-byte unit (commitLogOffset 8, size 4, tagsCode 8, big endian) into cq.unit; the unit
	// belongs at byte cqOffset * ConsumeQueueUnitSize of the queue: get that file with
	// cq.mfq.getLastMappedFile(expect, true). A first file created at a non-zero queue offset
	// starts with blanks (cq.fillPreBlank); a unit below the file's end was built already (return
	// true). Log the step "ConsumeQueue#putMessagePositionInfo", store the new maxPhysicOffset and
	// append with mf.appendBytes.
	return false, exercise.NotImplemented("ch03", "tutorial/ch03-store.md §ConsumeQueue#putMessagePositionInfo",
		"write ConsumeQueue.putMessagePositionInfo (mq/store/put_message_position_info_stub.go): append the 20-byte unit at its queue offset")
}
