package producer

import (
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// The latency tables of MQFaultStrategy (4.9.x), in ms, pinned by TestFaultTables: a send that
// took at least latencyMax[i] ms makes its broker unavailable for notAvailableDuration[i] ms
// (the largest i that applies):
//
//	latency ≥   50  100  550    1000    2000    3000    15000
//	pause       0    0   30000  60000   120000  180000  600000
//
// A failed send is charged 30000 ms, which is ≥ 15000: the broker is isolated for 600000 ms.
var (
	defaultLatencyMax           = []int64{50, 100, 550, 1000, 2000, 3000, 15000}
	defaultNotAvailableDuration = []int64{0, 0, 30000, 60000, 120000, 180000, 600000}
)

// isolationLatency is the latency a failed send is charged with when the duration is computed
// (Java: updateFaultItem(..., isolation ? 30000 : currentLatency)).
const isolationLatency = 30000

// MQFaultStrategy chooses the queue of each send attempt. Off (RocketMQ's default), it is
// TopicPublishInfo's round robin, skipping the broker of the previous failed attempt. On
// (sendLatencyFaultEnable), it also skips every broker whose fault item says "not yet": each
// send's latency makes its broker unavailable for the time the tables give, a failure for the
// time of a 30 s latency; when every broker is marked, pickOneAtLeast names the least bad one.
// Mirrors org.apache.rocketmq.client.latency.MQFaultStrategy.
type MQFaultStrategy struct {
	latencyFaultTolerance  *LatencyFaultTolerance
	sendLatencyFaultEnable atomic.Bool
	latencyMax             []int64
	notAvailableDuration   []int64
	tr                     *trace.Tracer
}

// NewMQFaultStrategy returns a strategy over a new fault table (clock in ms, pickOneAtLeast
// index seed); nil tables take the defaults. The two tables must have the same length.
func NewMQFaultStrategy(latencyMax, notAvailableDuration []int64, clk clock.Clock, seed int32, tr *trace.Tracer) *MQFaultStrategy {
	if latencyMax == nil {
		latencyMax = defaultLatencyMax
	}
	if notAvailableDuration == nil {
		notAvailableDuration = defaultNotAvailableDuration
	}
	return &MQFaultStrategy{
		latencyFaultTolerance: NewLatencyFaultTolerance(clk, seed, tr),
		latencyMax:            slices.Clone(latencyMax),
		notAvailableDuration:  slices.Clone(notAvailableDuration),
		tr:                    tr,
	}
}

// LatencyFaultTolerance returns the fault table.
func (s *MQFaultStrategy) LatencyFaultTolerance() *LatencyFaultTolerance {
	return s.latencyFaultTolerance
}

// SendLatencyFaultEnable reports whether the latency fault tolerance is on.
func (s *MQFaultStrategy) SendLatencyFaultEnable() bool { return s.sendLatencyFaultEnable.Load() }

// SetSendLatencyFaultEnable turns the latency fault tolerance on or off (the table is kept).
// Java: MQFaultStrategy#setSendLatencyFaultEnable.
func (s *MQFaultStrategy) SetSendLatencyFaultEnable(on bool) { s.sendLatencyFaultEnable.Store(on) }

// UpdateFaultItem records one send on brokerName (only when on): its latency in ms, and a
// not-available duration from the tables — for the latency itself, or, when the send failed
// (isolation), for a latency of 30000 ms: 600000 ms with the default tables. The item keeps the
// measured latency either way. Java: MQFaultStrategy#updateFaultItem.
func (s *MQFaultStrategy) UpdateFaultItem(brokerName string, currentLatency int64, isolation bool) {
	if !s.sendLatencyFaultEnable.Load() {
		return
	}
	charged := currentLatency
	if isolation {
		charged = isolationLatency
	}
	duration := s.ComputeNotAvailableDuration(charged)
	if s.tr.Enabled() {
		s.tr.Step("MQFaultStrategy#updateFaultItem", slog.String("brokerName", brokerName),
			slog.Int64("currentLatency", currentLatency), slog.Bool("isolation", isolation),
			slog.Int64("notAvailableDuration", duration))
	}
	s.latencyFaultTolerance.UpdateFaultItem(brokerName, currentLatency, duration)
}

// ComputeNotAvailableDuration returns notAvailableDuration[i] for the largest i with
// currentLatency ≥ latencyMax[i], 0 below latencyMax[0].
// Java: MQFaultStrategy#computeNotAvailableDuration.
func (s *MQFaultStrategy) ComputeNotAvailableDuration(currentLatency int64) int64 {
	for i := len(s.latencyMax) - 1; i >= 0; i-- {
		if currentLatency >= s.latencyMax[i] {
			return s.notAvailableDuration[i]
		}
	}
	return 0
}

// abs32 is Java's Math.abs(int): the minimum value stays negative.
func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
