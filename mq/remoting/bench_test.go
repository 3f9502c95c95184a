package remoting

import (
	"context"
	"testing"
)

// sendResponse is a typical SEND_MESSAGE answer header (SendMessageResponseHeader).
func sendResponse() *RemotingCommand {
	c := NewResponse(Success, "")
	c.Opaque = 123456
	c.ExtFields = map[string]string{
		"msgId":         "7F00000100002A9F0000000000001234",
		"queueId":       "3",
		"queueOffset":   "4711",
		"transactionId": "",
		"MSG_REGION":    "DefaultRegion",
		"TRACE_ON":      "true",
	}
	return c
}

// sendRequestV2 is a client-go SEND_MESSAGE_V2 header (single-letter keys a…n) with a 1 KiB body.
func sendRequestV2() *RemotingCommand {
	c := NewRequest(310, map[string]string{
		"a": "ProducerGroupName", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "2", "f": "0",
		"g": "1700000000000", "h": "0", "i": "UNIQ_KEY\x017F0000010001\x02WAIT\x01true\x02", "j": "0",
		"k": "false", "l": "0", "m": "false", "n": "",
	}, make([]byte, 1024))
	c.Language = "GO"
	c.Version = 317
	return c
}

// BenchmarkEncodeFrame encodes a send answer into a reused buffer (the writer's hot path).
func BenchmarkEncodeFrame(b *testing.B) {
	for _, bc := range []struct {
		name string
		c    *RemotingCommand
	}{{"sendResponse", sendResponse()}, {"sendRequestV2_1KiB", sendRequestV2()}} {
		b.Run(bc.name, func(b *testing.B) {
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				dst = EncodeFrame(dst[:0], bc.c)
			}
			b.SetBytes(int64(len(dst)))
		})
	}
}

// letterHeader takes the single-letter keys a…n into an array, as the broker's
// protocol.SendHeaderFields does (one allocation, no map).
type letterHeader struct{ v [14]string }

func (h *letterHeader) SetExtField(k, v string) bool {
	if len(k) != 1 || k[0] < 'a' || k[0] > 'n' {
		return false
	}
	h.v[k[0]-'a'] = v
	return true
}

// BenchmarkDecodeFrame decodes what client-go sends for SEND_MESSAGE_V2 (the reader's hot path):
// into the ExtFields map, and into a CustomHeader (what a Server's reader does for the send
// processor).
func BenchmarkDecodeFrame(b *testing.B) {
	frame := EncodeFrame(nil, sendRequestV2())[4:]
	for _, bc := range []struct {
		name      string
		newHeader HeaderFunc
	}{{"extFields", nil}, {"customHeader", func(int32) CustomHeader { return &letterHeader{} }}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if _, err := decodeFrame(frame, bc.newHeader); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTrip is a loopback InvokeSync with a 1 KiB body: one caller (latency-bound),
// and many callers on one connection (where the batched writer pays off).
func BenchmarkRoundTrip(b *testing.B) {
	s := NewServer(ServerConfig{ListenAddr: "127.0.0.1:0"}, nil, nil)
	s.RegisterProcessor(310, ProcessorFunc(func(*Channel, *RemotingCommand) (*RemotingCommand, error) {
		return sendResponse(), nil
	}), 4)
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown()
	c := NewClient(ClientConfig{}, nil)
	defer c.Shutdown()
	addr := s.Addr().String()
	proto := sendRequestV2()
	call := func() {
		req := *proto
		req.Opaque = requestID.Add(1)
		if _, err := c.InvokeSync(context.Background(), addr, &req); err != nil {
			b.Fatal(err)
		}
	}
	call() // connect
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call()
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				call()
			}
		})
	})
}
