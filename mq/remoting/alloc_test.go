//go:build !race

package remoting

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncodeFrameAllocatesNothing: with a reused buffer, encoding a frame (header with up to 32
// extFields, body) allocates nothing — the writer goroutine encodes every outgoing frame.
func TestEncodeFrameAllocatesNothing(t *testing.T) {
	for _, c := range []*RemotingCommand{sendResponse(), sendRequestV2(), {SerializeType: SerializeRocketMQ, ExtFields: map[string]string{"a": "b", "c": "d"}}} {
		dst := EncodeFrame(nil, c)
		n := testing.AllocsPerRun(200, func() { dst = EncodeFrame(dst[:0], c) })
		require.Zero(t, n)
	}
}
