package remoting

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWireConstants pins the literal values of the generic codes, flag bits, serialize types,
// version and frame limit. Java: RemotingSysResponseCode, RemotingCommand.RPC_TYPE/RPC_ONEWAY,
// SerializeType, MQVersion.Version.V4_9_8 ordinal, NettyDecoder.FRAME_MAX_LENGTH.
func TestWireConstants(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want int64
	}{
		{"SUCCESS", int64(Success), 0},
		{"SYSTEM_ERROR", int64(SystemError), 1},
		{"SYSTEM_BUSY", int64(SystemBusy), 2},
		{"REQUEST_CODE_NOT_SUPPORTED", int64(RequestCodeNotSupported), 3},
		{"RPC_TYPE response bit", int64(FlagResponse), 1},
		{"RPC_ONEWAY bit", int64(FlagOneway), 2},
		{"SerializeType.JSON", int64(SerializeJSON), 0},
		{"SerializeType.ROCKETMQ", int64(SerializeRocketMQ), 1},
		{"V4_9_8", int64(DefaultVersion), 409},
		{"frameMaxLength", DefaultMaxFrameSize, 16 * 1024 * 1024},
		{"ROCKETMQ fixed header", rocketMQFixedHeaderLen, 21},
	} {
		require.Equal(t, tc.want, tc.got, tc.name)
	}
	require.Equal(t, "GO", languageNames[9], "LanguageCode.GO ordinal")
	require.Equal(t, "RUST", languageNames[12], "LanguageCode.RUST ordinal")
}

// TestDecodeClientGoFrame decodes a request frame built byte by byte the way client-go's
// RemotingCommand.WriteTo lays it out (remoting-protocol.md §1.1): length, header-length word
// with type 0 in the high byte, jsoniter header in struct order with remark "" and extFields
// present, body.
func TestDecodeClientGoFrame(t *testing.T) {
	header := `{"code":10,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"T"}}`
	require.Len(t, header, 99)
	frame := []byte{
		0x00, 0x00, 0x00, 0x69, // length = 4 + 99 + 2 = 105
		0x00,             // serialize type JSON
		0x00, 0x00, 0x63, // header length 99
	}
	frame = append(frame, header...)
	frame = append(frame, 'h', 'i')
	require.Len(t, frame, 4+105)

	c, err := DecodeFrame(frame[4:])
	require.NoError(t, err)
	require.Equal(t, &RemotingCommand{
		Code: 10, Language: "GO", Version: 317, Opaque: 1, Flag: 0,
		ExtFields: map[string]string{"topic": "T"}, Body: []byte("hi"),
		SerializeType: SerializeJSON,
	}, c)
	require.False(t, c.IsResponse())
	require.False(t, c.IsOneway())
}

// TestEncodeResponseFixture pins our response bytes: Java 4.9.8's fields (language JAVA,
// version 409, flag 1 = response), no remark and no extFields when empty, the frame layout of
// remoting-protocol.md §1.1.
func TestEncodeResponseFixture(t *testing.T) {
	c := NewResponse(Success, "")
	c.Opaque = 7
	c.Body = []byte("ok")
	want := []byte{
		0x00, 0x00, 0x00, 0x44, // length = 4 + 62 + 2 = 68
		0x00, 0x00, 0x00, 0x3e, // JSON, header length 62
	}
	want = append(want, `{"code":0,"language":"JAVA","version":409,"opaque":7,"flag":1}`...)
	want = append(want, 'o', 'k')
	require.Equal(t, string(want), string(EncodeFrame(nil, c)))

	// Appends after existing bytes rather than overwriting them.
	prefix := []byte("xyz")
	require.Equal(t, "xyz"+string(want), string(EncodeFrame(prefix, c)))
}

// TestEncodeExtFieldsAndEscapes: extFields are strings in key order; quotes, backslashes and
// control characters are escaped; UTF-8 passes through; remark written when non-empty.
func TestEncodeExtFieldsAndEscapes(t *testing.T) {
	c := &RemotingCommand{
		Code: 310, Version: 409, Opaque: -5, Flag: 2,
		Remark:    "a\"b\\c\nd\x01é",
		ExtFields: map[string]string{"z": "1", "a": "x", "m": ""},
	}
	frame := EncodeFrame(nil, c)
	header := string(frame[8:])
	require.Equal(t,
		`{"code":310,"language":"JAVA","version":409,"opaque":-5,"flag":2,"remark":"a\"b\\c\nd\u0001é","extFields":{"a":"x","m":"","z":"1"}}`,
		header)
	back, err := DecodeFrame(frame[4:])
	require.NoError(t, err)
	require.Equal(t, c.Remark, back.Remark)
	require.Equal(t, c.ExtFields, back.ExtFields)
	require.Equal(t, "JAVA", back.Language)
}

