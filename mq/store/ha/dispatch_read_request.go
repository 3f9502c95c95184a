//go:build !ex_ch09

package ha

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// dispatchReadRequest handles every complete frame in the buffer: the header's offset must be
// the slave's max CommitLog offset (any offset on an empty slave log), the body is appended
// there, and a grown offset is reported. It returns the frames handled.
// Java: HAClient#dispatchReadRequest.
func (c *HAClient) dispatchReadRequest() (int, error) {
	frames := 0
	for c.n-c.dispatchPosition >= HeaderSize {
		masterPhyOffset, bodySize, err := parseHeader(c.buf[c.dispatchPosition:])
		if err != nil {
			return frames, err
		}
		slavePhyOffset := int64(c.h.store.GetMaxPhyOffset())
		if slavePhyOffset != 0 && slavePhyOffset != masterPhyOffset {
			c.h.log.Error("master pushed offset not equal the max phy offset in slave", "slave", slavePhyOffset,
				"master", masterPhyOffset)
			return frames, fmt.Errorf("%w: master pushed offset %d, slave max offset %d", ErrProtocol, masterPhyOffset, slavePhyOffset)
		}
		if c.n-c.dispatchPosition < HeaderSize+bodySize {
			break
		}
		if tr := c.h.tr; tr.Enabled() {
			tr.Step("HAClient#dispatchReadRequest", slog.Int64("masterPhyOffset", masterPhyOffset),
				slog.Int("bodySize", bodySize), slog.Int64("slaveMaxOffset", slavePhyOffset))
		}
		body := c.buf[c.dispatchPosition+HeaderSize : c.dispatchPosition+HeaderSize+bodySize]
		if bodySize > 0 {
			if err := c.h.store.AppendToCommitLog(store.CommitLogOffset(masterPhyOffset), body); err != nil {
				return frames, fmt.Errorf("ha: append %d bytes at %d: %w", bodySize, masterPhyOffset, err)
			}
		}
		c.receivedBytes += int64(bodySize)
		c.dispatchPosition += HeaderSize + bodySize
		frames++
		if !c.reportSlaveMaxOffsetPlus() {
			return frames, errors.New("ha: report to master failed")
		}
	}
	if c.dispatchPosition == c.n {
		c.n, c.dispatchPosition = 0, 0
	} else if c.dispatchPosition > len(c.buf)/2 {
		c.compact()
	}
	return frames, nil
}
