package primitive

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeMessages: arbitrary bytes (network pull bodies, disk) never panic; whatever decodes
// has consistent sizes.
func FuzzDecodeMessages(f *testing.F) {
	f.Add(workedExample)
	f.Add(buildRecord(defaultParts()))
	f.Add(append(append([]byte(nil), workedExample...), workedExample[:40]...))
	f.Add([]byte{0, 0, 0, 91, 0xDA, 0xA3, 0x20, 0xA7})
	f.Fuzz(func(t *testing.T, b []byte) {
		msgs, err := DecodeMessages(b)
		total := 0
		for _, m := range msgs {
			require.GreaterOrEqual(t, m.StoreSize, int32(MinRecordSize))
			require.NotEmpty(t, m.MsgID)
			total += int(m.StoreSize)
		}
		if err == nil {
			require.Equal(t, len(b), total)
		}
	})
}

// FuzzDecodeBatchBody: arbitrary batch bodies never panic.
func FuzzDecodeBatchBody(f *testing.F) {
	f.Add(mustHex("0000001f 00000000 00000000 00000000 00000002 7879 0007 54414753 01 41 02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := DecodeBatchEntries(b)
		if err == nil {
			n := 0
			for _, e := range entries {
				n += 22 + len(e.Body) + len(e.PropertiesString)
			}
			require.Equal(t, len(b), n)
		}
	})
}

// FuzzProperties: parse never panics, and re-marshalling what was parsed parses to the same map.
func FuzzProperties(f *testing.F) {
	f.Add("TAGS\x01TagA\x02CLUSTER\x01DefaultCluster")
	f.Add("a\x01b\x01c\x02\x02\x01")
	f.Fuzz(func(t *testing.T, s string) {
		p := UnmarshalProperties(s)
		if len(p) == 0 {
			return
		}
		require.Equal(t, p, UnmarshalProperties(MarshalProperties(p)))
	})
}

// FuzzDecodeOffsetMsgID: ids from the network (END_TRANSACTION, admin) never panic.
func FuzzDecodeOffsetMsgID(f *testing.F) {
	f.Add("0A00000900002A9F0000000000001000")
	f.Fuzz(func(t *testing.T, id string) {
		host, off, err := DecodeOffsetMsgID(id)
		if err != nil {
			return
		}
		hb, err := HostBytes(host)
		require.NoError(t, err)
		if len(hb) == 20 && len(id) == 32 {
			t.Fatalf("v4 id decoded to v6 host %q", host)
		}
		_ = off
	})
}

// FuzzEncodeDecodedMessage: any record DecodeMessage accepts encodes back (EncodeMessage, the
// CHECK_TRANSACTION_STATE body) to a record that decodes to the same message.
func FuzzEncodeDecodedMessage(f *testing.F) {
	f.Add(workedExample)
	f.Add(buildRecord(defaultParts()))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _, err := DecodeMessage(b)
		if err != nil {
			return
		}
		out, err := EncodeMessage(m)
		if len(m.Topic) > MaxTopicLength { // a 1-byte length reads up to 255; Java's signed byte 127
			require.ErrorIs(t, err, ErrCorruptRecord)
			return
		}
		require.NoError(t, err)
		back, n, err := DecodeMessage(out)
		require.NoError(t, err)
		require.Equal(t, len(out), n)
		if len(m.Properties) == 0 {
			m.Properties = nil // an empty properties string decodes to nil
		}
		require.Equal(t, m.Body, back.Body)
		require.Equal(t, m.Topic, back.Topic)
		require.Equal(t, m.Properties, back.Properties)
		require.Equal(t, m.BornHost, back.BornHost)
		require.Equal(t, m.StoreHost, back.StoreHost)
		require.Equal(t, m.CommitLogOffset, back.CommitLogOffset)
		require.Equal(t, m.QueueOffset, back.QueueOffset)
	})
}