// TestDecodeJSONHeaderVariants: what Java (fastjson) and other clients send. Pitfall 11:
// numbers and booleans in extFields are read as their string form; null values are dropped.
func TestDecodeJSONHeaderVariants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header string
		want   RemotingCommand
	}{
		{
			name:   "java response, alphabetical, no extFields no remark",
			header: `{"code":0,"flag":1,"language":"JAVA","opaque":12,"serializeTypeCurrentRPC":"JSON","version":409}`,
			want:   RemotingCommand{Code: 0, Flag: 1, Language: "JAVA", Opaque: 12, Version: 409},
		},
		{
			name:   "numbers and booleans in extFields",
			header: `{"code":11,"extFields":{"queueId":0,"batch":false,"unit":true,"off":-12,"f":1.5e3,"s":"x","n":null}}`,
			want: RemotingCommand{Code: 11, ExtFields: map[string]string{
				"queueId": "0", "batch": "false", "unit": "true", "off": "-12", "f": "1.5e3", "s": "x",
			}},
		},
		{
			name:   "whitespace, unknown keys with nested values, null remark",
			header: " {\n \"unknown\" : {\"a\":[1,2,{\"b\":null}],\"c\":\"}\"} ,\t\"remark\":null, \"code\" : 7 , \"extFields\" : { } }\r\n",
			want:   RemotingCommand{Code: 7},
		},
		{
			name:   "escapes and surrogate pair",
			header: `{"code":1,"remark":"\u00e9\ud83d\ude00\/\t\"","extFields":{"k\u0041":"v\\"}}`,
			want:   RemotingCommand{Code: 1, Remark: "é😀/\t\"", ExtFields: map[string]string{"kA": "v\\"}},
		},
		{
			// Bytes client-go's encode produced in a probe (jsoniter escapes <, &, >).
			name:   "client-go header with HTML escapes",
			header: `{"code":11,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"a\"b","extFields":{"topic":"T\u003c\u0026\u003e","queueId":"1"}}`,
			want: RemotingCommand{Code: 11, Language: "GO", Version: 317, Opaque: 1, Remark: `a"b`,
				ExtFields: map[string]string{"topic": "T<&>", "queueId": "1"}},
		},
		{
			name:   "lone surrogate becomes U+FFFD",
			header: `{"remark":"\ud800x"}`,
			want:   RemotingCommand{Remark: "\uFFFDx"},
		},
		{
			name:   "numeric strings and integral floats for int fields, language ordinal",
			header: `{"code":"105","opaque":3.0,"flag":null,"language":9}`,
			want:   RemotingCommand{Code: 105, Opaque: 3, Language: "GO"},
		},
		{
			name:   "extFields null, object value kept as raw JSON",
			header: `{"extFields":null,"code":2}`,
			want:   RemotingCommand{Code: 2},
		},
		{
			name:   "object as an extFields value",
			header: `{"extFields":{"o":{"a": 1}}}`,
			want:   RemotingCommand{ExtFields: map[string]string{"o": `{"a": 1}`}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c RemotingCommand
			require.NoError(t, decodeJSONHeader([]byte(tc.header), &c, nil))
			require.Equal(t, tc.want, c)
		})
	}
}

// TestDecodeFrameErrors: every malformed frame is an error wrapping ErrMalformedFrame, never a
// panic. Java: RemotingCommand#decode throwing inside NettyDecoder (the channel is then closed).
func TestDecodeFrameErrors(t *testing.T) {
	word := func(typ byte, hl int) []byte { return []byte{typ, byte(hl >> 16), byte(hl >> 8), byte(hl)} }
	js := func(s string) []byte { return append(word(0, len(s)), s...) }
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"empty", nil},
		{"short word", []byte{0, 0, 1}},
		{"header longer than frame", append(word(0, 10), `{}`...)},
		{"unknown serialize type", append(word(2, 2), `{}`...)},
		{"not an object", js(`[]`)},
		{"truncated json", js(`{"code":1`)},
		{"trailing garbage", js(`{}{}`)},
		{"code out of int32", js(`{"code":99999999999}`)},
		{"fractional code", js(`{"code":1.5}`)},
		{"bad escape", js(`{"remark":"\x"}`)},
		{"unterminated string", js(`{"remark":"abc`)},
		{"bad literal", js(`{"remark":nul}`)},
		{"missing colon", js(`{"code" 1}`)},
		{"deep nesting", js(`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`)},
		{"binary too short", append(word(1, 3), 0, 1, 2)},
		{"binary remark length beyond header", append(word(1, 21), 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0)},
		{"binary negative ext key length", append(word(1, 27), 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0xff, 0xff, 0, 0, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeFrame(tc.frame)
			require.ErrorIs(t, err, ErrMalformedFrame)
		})
	}
}

