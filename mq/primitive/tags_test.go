package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTagsString2TagsCode pins MessageExtBrokerInner#tagsString2tagsCode: Java String.hashCode
// over UTF-16 code units, sign-extended; values computed with Java semantics.
func TestTagsString2TagsCode(t *testing.T) {
	tests := []struct {
		tags string
		want int64
	}{
		{"", 0},
		{"TagA", 2598919},              // 0x27A807, store-formats.md §3.1
		{"中文", 646394},                 // Java; client-go's UTF-8 hash gives -1887180642
		{"a", 97},                      // one code unit
		{"TagA_TagB_TagC", -878574680}, // wraps to a negative int: sign-extended
		{"😀", 1772899},                 // U+1F600 = surrogates D83D DE00: 55357*31 + 56832
	}
	for _, tt := range tests {
		t.Run(tt.tags, func(t *testing.T) {
			require.Equal(t, tt.want, TagsString2TagsCode(tt.tags))
		})
	}
}

// TestCRC32 pins UtilAll#crc32: CRC-32 IEEE masked with 0x7FFFFFFF (store-formats.md §2.1), with
// the value of the worked example of §2.2.
func TestCRC32(t *testing.T) {
	require.Equal(t, int32(0x77d18982), CRC32([]byte("Hello")))
	require.Equal(t, int32(0), CRC32(nil))
}
