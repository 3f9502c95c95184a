//go:build !race

package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHotPathAllocations: the per-message helpers on the send path stay allocation-light.
func TestHotPathAllocations(t *testing.T) {
	host := mustHex("0a000009 00002a9f")
	require.Equal(t, 1.0, testing.AllocsPerRun(100, func() { _ = CreateOffsetMsgID(host, 4096) }),
		"CreateOffsetMsgID: only the string")
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = TagsString2TagsCode("TagA中文") }))
	props := map[string]string{"TAGS": "TagA", "UNIQ_KEY": "C0A8010A00002A9F0000000000000000", "CLUSTER": "DefaultCluster"}
	require.Equal(t, 1.0, testing.AllocsPerRun(100, func() { _ = MarshalProperties(props) }),
		"MarshalProperties: only the string")
}
