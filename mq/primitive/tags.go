package primitive

import (
	"hash/crc32"
	"unicode/utf16"
)

// TagsString2TagsCode returns the ConsumeQueue tagsCode of a TAGS value: Java
// String.hashCode() over the UTF-16 code units of tags (h = 31·h + c with 32-bit wrap-around),
// sign-extended to 64 bits. 0 for "". "TagA" → 2598919; "中文" → 646394.
//
// client-go hashes UTF-8 bytes instead, which agrees only for ASCII tags
// (remoting-protocol.md §6.5); brokers must use this function. Each invalid UTF-8 byte counts as
// U+FFFD (Java's decoder may fold a broken sequence into one U+FFFD; tags are valid UTF-8 in
// practice).
//
// Java: MessageExtBrokerInner#tagsString2tagsCode.
func TagsString2TagsCode(tags string) int64 {
	var h int32
	for _, r := range tags {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + int32(hi)
			h = 31*h + int32(lo)
			continue
		}
		h = 31*h + int32(r)
	}
	return int64(h)
}

// CRC32 returns CRC-32 (IEEE polynomial) of b masked with 0x7FFFFFFF: the record's BODYCRC and
// REGISTER_BROKER's bodyCrc32.
// Java: UtilAll#crc32.
func CRC32(b []byte) int32 {
	return int32(crc32.ChecksumIEEE(b) & 0x7FFFFFFF)
}