// TestRocketMQBinaryHeader decodes a ROCKETMQ-type header built byte by byte
// (remoting-protocol.md §1.6) and checks that our encoder writes the same bytes.
// Java: RocketMQSerializable#rocketMQProtocolDecode.
func TestRocketMQBinaryHeader(t *testing.T) {
	header := []byte{
		0x00, 0x0a, // code 10
		0x09,       // language GO
		0x01, 0x3d, // version 317
		0x00, 0x00, 0x00, 0x05, // opaque 5
		0x00, 0x00, 0x00, 0x00, // flag 0
		0x00, 0x00, 0x00, 0x02, 'h', 'i', // remark "hi"
		0x00, 0x00, 0x00, 0x08, // ext block 8 bytes
		0x00, 0x01, 'a', 0x00, 0x00, 0x00, 0x01, 'b', // "a" = "b"
	}
	frame := append([]byte{0x01, 0x00, 0x00, byte(len(header))}, header...)
	frame = append(frame, 0xCA, 0xFE)
	c, err := DecodeFrame(frame)
	require.NoError(t, err)
	want := &RemotingCommand{
		Code: 10, Language: "GO", Version: 317, Opaque: 5, Remark: "hi",
		ExtFields: map[string]string{"a": "b"}, Body: []byte{0xCA, 0xFE}, SerializeType: SerializeRocketMQ,
	}
	require.Equal(t, want, c)

	full := EncodeFrame(nil, want)
	require.Equal(t, []byte{0, 0, 0, byte(4 + len(header) + 2)}, full[:4])
	require.Equal(t, frame, full[4:])
}

// TestResponseTo: a response echoes the request's opaque and serialize type and sets bit 0.
// Java: NettyRemotingAbstract#processRequestCommand.
func TestResponseTo(t *testing.T) {
	req := NewRequest(10, nil, nil)
	req.SerializeType = SerializeRocketMQ
	resp := (&RemotingCommand{Code: 5}).ResponseTo(req)
	require.Equal(t, req.Opaque, resp.Opaque)
	require.Equal(t, SerializeRocketMQ, resp.SerializeType)
	require.True(t, resp.IsResponse())
	require.False(t, req.IsResponse())

	next := NewRequest(10, nil, nil)
	require.Equal(t, req.Opaque+1, next.Opaque, "opaque comes from one process-wide counter")
	next.MarkOneway()
	require.Equal(t, FlagOneway, next.Flag)

	err := NewResponse(SystemBusy, "busy").Err()
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	require.Equal(t, &RemoteError{Code: 2, Remark: "busy"}, re)
	require.Equal(t, "CODE: 2 DESC: busy", err.Error())
	require.NoError(t, NewResponse(Success, "").Err())
}

// TestRoundTripBothTypes: encode then decode gives the command back, in both header types.
func TestRoundTripBothTypes(t *testing.T) {
	for _, typ := range []byte{SerializeJSON, SerializeRocketMQ} {
		c := &RemotingCommand{
			Code: 320, Language: "JAVA", Version: 409, Opaque: 1 << 30, Flag: 3, Remark: "r",
			ExtFields:     map[string]string{"consumerGroup": "g", "queueOffset": "123456789012"},
			Body:          []byte{0, 1, 2},
			SerializeType: typ,
		}
		got, err := DecodeFrame(EncodeFrame(nil, c)[4:])
		require.NoError(t, err)
		require.Equal(t, c, got)
	}
}

// FuzzDecodeFrame: no input makes DecodeFrame panic; whatever decodes re-encodes and decodes to
// the same command.
func FuzzDecodeFrame(f *testing.F) {
	f.Add(EncodeFrame(nil, NewRequest(10, map[string]string{"a": "1"}, []byte("body")))[4:])
	f.Add(EncodeFrame(nil, &RemotingCommand{SerializeType: SerializeRocketMQ, Remark: "x", ExtFields: map[string]string{"k": "v"}})[4:])
	f.Add(append([]byte{0, 0, 0, 30}, `{"extFields":{"q":0,"b":true}}`...))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, frame []byte) {
		c, err := DecodeFrame(frame)
		if err != nil {
			return
		}
		again, err := DecodeFrame(EncodeFrame(nil, c)[4:])
		require.NoError(t, err)
		if c.SerializeType == SerializeJSON && c.Language == "" {
			c.Language = LanguageJava // empty language encodes as JAVA
		}
		if c.SerializeType == SerializeRocketMQ {
			// The binary header carries code and version as int16 and language as a byte.
			c.Code, c.Version = int32(int16(c.Code)), int32(int16(c.Version))
			c.Language = languageName(languageCode(c.Language))
		}
		require.Equal(t, c, again)
	})
}

