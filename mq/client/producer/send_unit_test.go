package producer

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// A 4.9.8 producer marks a compressed body with COMPRESSED_FLAG (0x1) and the zlib type 3 in
// bits 8–10 (MessageSysFlag.COMPRESSION_ZLIB_TYPE = 0x300); the body is RFC 1950 zlib.
func TestCompressionSysFlag(t *testing.T) {
	require.Equal(t, int32(0x300), compressionZlibType)
	require.Equal(t, int32(0x301), primitive.CompressedFlag|compressionZlibType)
	body := []byte(strings.Repeat("RocketMQ ", 1000))
	z, err := compress(body, 5)
	require.NoError(t, err)
	require.Equal(t, byte(0x78), z[0], "zlib header")
	r, err := zlib.NewReader(bytes.NewReader(z))
	require.NoError(t, err)
	back, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, body, back)
	_, err = compress(body, 42)
	require.Error(t, err)
}

// Validators#checkMessage: a valid topic producers may use, a body of 1..maxMessageSize bytes.
func TestCheckMessage(t *testing.T) {
	p := NewDefaultMQProducer(DefaultConfig("g"))
	p.cfg.MaxMessageSize = 10
	for _, tc := range []struct {
		name string
		msg  *primitive.Message
		ok   bool
	}{
		{"ok", &primitive.Message{Topic: "T", Body: []byte("x")}, true},
		{"max size", &primitive.Message{Topic: "T", Body: make([]byte, 10)}, true},
		{"nil", nil, false},
		{"blank topic", &primitive.Message{Topic: " ", Body: []byte("x")}, false},
		{"bad topic", &primitive.Message{Topic: "a b", Body: []byte("x")}, false},
		{"long topic", &primitive.Message{Topic: strings.Repeat("t", 128), Body: []byte("x")}, false},
		{"system topic", &primitive.Message{Topic: "SCHEDULE_TOPIC_XXXX", Body: []byte("x")}, false},
		{"empty body", &primitive.Message{Topic: "T"}, false},
		{"too big", &primitive.Message{Topic: "T", Body: make([]byte, 11)}, false},
	} {
		n := 0
		if tc.msg != nil {
			n = len(tc.msg.Body)
		}
		err := p.checkMessage(tc.msg, n)
		if tc.ok {
			require.NoError(t, err, tc.name)
		} else {
			require.ErrorIs(t, err, client.ErrMessageIllegal, tc.name)
		}
	}
}

// MixAll#brokerVIPChannel: port − 2 when enabled.
func TestBrokerVIPChannel(t *testing.T) {
	require.Equal(t, "10.0.0.1:10911", brokerVIPChannel(false, "10.0.0.1:10911"))
	require.Equal(t, "10.0.0.1:10909", brokerVIPChannel(true, "10.0.0.1:10911"))
	require.Equal(t, "[::1]:10909", brokerVIPChannel(true, "[::1]:10911"))
	require.Equal(t, "nonsense", brokerVIPChannel(true, "nonsense"))
}

// SelectMessageQueueByHash uses Java's hashCode: "abc".hashCode() = 96354, so with 4 queues
// queue 96354 % 4 = 2; Integer hashes are the value; negative hashes use their absolute value.
func TestSelectMessageQueueByHash(t *testing.T) {
	mqs := []primitive.MessageQueue{{Topic: "T", QueueID: 0}, {Topic: "T", QueueID: 1}, {Topic: "T", QueueID: 2}, {Topic: "T", QueueID: 3}}
	sel := SelectMessageQueueByHash{}
	for _, tc := range []struct {
		arg  any
		want int32
	}{
		{"abc", 2}, {int32(7), 3}, {7, 3}, {-7, 3}, {int64(1) << 32, 1}, {struct{}{}, int32(javaHashCode("{}")) % 4},
	} {
		require.Equal(t, tc.want, sel.Select(mqs, nil, tc.arg).QueueID, "%v", tc.arg)
	}
	require.Equal(t, int32(96354), javaHashCode("abc"))
	require.Equal(t, primitive.MessageQueue{}, sel.Select(nil, nil, "x"))
	r := SelectMessageQueueByRandom{}.Select(mqs, nil, nil)
	require.Equal(t, "T", r.Topic)
}
