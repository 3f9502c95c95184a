package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Latency is a latency distribution in brief. JSON carries each figure in nanoseconds
// ("p50Ns", …), as integers.
type Latency struct {
	P50  time.Duration `json:"p50Ns"`
	P99  time.Duration `json:"p99Ns"`
	P999 time.Duration `json:"p999Ns"`
	Max  time.Duration `json:"maxNs"`
	Mean time.Duration `json:"meanNs"`
}

// Summary is one run's outcome, as RunProducer and RunConsumer return it and `mqbench -json`
// prints it.
type Summary struct {
	// Mode is "sync", "async" (RunProducer) or "consume" (RunConsumer).
	Mode string `json:"mode"`
	// Messages counts the messages sent and acknowledged (a batch counts its messages), or
	// consumed (a redelivered message counts again).
	Messages int64 `json:"messages"`
	// Requests counts the acknowledged send requests (a batch is one); 0 for a consumer.
	Requests int64 `json:"requests"`
	// SendFailed counts send requests that failed on our side or on the way: no route, no
	// connection, timeout (RocketMQ's benchmark: RemotingException, MQClientException).
	SendFailed int64 `json:"sendFailed"`
	// ResponseFailed counts send requests the broker answered with an error code (RocketMQ's
	// benchmark: MQBrokerException).
	ResponseFailed int64 `json:"responseFailed"`
	// Errors counts the failed requests by kind (client.ErrorKind: "code=2" for a broker's
	// SYSTEM_BUSY, "timeout", "connect", …); absent when nothing failed.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Elapsed is the measured time (ns in JSON): from the first send to the last answer, or
	// from the first message consumed to the last one (see RunConsumer).
	Elapsed time.Duration `json:"elapsedNs"`
	// TPS is Messages per second of Elapsed.
	TPS float64 `json:"tps"`
	// Latency is the send round trip (SendAsync to callback, or around Send), one sample per
	// request; for a consumer, born-to-consume (the message's BornTimestamp, in ms, to the
	// listener call), one sample per message.
	Latency Latency `json:"latency"`
	// StoreToConsume is, for a consumer only, StoreTimestamp (ms) to the listener call.
	StoreToConsume *Latency `json:"storeToConsume,omitempty"`
}

// tps is n per second of d (0 for an empty d).
func tps(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// WriteJSON writes s as one JSON object and a newline.
func (s Summary) WriteJSON(w io.Writer) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteText writes s as RocketMQ's benchmark tools end a run, with RocketMQ's field names and
// the unit after each total and rate, since a batch is one request of many messages:
// "[Complete] Send Total: 21610 requests … Messages: 691520 … Send TPS: 68907 messages/s" (Send
// Total counts requests, as Java counts; Send TPS is messages), then the percentiles in
// milliseconds.
func (s Summary) WriteText(w io.Writer) error {
	var err error
	if s.Mode == ModeConsume {
		_, err = fmt.Fprintf(w, "[Complete] Consume Total: %d messages Elapsed: %s Consume TPS: %.0f messages/s\n",
			s.Messages, s.Elapsed.Round(time.Millisecond), s.TPS)
	} else {
		_, err = fmt.Fprintf(w, "[Complete] Send Total: %d requests Send Failed: %d Response Failed: %d Mode: %s Messages: %d Elapsed: %s Send TPS: %.0f messages/s\n",
			s.Requests+s.SendFailed+s.ResponseFailed, s.SendFailed, s.ResponseFailed, s.Mode, s.Messages,
			s.Elapsed.Round(time.Millisecond), s.TPS)
	}
	if err != nil {
		return err
	}
	if len(s.Errors) > 0 {
		if _, err := fmt.Fprintf(w, "Failures by kind: %v\n", s.Errors); err != nil { // fmt sorts map keys
			return err
		}
	}
	name := "RT"
	if s.Mode == ModeConsume {
		name = "B2C"
	}
	if err := writeLatency(w, name, s.Latency); err != nil {
		return err
	}
	if s.StoreToConsume != nil {
		return writeLatency(w, "S2C", *s.StoreToConsume)
	}
	return nil
}

func writeLatency(w io.Writer, name string, l Latency) error {
	_, err := fmt.Fprintf(w, "%s(ms) p50: %.3f p99: %.3f p999: %.3f max: %.3f avg: %.3f\n",
		name, ms(l.P50), ms(l.P99), ms(l.P999), ms(l.Max), ms(l.Mean))
	return err
}

// ms is d in milliseconds, fractional.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