// TestAppendJSONStringDialects pins the two escape dialects the shared string writer serves:
// the header codec writes \b and \f as \u0008 and \u000c; fastjson (remoting/protocol bodies)
// writes them short. Both escape '"', '\\', \n, \r, \t the same and other controls as \u00XX.
func TestAppendJSONStringDialects(t *testing.T) {
	in := "a\"\\\n\r\t\b\f\x01é"
	require.Equal(t, `"a\"\\\n\r\t\u0008\u000c\u0001é"`, string(AppendJSONString(nil, in, false)))
	require.Equal(t, `"a\"\\\n\r\t\b\f\u0001é"`, string(AppendJSONString(nil, in, true)))
}

// takeShort is a CustomHeader that takes the one-letter keys.
type takeShort map[string]string

func (h takeShort) SetExtField(k, v string) bool {
	if len(k) != 1 {
		return false
	}
	h[k] = v
	return true
}

// shortHeaders gives every request code but 0 a takeShort.
func shortHeaders(code int32) CustomHeader {
	if code == 0 {
		return nil
	}
	return takeShort{}
}

// TestDecodeFrameCustomHeader: a request whose code has a CustomHeader hands it the members it
// takes (later values replacing earlier ones) and keeps the rest in ExtFields; a response, a
// code without a header and a ROCKETMQ binary header keep every member in ExtFields.
func TestDecodeFrameCustomHeader(t *testing.T) {
	frame := func(s string) []byte { return append([]byte{0, 0, 0, byte(len(s))}, s...) }
	c, err := decodeFrame(frame(`{"code":310,"extFields":{"a":"1","topic":"T","b":2,"a":"3","n":null},"flag":0}`), shortHeaders)
	require.NoError(t, err)
	require.Equal(t, takeShort{"a": "3", "b": "2"}, c.CustomHeader)
	require.Equal(t, map[string]string{"topic": "T"}, c.ExtFields)

	c, err = decodeFrame(frame(`{"code":10,"extFields":{"a":"1"},"flag":1}`), shortHeaders)
	require.NoError(t, err)
	require.Nil(t, c.CustomHeader, "a response never gets a custom header, even when its flag comes last")
	require.Equal(t, map[string]string{"a": "1"}, c.ExtFields)

	c, err = decodeFrame(frame(`{"code":0,"extFields":{"a":"1"}}`), shortHeaders)
	require.NoError(t, err)
	require.Nil(t, c.CustomHeader)
	require.Equal(t, map[string]string{"a": "1"}, c.ExtFields)

	bin := EncodeFrame(nil, &RemotingCommand{Code: 310, SerializeType: SerializeRocketMQ, ExtFields: map[string]string{"a": "1"}})[4:]
	c, err = decodeFrame(bin, shortHeaders)
	require.NoError(t, err)
	require.Nil(t, c.CustomHeader)
	require.Equal(t, map[string]string{"a": "1"}, c.ExtFields)
}

// FuzzDecodeFrameCustomHeader: with a CustomHeader source, a frame decodes exactly when it
// does without one, to the same command, except that a request's one-letter members are in its
// CustomHeader instead of ExtFields.
func FuzzDecodeFrameCustomHeader(f *testing.F) {
	f.Add(EncodeFrame(nil, NewRequest(310, map[string]string{"a": "1", "topic": "T"}, []byte("body")))[4:])
	f.Add(append([]byte{0, 0, 0, 42}, `{"extFields":{"q":0,"b":true},"code":7,"f":1}`...))
	f.Fuzz(func(t *testing.T, frame []byte) {
		want, wantErr := DecodeFrame(frame)
		got, err := decodeFrame(frame, shortHeaders)
		if wantErr != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		if h, ok := got.CustomHeader.(takeShort); ok {
			require.False(t, got.IsResponse())
			for k, v := range h {
				got.AddExtField(k, v)
			}
			got.CustomHeader = nil
		}
		if len(got.ExtFields) == 0 && len(want.ExtFields) == 0 {
			got.ExtFields, want.ExtFields = nil, nil
		}
		require.Equal(t, want, got)
	})
}
