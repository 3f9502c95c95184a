package store

import (
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// FuzzCheckMessageAndReturnSize: reading arbitrary disk bytes never panics, and a record it
// accepts is inside the input. Java: CommitLog#checkMessageAndReturnSize.
func FuzzCheckMessageAndReturnSize(f *testing.F) {
	ex := unhex(f, workedExampleHex)
	f.Add(ex)
	f.Add([]byte{0, 0, 0, 8, 0xcb, 0xd4, 0x31, 0x94})
	f.Add(ex[:100])
	f.Fuzz(func(t *testing.T, b []byte) {
		var rr recordReader
		for _, crc := range []bool{false, true} {
			d := rr.checkMessageAndReturnSize(b, crc, -1)
			if d.Success && int(d.MsgSize) > len(b) {
				t.Fatalf("accepted a record of %d bytes from %d", d.MsgSize, len(b))
			}
			// where mq/primitive's (stricter: it parses hosts) decoder also accepts the
			// record, both read the same fields
			if m, err := decodeRecord(b); err == nil && d.Success && d.MsgSize > 0 {
				if m.Topic != d.Topic || m.QueueID != d.QueueID || m.QueueOffset != int64(d.ConsumeQueueOffset) ||
					m.CommitLogOffset != int64(d.CommitLogOffset) || m.StoreSize != d.MsgSize || m.StoreTimestamp != d.StoreTimestamp {
					t.Fatalf("reader and decoder disagree: %+v vs %+v", d, m)
				}
			}
		}
	})
}

// FuzzEncodeBatch: a batch body from the network never panics the encoder, and every record it
// produces reads back. Java: MessageExtEncoder#encode(MessageExtBatch).
func FuzzEncodeBatch(f *testing.F) {
	member := unhex(f, "0000001f000000000000000000000000000000027879000754414753014102")
	f.Add(member, "CLUSTER\x01c")
	f.Add(append(member, member...), "")
	f.Add(member[:10], "x")
	f.Fuzz(func(t *testing.T, body []byte, envelope string) {
		e := messageExtEncoder{maxBodySize: 1 << 20}
		m := &primitive.MessageExtBrokerInner{}
		m.Topic = "T"
		m.Body = body
		m.PropertiesString = envelope
		n, st := e.encodeBatch(m, make([]byte, 8), make([]byte, 8))
		if st != PutOK {
			return
		}
		var rr recordReader
		for i, p := 0, 0; i < n; i++ {
			d := rr.checkMessageAndReturnSize(e.buf[p:], true, -1)
			if !d.Success || d.MsgSize <= 0 {
				t.Fatalf("member %d does not read back", i)
			}
			p += int(d.MsgSize)
		}
	})
}
