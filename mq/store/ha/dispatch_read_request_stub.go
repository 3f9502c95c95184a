//go:build ex_ch09

package ha

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// dispatchReadRequest handles every complete frame in the buffer: the header's offset must be
// the slave's max CommitLog offset (any offset on an empty slave log), the body is appended
// there, and a grown offset is reported. It returns the frames handled.
// Java: HAClient#dispatchReadRequest.
func (c *HAClient) dispatchReadRequest() (int, error) {
	// Hint: while the bytes from c.dispatchPosition to c.n hold a header (HeaderSize): parse it
	// (parseHeader: masterPhyOffset, bodySize). The slave's max offset
	// (c.h.store.GetMaxPhyOffset()) must be 0 or equal masterPhyOffset, else return an ErrProtocol
	// error (the connection closes). Wait for the whole body (break); then log the step
	// "HAClient#dispatchReadRequest" (masterPhyOffset, bodySize, slaveMaxOffset), append the body
	// at masterPhyOffset (c.h.store.AppendToCommitLog), count receivedBytes, move
	// dispatchPosition past the frame and report a grown offset (c.reportSlaveMaxOffsetPlus).
	// After the loop reset the buffer when all was dispatched, or c.compact() past half of it.
	return 0, exercise.NotImplemented("ch09", "tutorial/ch09-ha.md §HAClient#processReadEvent, HAClient#dispatchReadRequest",
		"write HAClient.dispatchReadRequest (mq/store/ha/dispatch_read_request_stub.go): check each frame's offset against the slave's, append its body, report the new offset")
}
