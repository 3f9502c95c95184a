//go:build !race

package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHeaderDecodeAllocations: decoding the hot-path headers (send, pull) allocates nothing;
// values alias the extFields strings.
func TestHeaderDecodeAllocations(t *testing.T) {
	send, v2, pull := clientGoSendV1(), clientGoSendV2(), clientGoPull()
	var sh SendMessageRequestHeader
	var ph PullMessageRequestHeader
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = sh.Decode(send) }))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _ = DecodeSendMessageRequestHeaderV2(v2) }))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = ph.Decode(pull) }))
}

// TestTaggedHeaderDecodeAllocations: the tag-driven decoder allocates nothing on success either.
func TestTaggedHeaderDecodeAllocations(t *testing.T) {
	ext := map[string]string{"consumerGroup": "g", "topic": "t", "queueId": "3", "commitOffset": "99", "bname": "b"}
	var h UpdateConsumerOffsetRequestHeader
	require.NoError(t, h.Decode(ext))
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = h.Decode(ext) }))
}
