package client

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// One batch entry against hand-built bytes (remoting-protocol.md §6.2): body "xy", flag 7,
// properties TAGS=A (6 bytes, no trailing 0x02: Java 4.9.3+): TOTALSIZE 22+2+6 = 30, MAGICCODE
// and BODYCRC 0. Java: MessageDecoder#encodeMessage.
func TestAppendEncodedMessageFixture(t *testing.T) {
	m := &primitive.Message{Flag: 7, Body: []byte("xy"), Properties: map[string]string{"TAGS": "A"}}
	got, err := AppendEncodedMessage(nil, m)
	require.NoError(t, err)
	want := "0000001e" + "00000000" + "00000000" + "00000007" + "00000002" + "7879" + "0006" + "54414753" + "01" + "41"
	require.Equal(t, want, hex.EncodeToString(got))
}

// A batch body decodes with the broker's reader into the same messages, in order.
func TestMessageBatchEncodeRoundTrip(t *testing.T) {
	msgs := []*primitive.Message{
		{Topic: "T", Body: []byte("one"), Properties: map[string]string{"KEYS": "k1", "UNIQ_KEY": "U1"}},
		{Topic: "T", Flag: 3, Body: []byte("two")},
	}
	b, err := GenerateFromList(msgs)
	require.NoError(t, err)
	require.Equal(t, "T", b.Topic)
	require.Equal(t, map[string]string{"WAIT": "true"}, b.Properties, "the envelope carries the first WAIT")
	body, err := b.Encode()
	require.NoError(t, err)
	decoded, err := primitive.DecodeBatchBody(body)
	require.NoError(t, err)
	require.Len(t, decoded, 2)
	require.Equal(t, []byte("one"), decoded[0].Body)
	require.Equal(t, msgs[0].Properties, decoded[0].Properties)
	require.Equal(t, int32(3), decoded[1].Flag)
	require.Equal(t, []byte("two"), decoded[1].Body)
}

// MessageBatch#generateFromList refuses: an empty list, a delay level, a %RETRY% topic, mixed
// topics, mixed WAIT flags; an over-long properties string fails the encoding.
func TestGenerateFromListRefusals(t *testing.T) {
	msg := func(topic string, props map[string]string) *primitive.Message {
		return &primitive.Message{Topic: topic, Body: []byte("b"), Properties: props}
	}
	for _, tc := range []struct {
		name string
		msgs []*primitive.Message
	}{
		{"empty", nil},
		{"nil message", []*primitive.Message{msg("T", nil), nil}},
		{"delay", []*primitive.Message{msg("T", map[string]string{"DELAY": "3"})}},
		{"retry topic", []*primitive.Message{msg("%RETRY%g", nil)}},
		{"mixed topics", []*primitive.Message{msg("T", nil), msg("U", nil)}},
		{"mixed WAIT", []*primitive.Message{msg("T", nil), msg("T", map[string]string{"WAIT": "false"})}},
	} {
		_, err := GenerateFromList(tc.msgs)
		require.ErrorIs(t, err, ErrMessageIllegal, tc.name)
	}
	b, err := GenerateFromList([]*primitive.Message{msg("T", map[string]string{"big": strings.Repeat("x", 32768)})})
	require.NoError(t, err)
	_, err = b.Encode()
	require.True(t, errors.Is(err, ErrMessageIllegal))
}
