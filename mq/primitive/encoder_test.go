package primitive

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncodeWorkedExample pins MessageDecoder#encode against the hand-built record of
// store-formats.md §2.2: the decoded example encodes back to the same bytes, except the
// properties, which MarshalProperties writes sorted (CLUSTER before TAGS) where the example
// has them in HashMap order.
func TestEncodeWorkedExample(t *testing.T) {
	m, _, err := DecodeMessage(workedExample)
	require.NoError(t, err)
	b, err := EncodeMessage(m)
	require.NoError(t, err)
	require.Len(t, b, len(workedExample), "TOTALSIZE is the same")
	propsAt := len(workedExample) - 32
	require.Equal(t, workedExample[:propsAt], b[:propsAt], "every field before the properties is byte-exact")
	require.Equal(t, "CLUSTER\x01DefaultCluster\x02TAGS\x01TagA", string(b[propsAt:]))

	back, n, err := DecodeMessage(b)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, m, back, "the encoding decodes to the same message")
}

// TestEncodeSetsTheHostFlags: an IPv6 born host makes a 20-byte field and sets sysFlag bit 4;
// the TOTALSIZE grows by 12 and the record still decodes.
func TestEncodeSetsTheHostFlags(t *testing.T) {
	m := &MessageExt{Message: Message{Topic: "T", Body: []byte("x")}, BornHost: "[::1]:5000", StoreHost: "127.0.0.1:10911"}
	b, err := EncodeMessage(m)
	require.NoError(t, err)
	require.Len(t, b, MinRecordSize+12+1+1)
	back, _, err := DecodeMessage(b)
	require.NoError(t, err)
	require.Equal(t, BornHostV6Flag, back.SysFlag)
	require.Equal(t, "[::1]:5000", back.BornHost)
	require.True(t, bytes.Equal([]byte("x"), back.Body))
}

// TestEncodeRefusesBadInput: a host that is not ip:port and a topic too long for its 1-byte
// length are errors, not a broken record.
func TestEncodeRefusesBadInput(t *testing.T) {
	_, err := EncodeMessage(&MessageExt{BornHost: "somehost:1", StoreHost: "127.0.0.1:1"})
	require.True(t, errors.Is(err, ErrBadHost), "got %v", err)
	_, err = EncodeMessage(&MessageExt{Message: Message{Topic: strings.Repeat("t", 128)}, BornHost: "127.0.0.1:1", StoreHost: "127.0.0.1:1"})
	require.True(t, errors.Is(err, ErrCorruptRecord), "got %v", err)
}

// TestCopyToInner: a re-put copies the stored fields for the new topic and queue, and owns its
// properties map (changing it leaves the stored message's alone).
func TestCopyToInner(t *testing.T) {
	m := &MessageExt{Message: Message{Topic: "T", Flag: 3, Body: []byte("b"), Properties: map[string]string{"K": "v"}},
		SysFlag: 8, BornTimestamp: 5, BornHost: "127.0.0.1:1", StoreHost: "127.0.0.1:2", ReconsumeTimes: 4, QueueID: 9}
	in := m.CopyToInner("Real", 2)
	require.Equal(t, "Real", in.Topic)
	require.Equal(t, int32(2), in.QueueID)
	require.Equal(t, []byte("b"), in.Body)
	require.Equal(t, int32(3), in.Flag)
	require.Equal(t, int32(8), in.SysFlag)
	require.Equal(t, int64(5), in.BornTimestamp)
	require.Equal(t, "127.0.0.1:1", in.BornHost)
	require.Equal(t, "127.0.0.1:2", in.StoreHost)
	require.Equal(t, int32(4), in.ReconsumeTimes)
	in.Properties["K"] = "changed"
	require.Equal(t, "v", m.Properties["K"])
	require.NotNil(t, (&MessageExt{}).CopyToInner("x", 0).Properties)
}
