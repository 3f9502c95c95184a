//go:build ex_ch09

package ha

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"
)

// transferData writes one frame (header, then body; nil body: a heartbeat) whole, within
// haHousekeepingInterval. Java: WriteSocketService#transferData.
func (w *WriteSocketService) transferData(from int64, body []byte) error {
	// Hint: the frame is a 12-byte header — the CommitLog offset from (8 bytes) and the body
	// size (4 bytes), big endian: putHeader(w.header[:], from, len(body)) — then the body. Log
	// the step "WriteSocketService#transferData" (transferFrom, bodySize); unless the HA service
	// is driven by hand (c.h.manual), set a write deadline of haHousekeepingInterval
	// (socketDeadline); write header and body with one net.Buffers.WriteTo on the connection;
	// on success remember c.h.now() as w.lastWriteTimestamp (heartbeats count from it).
	return exercise.NotImplemented("ch09", "tutorial/ch09-ha.md §WriteSocketService#run, WriteSocketService#transferData",
		"write WriteSocketService.transferData (mq/store/ha/transfer_data_stub.go): one frame, the 12-byte header and the CommitLog bytes, written whole")
}
