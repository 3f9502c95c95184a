package ha

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Frame sizes of the HA protocol (RocketMQ 4.9, plain TCP, no remoting frame around them).
const (
	// ReportSize is a slave's report: its max CommitLog offset (bytes), 8 bytes big-endian.
	// Java: HAClient#reportSlaveMaxOffset (ByteBuffer.allocate(8)).
	ReportSize = 8
	// HeaderSize is a master's transfer header: 8-byte physical offset (where the body goes in
	// the CommitLog) + 4-byte body size, big-endian; the body follows. Java:
	// HAConnection.WriteSocketService#headerSize (8 + 4).
	HeaderSize = 12
	// readMaxBufferSize bounds what a slave buffers (4 MiB): a header announcing a bigger body
	// is refused. Java: HAClient#READ_MAX_BUFFER_SIZE.
	readMaxBufferSize = 4 * 1024 * 1024
	// ackReadBufferSize is the master's read buffer for one slave's reports (1 KiB: 128
	// reports; of those read at once only the last counts, so a burst of more takes more
	// reads, nothing else). Deviation: Java's ReadSocketService#READ_MAX_BUFFER_SIZE is 1 MiB,
	// allocated per connection; the HA port is open to any peer, and a mebibyte per accepted
	// connection would let one opening many of them exhaust the broker's memory.
	ackReadBufferSize = 1024
	// maxBodySize is the largest body a slave accepts in one frame.
	maxBodySize = readMaxBufferSize - HeaderSize
)

// ErrProtocol is wrapped by every error about bytes a peer sent that break the protocol; the
// connection that carried them is closed, nothing else.
var ErrProtocol = errors.New("ha: protocol violation")

// putHeader writes the 12-byte transfer header into b[:12].
func putHeader(b []byte, phyOffset int64, bodySize int) {
	binary.BigEndian.PutUint64(b[0:8], uint64(phyOffset))
	binary.BigEndian.PutUint32(b[8:12], uint32(int32(bodySize)))
}

// parseHeader reads a transfer header from b[:12] and checks its fields: the offset must not be
// negative, the size must be within 0..maxBodySize.
func parseHeader(b []byte) (phyOffset int64, bodySize int, err error) {
	phyOffset = int64(binary.BigEndian.Uint64(b[0:8]))
	size := int32(binary.BigEndian.Uint32(b[8:12]))
	switch {
	case phyOffset < 0:
		return 0, 0, fmt.Errorf("%w: transfer header with negative offset %d", ErrProtocol, phyOffset)
	case size < 0 || int(size) > maxBodySize:
		return 0, 0, fmt.Errorf("%w: transfer header with body size %d (max %d)", ErrProtocol, size, maxBodySize)
	}
	return phyOffset, int(size), nil
}

// putReport writes the 8-byte report into b[:8].
func putReport(b []byte, maxOffset int64) { binary.BigEndian.PutUint64(b[0:8], uint64(maxOffset)) }

// parseReport reads a report from b[:8]; a negative offset is a protocol error.
func parseReport(b []byte) (int64, error) {
	off := int64(binary.BigEndian.Uint64(b[0:8]))
	if off < 0 {
		return 0, fmt.Errorf("%w: slave reported negative offset %d", ErrProtocol, off)
	}
	return off, nil
}
