package primitive

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// workedExample is the record of store-formats.md §2.2, typed in field by field from its hex
// table (not produced by any encoder of ours).
var workedExample = mustHex(
	"00000089" + // TOTALSIZE 137
		"daa320a7" + // MAGICCODE
		"77d18982" + // BODYCRC crc32("Hello") & 0x7fffffff
		"00000001" + // QUEUEID
		"00000000" + // FLAG
		"0000000000000000" + // QUEUEOFFSET
		"0000000000000000" + // PHYSICALOFFSET
		"00000000" + // SYSFLAG
		"0000018bcfe56800" + // BORNTIMESTAMP 1700000000000
		"c0a80114" + "0000ce4e" + // BORNHOST 192.168.1.20:52814
		"0000018bcfe56807" + // STORETIMESTAMP 1700000000007
		"c0a8010a" + "00002a9f" + // STOREHOST 192.168.1.10:10911
		"00000000" + // RECONSUMETIMES
		"0000000000000000" + // PreparedTransactionOffset
		"00000005" + // BODYLENGTH
		"48656c6c6f" + // BODY "Hello"
		"09" + // TOPICLENGTH
		"546f70696354657374" + // TOPIC "TopicTest"
		"0020" + // PROPERTIESLENGTH 32
		"54414753" + "01" + "54616741" + "02" + "434c5553544552" + "01" + "44656661756c74436c7573746572")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// TestDecodeWorkedExample pins MessageDecoder#decode against the hand-built record of
// store-formats.md §2.2: every field, the BODYCRC value and the derived offsetMsgId.
func TestDecodeWorkedExample(t *testing.T) {
	require.Len(t, workedExample, 137)
	m, n, err := DecodeMessage(workedExample)
	require.NoError(t, err)
	require.Equal(t, 137, n)
	require.Equal(t, int32(137), m.StoreSize)
	require.Equal(t, int32(0x77d18982), m.BodyCRC)
	require.Equal(t, CRC32([]byte("Hello")), m.BodyCRC, "BODYCRC is crc32 & 0x7fffffff of the body")
	require.Equal(t, int32(1), m.QueueID)
	require.Equal(t, int32(0), m.Flag)
	require.Equal(t, int64(0), m.QueueOffset)
	require.Equal(t, int64(0), m.CommitLogOffset)
	require.Equal(t, int32(0), m.SysFlag)
	require.Equal(t, int64(1700000000000), m.BornTimestamp)
	require.Equal(t, "192.168.1.20:52814", m.BornHost)
	require.Equal(t, int64(1700000000007), m.StoreTimestamp)
	require.Equal(t, "192.168.1.10:10911", m.StoreHost)
	require.Equal(t, int32(0), m.ReconsumeTimes)
	require.Equal(t, int64(0), m.PreparedTransactionOffset)
	require.Equal(t, []byte("Hello"), m.Body)
	require.Equal(t, "TopicTest", m.Topic)
	require.Equal(t, map[string]string{"TAGS": "TagA", "CLUSTER": "DefaultCluster"}, m.Properties)
	require.Equal(t, "C0A8010A00002A9F0000000000000000", m.OffsetMsgID)
	require.Equal(t, m.OffsetMsgID, m.MsgID, "without UNIQ_KEY the MsgID is the offsetMsgId")
	require.Equal(t, "TagA", m.Tags())
}

// record builds a record by hand from its parts (used to vary one field at a time).
type recordParts struct {
	total       int32 // 0: computed
	magic       string
	physOff     string
	sysFlag     string
	bornHost    string
	storeHost   string
	body, topic string
	props       string
}

func buildRecord(p recordParts) []byte {
	body := hex.EncodeToString([]byte(p.body))
	topic := hex.EncodeToString([]byte(p.topic))
	props := hex.EncodeToString([]byte(p.props))
	h := func(n int, v int) string {
		const digits = "0123456789abcdef"
		out := make([]byte, 2*n)
		for i := 2*n - 1; i >= 0; i-- {
			out[i] = digits[v&0xf]
			v >>= 4
		}
		return string(out)
	}
	rest := "00000000" + "00000002" + "00000007" + "000000000000000a" + p.physOff + p.sysFlag +
		"0000018bcfe56800" + p.bornHost + "0000018bcfe56807" + p.storeHost + "00000003" +
		"0000000000000000" + h(4, len(p.body)) + body + h(1, len(p.topic)) + topic +
		h(2, len(p.props)) + props
	total := p.total
	if total == 0 {
		total = int32(8 + len(rest)/2)
	}
	return mustHex(h(4, int(total)) + p.magic + rest)
}

func defaultParts() recordParts {
	return recordParts{
		magic:     "daa320a7",
		physOff:   "0000000000001000",
		sysFlag:   "00000000",
		bornHost:  "7f00000100003039",
		storeHost: "0a00000900002a9f",
		body:      "xy",
		topic:     "T",
		props:     "UNIQ_KEY\x01ABC\x02WAIT\x01false\x02",
	}
}

