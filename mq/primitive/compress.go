package primitive

import (
	"bytes"
	"compress/zlib"
	"io"
)

// Uncompress inflates an RFC 1950 zlib body, as a message body whose sysFlag has
// CompressedFlag set carries it. A body that is not zlib, or is truncated, returns the
// reader's error and no bytes. The consumer's pull path and the reply path of
// request/reply both use it. Java: UtilAll#uncompress.
func Uncompress(b []byte) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
