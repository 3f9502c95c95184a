package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUncompressBody pins UtilAll#uncompress on a hand-built zlib stream (RFC 1950: header 78 9c,
// a stored deflate block, Adler-32 trailer), and that a body that is not zlib or is cut short
// returns an error rather than bytes.
func TestUncompressBody(t *testing.T) {
	// "hi" as zlib: 78 9c | 01 (final stored block) 02 00 fd ff | 'h' 'i' | adler32("hi") 01 3b 00 d2
	z := []byte{0x78, 0x9c, 0x01, 0x02, 0x00, 0xfd, 0xff, 'h', 'i', 0x01, 0x3b, 0x00, 0xd2}
	got, err := UncompressBody(z)
	require.NoError(t, err)
	require.Equal(t, "hi", string(got))

	for name, b := range map[string][]byte{
		"not zlib":  []byte("plain body"),
		"truncated": z[:len(z)-3],
		"empty":     nil,
	} {
		_, err := UncompressBody(b)
		require.Error(t, err, name)
	}
}
