package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreateOffsetMsgID pins MessageDecoder#createMessageId (upper-case hex of store host +
// port + commitLogOffset) with the values of remoting-protocol.md §6.1 and store-formats.md §2.2.
func TestCreateOffsetMsgID(t *testing.T) {
	tests := []struct {
		host   string
		offset int64
		want   string
	}{
		{"10.0.0.9:10911", 4096, "0A00000900002A9F0000000000001000"},
		{"192.168.1.10:10911", 0, "C0A8010A00002A9F0000000000000000"},
		{"[2001:db8::1]:10911", 137, "20010DB800000000000000000000000100002A9F0000000000000089"},
		{"255.255.255.255:65535", -1, "FFFFFFFF0000FFFFFFFFFFFFFFFFFFFF"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			hb, err := HostBytes(tt.host)
			require.NoError(t, err)
			id := CreateOffsetMsgID(hb, tt.offset)
			require.Equal(t, tt.want, id)

			host, off, err := DecodeOffsetMsgID(id)
			require.NoError(t, err)
			require.Equal(t, tt.host, host)
			require.Equal(t, tt.offset, off)
		})
	}
}

// TestDecodeOffsetMsgIDErrors pins the accepted forms: 32 or 56 hex chars, either case.
func TestDecodeOffsetMsgIDErrors(t *testing.T) {
	host, off, err := DecodeOffsetMsgID("0a00000900002a9f0000000000001000")
	require.NoError(t, err, "lower case accepted")
	require.Equal(t, "10.0.0.9:10911", host)
	require.Equal(t, int64(4096), off)

	for _, bad := range []string{"", "0A000009", "0A00000900002A9F000000000000100", "0A00000900002A9F000000000000100G",
		"0A00000900002A9F0000000000001000" + "00", "0A000009FFFFFFFF0000000000001000"} {
		_, _, err := DecodeOffsetMsgID(bad)
		require.ErrorIs(t, err, ErrBadMsgID, bad)
	}
}

// TestHostBytes pins the record host field (MessageExt#socketAddress2ByteBuffer): 4+4 or 16+4
// bytes, port big-endian; IPv4-mapped IPv6 is IPv4.
func TestHostBytes(t *testing.T) {
	b, err := HostBytes("192.168.1.10:10911")
	require.NoError(t, err)
	require.Equal(t, mustHex("c0a8010a 00002a9f"), b)
	require.Equal(t, "192.168.1.10:10911", HostString(b))

	b, err = HostBytes("[::ffff:10.0.0.1]:1")
	require.NoError(t, err)
	require.Equal(t, mustHex("0a000001 00000001"), b)

	b, err = HostBytes("[::1]:9876")
	require.NoError(t, err)
	require.Len(t, b, 20)
	require.Equal(t, "[::1]:9876", HostString(b))

	for _, bad := range []string{"localhost:10911", "10.0.0.1", "10.0.0.1:99999", ""} {
		_, err := HostBytes(bad)
		require.ErrorIs(t, err, ErrBadHost, bad)
	}
	require.Equal(t, "", HostString([]byte{1, 2, 3}))
	require.Equal(t, "", HostString(mustHex("0a000001 ffffffff")), "negative port")
}

// TestMessageQueueString pins MessageQueue#toString.
func TestMessageQueueString(t *testing.T) {
	mq := MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 3}
	require.Equal(t, "MessageQueue [topic=T, brokerName=broker-a, queueId=3]", mq.String())
}
