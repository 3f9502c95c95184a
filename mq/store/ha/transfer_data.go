//go:build !ex_ch09

package ha

import (
	"log/slog"
	"net"
)

// transferData writes one frame (header, then body; nil body: a heartbeat) whole, within
// haHousekeepingInterval. Java: WriteSocketService#transferData.
func (w *WriteSocketService) transferData(from int64, body []byte) error {
	c := w.c
	putHeader(w.header[:], from, len(body))
	if tr := c.h.tr; tr.Enabled() {
		tr.Step("WriteSocketService#transferData", slog.Int64("transferFrom", from), slog.Int("bodySize", len(body)))
	}
	if !c.h.manual {
		_ = c.conn.SetWriteDeadline(socketDeadline(c.h.cfg.HaHousekeepingInterval))
	}
	bufs := net.Buffers{w.header[:]}
	if len(body) > 0 {
		bufs = append(bufs, body)
	}
	if _, err := bufs.WriteTo(c.conn); err != nil {
		return err
	}
	w.lastWriteTimestamp = c.h.now()
	return nil
}