// TestDecodeMessageVariants pins the decoder's reading of sysFlag host bits, UNIQ_KEY and the
// rejection of garbage (Java MessageDecoder#decode field order; our extra checks).
func TestDecodeMessageVariants(t *testing.T) {
	v6 := "20010db8000000000000000000000001" + "00002a9f"
	tests := []struct {
		name      string
		edit      func(p *recordParts)
		wantErr   error
		bornHost  string
		storeHost string
		msgID     string
		offMsgID  string
	}{
		{name: "ipv4 with UNIQ_KEY", edit: func(*recordParts) {}, bornHost: "127.0.0.1:12345",
			storeHost: "10.0.0.9:10911", msgID: "ABC", offMsgID: "0A00000900002A9F0000000000001000"},
		{name: "ipv6 born host (bit4)", edit: func(p *recordParts) { p.sysFlag = "00000010"; p.bornHost = v6 },
			bornHost: "[2001:db8::1]:10911", storeHost: "10.0.0.9:10911", msgID: "ABC",
			offMsgID: "0A00000900002A9F0000000000001000"},
		{name: "ipv6 store host (bit5)", edit: func(p *recordParts) { p.sysFlag = "00000020"; p.storeHost = v6 },
			bornHost: "127.0.0.1:12345", storeHost: "[2001:db8::1]:10911", msgID: "ABC",
			offMsgID: "20010DB800000000000000000000000100002A9F0000000000001000"},
		{name: "no UNIQ_KEY", edit: func(p *recordParts) { p.props = "" }, bornHost: "127.0.0.1:12345",
			storeHost: "10.0.0.9:10911", msgID: "0A00000900002A9F0000000000001000",
			offMsgID: "0A00000900002A9F0000000000001000"},
		{name: "blank magic", edit: func(p *recordParts) { p.magic = "cbd43194" }, wantErr: ErrBadMagic},
		{name: "v6 bit without v6 bytes", edit: func(p *recordParts) { p.sysFlag = "00000010" }, wantErr: ErrCorruptRecord},
		{name: "TOTALSIZE too large", edit: func(p *recordParts) { p.total = 500 }, wantErr: ErrTruncated},
		{name: "TOTALSIZE too small for fields", edit: func(p *recordParts) { p.total = 100 }, wantErr: ErrCorruptRecord},
		{name: "TOTALSIZE below minimum", edit: func(p *recordParts) { p.total = 12 }, wantErr: ErrCorruptRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := defaultParts()
			tt.edit(&p)
			b := buildRecord(p)
			m, n, err := DecodeMessage(b)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, len(b), n)
			require.Equal(t, tt.bornHost, m.BornHost)
			require.Equal(t, tt.storeHost, m.StoreHost)
			require.Equal(t, tt.msgID, m.MsgID)
			require.Equal(t, tt.offMsgID, m.OffsetMsgID)
			require.Equal(t, int32(2), m.QueueID)
			require.Equal(t, int32(7), m.Flag)
			require.Equal(t, int64(10), m.QueueOffset)
			require.Equal(t, int32(3), m.ReconsumeTimes)
			require.Equal(t, []byte("xy"), m.Body)
			require.Equal(t, "T", m.Topic)
		})
	}
}

// TestDecodeMessagesConcatenated pins the pull-body walk (Java MessageDecoder#decodes): records
// follow each other; a truncated tail is an error that keeps the messages before it.
func TestDecodeMessagesConcatenated(t *testing.T) {
	second := buildRecord(defaultParts())
	b := append(append([]byte(nil), workedExample...), second...)
	msgs, err := DecodeMessages(b)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, "TopicTest", msgs[0].Topic)
	require.Equal(t, "ABC", msgs[1].MsgID)

	msgs, err = DecodeMessages(b[:len(b)-1])
	require.ErrorIs(t, err, ErrTruncated)
	require.Len(t, msgs, 1)
	require.Contains(t, err.Error(), "record at byte 137")

	for i := range len(workedExample) {
		_, _, err := DecodeMessage(workedExample[:i])
		require.Error(t, err, "prefix of %d bytes", i)
		require.True(t, errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorruptRecord), "prefix %d: %v", i, err)
	}
}

// TestDecodedBodyIsCopied pins that the decoder does not alias its input (it may be an
// mmapped CommitLog file that is unmapped later).
func TestDecodedBodyIsCopied(t *testing.T) {
	b := append([]byte(nil), workedExample...)
	m, _, err := DecodeMessage(b)
	require.NoError(t, err)
	b[88] = 'J'
	require.Equal(t, []byte("Hello"), m.Body)
}

// TestRecordConstants pins the record constants (store-formats.md §2.1, §2.3).
func TestRecordConstants(t *testing.T) {
	magic, blank := MessageMagicCode, BlankMagicCode
	require.Equal(t, int32(-626843481), int32(magic))
	require.Equal(t, int32(-875286124), int32(blank))
	require.Equal(t, 91, MinRecordSize)
	require.Equal(t, 127, MaxTopicLength)
	require.Equal(t, 32767, MaxPropertiesLength)
}

// DecodeMessages reuses a host string only for the same host bytes: records whose born and
// store hosts change from one to the next (IPv4 and IPv6, other ports) each get their own.
func TestDecodeMessagesHostsPerRecord(t *testing.T) {
	hosts := [][2]string{
		{"192.168.1.20:52814", "192.168.1.10:10911"},
		{"192.168.1.20:52814", "192.168.1.10:10911"},
		{"192.168.1.21:52814", "192.168.1.10:10912"},
		{"[2001:db8::1]:7", "192.168.1.10:10912"},
		{"192.168.1.20:52814", "[2001:db8::2]:10911"},
	}
	var body []byte
	for i, h := range hosts {
		rec, err := EncodeMessage(&MessageExt{Message: Message{Topic: "T", Body: []byte("x")}, QueueOffset: int64(i),
			BornHost: h[0], StoreHost: h[1]})
		require.NoError(t, err)
		body = append(body, rec...)
	}
	msgs, err := DecodeMessages(body)
	require.NoError(t, err)
	require.Len(t, msgs, len(hosts))
	for i, h := range hosts {
		require.Equal(t, h[0], msgs[i].BornHost, "record %d", i)
		require.Equal(t, h[1], msgs[i].StoreHost, "record %d", i)
	}
}
