package producer

import (
	"bytes"
	"compress/zlib"
	"fmt"
)

// compressionZlibType is MessageSysFlag.COMPRESSION_ZLIB_TYPE (3 << 8): a 4.9.8 producer writes
// the compression type into bits 8–10 of sysFlag next to COMPRESSED_FLAG (bit 0), so a
// compressed message's sysFlag is 0x301. Readers that know only bit 0 (client-go, older
// brokers) take any compressed body for zlib. Pinned by TestCompressionSysFlag.
const compressionZlibType int32 = 0x300

// compress deflates body as RFC 1950 zlib at level. Java: ZlibCompressor#compress
// (UtilAll#compress in older versions).
func compress(body []byte, level int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(body) / 2)
	w, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, fmt.Errorf("zlib level %d: %w", level, err)
	}
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
