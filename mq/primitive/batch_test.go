package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeBatchBodyProbe decodes the client-go batch encoding recorded in
// remoting-protocol.md §6.2 (one message, body "xy", tag "A", trailing 0x02), as Java's
// batch encoder reads it: TOTALSIZE/MAGIC/CRC ignored, framed by the lengths.
func TestDecodeBatchBodyProbe(t *testing.T) {
	one := mustHex("0000001f 00000000 00000000 00000000 00000002 7879 0007 54414753 01 41 02")
	two := mustHex("00000000 00000000 00000000 00000005 00000001 7a 0000") // garbage TOTALSIZE, no properties
	msgs, err := DecodeBatchBody(append(one, two...))
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, []byte("xy"), msgs[0].Body)
	require.Equal(t, "A", msgs[0].Tags())
	require.Equal(t, int32(0), msgs[0].Flag)
	require.Equal(t, []byte("z"), msgs[1].Body)
	require.Equal(t, int32(5), msgs[1].Flag)
	require.Empty(t, msgs[1].Properties)

	entries, err := DecodeBatchEntries(one)
	require.NoError(t, err)
	require.Equal(t, "TAGS\x01A\x02", entries[0].PropertiesString, "raw properties kept for the store")
}

// TestDecodeBatchBodyErrors pins that a malformed batch body is an error, not a panic.
func TestDecodeBatchBodyErrors(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want error
	}{
		{"short header", "0000001f 00000000", ErrTruncated},
		{"body past end", "0000001f 00000000 00000000 00000000 00000009 7879 0007", ErrTruncated},
		{"negative body", "0000001f 00000000 00000000 00000000 ffffffff 7879 0007", ErrCorruptRecord},
		{"properties past end", "0000001f 00000000 00000000 00000000 00000002 7879 0007 5441", ErrTruncated},
		{"negative properties", "0000001f 00000000 00000000 00000000 00000002 7879 ffff", ErrCorruptRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeBatchBody(mustHex(tt.hex))
			require.ErrorIs(t, err, tt.want)
		})
	}
}
