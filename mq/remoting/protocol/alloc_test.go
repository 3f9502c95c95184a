//go:build !race

package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeaderDecodeAllocations: decoding the hot-path headers (send, pull) allocates nothing;
// values alias the extFields strings. The header is declared inside the measured function, so
// a DecodeHeader that let it escape (an interface call would) counts as an allocation.
func TestHeaderDecodeAllocations(t *testing.T) {
	send, v2, pull := clientGoSendV1(), clientGoSendV2(), clientGoPull()
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		var sh SendMessageRequestHeader
		_ = DecodeHeader(send, &sh)
	}))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _ = DecodeSendMessageRequestHeaderV2(v2) }))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		var ph PullMessageRequestHeader
		_ = DecodeHeader(pull, &ph)
	}))
}

// TestTaggedHeaderDecodeAllocations: the tag-driven decoder allocates nothing on success either,
// checkFields included.
func TestTaggedHeaderDecodeAllocations(t *testing.T) {
	ext := map[string]string{"consumerGroup": "g", "topic": "t", "queueId": "3", "commitOffset": "99", "bname": "b"}
	var h UpdateConsumerOffsetRequestHeader
	require.NoError(t, DecodeHeader(ext, &h))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		var h UpdateConsumerOffsetRequestHeader
		_ = DecodeHeader(ext, &h)
	}))
	end := map[string]string{"producerGroup": "pg", "tranStateTableOffset": "1", "commitLogOffset": "2",
		"commitOrRollback": "8", "msgId": "m"}
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		var h EndTransactionRequestHeader
		_ = DecodeHeader(end, &h)
	}))
}
